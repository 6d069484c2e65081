/* SPDX-License-Identifier: MIT */
/*
 * The faults of a run in its reports: report.md's "Faults" section and
 * the timeline plot (faults-timeline.svg): each protected workload's
 * throughput per epoch over modeled time, with every fault's injection,
 * detection, resumed service and re-protection marked on it.
 */
#ifndef CXLBED_FAULT_REPORT_H
#define CXLBED_FAULT_REPORT_H

#include "results/result.h"

#define FAULT_SVG_FILE "faults-timeline.svg"

/* The faults' timeline plot (an SVG document); caller frees. */
char *fault_report_svg(const struct run_result *r);
bool fault_report_write_svg(const struct run_result *r, const char *dir);
void fault_report_md(GString *s, const struct run_result *r);

#endif
