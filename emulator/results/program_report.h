/* SPDX-License-Identifier: MIT */
/*
 * Your own programs in the reports: each command workload's results
 * (summary.json workloads[].output of a `command =` workload,
 * docs/scenarios.md): its throughput by its own clock, the same count
 * over the modeled time of its region, the two against each other, CXL
 * against local, and its log file. report.md and report.html show the
 * same rows (program_report_rows).
 */
#ifndef CXLBED_PROGRAM_REPORT_H
#define CXLBED_PROGRAM_REPORT_H

#include "results/result.h"

enum { PROGRAM_NCOLS = 8 };

/* The columns' headings, PROGRAM_NCOLS of them. */
extern const char *const program_report_cols[PROGRAM_NCOLS + 1];

struct program_row {
	char *cells[PROGRAM_NCOLS];	/* as text, "-" where there is nothing */
	const char *log;		/* its log file beside the report, or NULL */
};

/* One row per command workload run of @r (struct program_row *), or NULL
 * when it ran none. */
GPtrArray *program_report_rows(const struct run_result *r);
/* What the columns mean, with the run's clock (result_clock_words). */
char *program_report_note(const struct run_result *r);
/* report.md's "Programs" section; nothing when it ran none. */
void program_report_md(GString *s, const struct run_result *r);

#endif
