/* SPDX-License-Identifier: MIT */
/* report.html's "KV cache shared through a CXL pool" section (kv_report.h);
 * nothing when the run has no cxlbed-kvshare decode workload. */
#ifndef CXLBED_REPORT_HTML_KV_H
#define CXLBED_REPORT_HTML_KV_H

#include <glib.h>

#include "results/result.h"

void html_kv_section(GString *s, const struct run_result *r);

#endif
