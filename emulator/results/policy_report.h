/* SPDX-License-Identifier: MIT */
/*
 * report.md's "Tiering policies" section: each cxlbed-pool workload's
 * policies side by side (summary.json workloads[].output.policies[],
 * docs/pooling.md).
 */
#ifndef CXLBED_POLICY_REPORT_H
#define CXLBED_POLICY_REPORT_H

#include <glib.h>

#include "results/result.h"

/* What the policy figures are, for report.md and report.html alike,
 * with the run's clock (result_clock_words); caller frees. */
char *policy_report_note(const struct run_result *r);

/*
 * fn(s, w, policies) for each cxlbed-pool workload of @r, @heading first;
 * nothing at all when there is none.
 */
typedef void (*policy_report_fn)(GString *s, const struct res_workload *w, JsonArray *pols);
void policy_report_each(GString *s, const struct run_result *r, const char *heading,
			policy_report_fn fn);
/* Appends nothing when no workload is a cxlbed-pool run. */
void policy_report_md(GString *s, const struct run_result *r);
/* The policies of a `cxlbed-pool` workload's output; NULL for any other. */
JsonArray *policy_report_policies(const struct res_workload *w);
/*
 * How to read @w's policies: the workload's own reading (what tiering can
 * gain on it), each policy whose pages went back and forth between the
 * tiers (its migrations are in its time), each policy that held more
 * local memory than its limit (its time is not comparable), and how far
 * apart the policies that held the limit came. Plain text; NULL when
 * there is nothing to say; caller frees.
 */
char *policy_report_reading(const struct res_workload *w);
/*
 * What the guest kernel decided of @w's policies: each policy it lacks
 * ("available": false in the output: interleave-auto and damon-auto need
 * Linux 6.16) and why, and what it tuned for those it has (interleave-
 * auto's weights, damon-auto's quotas against their goals and what each
 * scheme applied). Plain text, one sentence each; NULL when nothing;
 * caller frees.
 */
char *policy_report_kernel(const struct res_workload *w);
/* Did policy @p of the output run (false: the kernel lacks it)? */
bool policy_report_ran(JsonObject *p);
/* hit-ratio-NAME-HOST.svg: the file of @w's plot; caller frees. */
char *policy_report_svg_name(const struct res_workload *w);
/* @w's fast-tier hit ratio over time, one line per policy (an SVG
 * document; NULL when it has none); caller frees. */
char *policy_report_svg(const struct res_workload *w);
/* Every pool workload's plot into @dir. */
bool policy_report_write_svgs(const struct run_result *r, const char *dir, GError **error);

#endif
