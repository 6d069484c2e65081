/* SPDX-License-Identifier: MIT */
/*
 * report.md's "Tiering policies" section: each cxlbed-pool workload's
 * policies side by side (summary.json workloads[].output.policies[],
 * docs/pooling.md).
 */
#ifndef CXLBED_POLICY_REPORT_H
#define CXLBED_POLICY_REPORT_H

#include <glib.h>

#include "result.h"

/* Appends nothing when no workload is a cxlbed-pool run. */
void policy_report_md(GString *s, const struct run_result *r);

#endif
