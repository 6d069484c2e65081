/* SPDX-License-Identifier: MIT */
/*
 * What an unmodified program says about its own throughput, read from its
 * text output by a small table of parsers (docs/scenarios.md):
 *
 *   sysbench-memory   "256.00 MiB transferred (1234.56 MiB/sec)"
 *   sysbench          "total number of events: N" with "events per
 *                     second: R", or else N over "total time: Ts"
 *   redis-benchmark   per test "N requests completed in T seconds" and
 *                     then "R requests per second" (not -q: it prints no N)
 *
 * Result: {"parser", "unit", "count", "per_s", "seconds"}: count
 * operations (MiB, events, requests) done at per_s by the program's own
 * clock, seconds = count / per_s (the time it measured). NULL when no
 * parser recognises the text.
 */
#ifndef CXLBED_PROGRAM_OUTPUT_H
#define CXLBED_PROGRAM_OUTPUT_H

#include <json-glib/json-glib.h>

JsonObject *program_figures(const char *text);

#endif
