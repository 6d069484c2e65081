/* SPDX-License-Identifier: MIT */
/*
 * `cxlbed sweep --collect`'s writers: each point's result (@runs[i], NULL
 * when the point has none) into sweep.csv, sweep-results.json, sweep.md,
 * sweep.svg and report.html in @dir, and the CSV with a line per failed
 * point on @out. Returns the exit status: 0 every point passed, 1 not.
 */
#ifndef CXLBED_SWEEP_REPORT_H
#define CXLBED_SWEEP_REPORT_H

#include "results/result.h"
#include "results/sweep_matrix.h"

#include <stdio.h>

int sweep_report_write(const struct sweep_matrix *s, struct run_result **runs,
		       const char *dir, FILE *out);

#endif
