/* SPDX-License-Identifier: MIT */
/*
 * report.html's sections on what ran on the fabric: the tiering policies
 * side by side with their hit-ratio plots, the pool's utilisation, the
 * faults' timeline. Each appends nothing when the run has none.
 */
#ifndef CXLBED_REPORT_HTML_RUNTIME_H
#define CXLBED_REPORT_HTML_RUNTIME_H

#include <glib.h>

#include "results/result.h"

void html_tiering_section(GString *s, const struct run_result *r);
void html_pool_section(GString *s, const struct run_result *r);
void html_faults_section(GString *s, const struct run_result *r);

#endif
