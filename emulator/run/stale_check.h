/* SPDX-License-Identifier: MIT */
/*
 * Stale reads of memory shared between hosts without coherence, per
 * workload: the timing model counts them per host and per program, from
 * the program's first marker (timing-HOST.json "stale_reads", its
 * "program" counts and "events"; docs/kv-share.md). A workload that says
 * how it shares ("shared_protocol" in its output) gets its counts and a
 * check that passes when there were none.
 */
#ifndef CXLBED_STALE_CHECK_H
#define CXLBED_STALE_CHECK_H

#include <json-glib/json-glib.h>
#include <stdbool.h>

#include "results/result.h"

/*
 * For a workload whose @output has "shared_protocol": output.stale_reads
 * (loads not invalidated, not flushed, lines flushed, and the first stale
 * loads with their offsets and call sites) and the check stale:@workload:@host, which fails when there was
 * a stale read, when the model watched no shared memory there, or when
 * the report was not written by this run (@fresh false: no ROI of it).
 */
void stale_check_workload(struct run_result *r, JsonObject *output,
			  const char *report, bool fresh, const char *workload,
			  const char *host);

#endif
