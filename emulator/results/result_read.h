/* SPDX-License-Identifier: MIT */
/*
 * summary.json and table.json read back into the structs that wrote them
 * (a report can be redrawn, two runs compared, sweep points collected).
 * Unknown members are ignored; a figure that is null or absent reads as -1.
 */
#ifndef CXLBED_RESULT_READ_H
#define CXLBED_RESULT_READ_H

#include "results/result.h"
#include "results/table_paths.h"

/*
 * summary.json (schema cxlbed.result/1 exactly) or table.json
 * (cxlbed.table/1): @text, named @name in errors, or the file at PATH.
 * Strict: json_read.h's JSON, each member read of its type (a figure a
 * number or null), a host's node listed once. NULL and CXLBED_ERROR_INPUT
 * naming the file and the member ("hosts[0].nodes[1].latency_ns")
 * otherwise. A run loaded from PATH has out_dir the folder it lies in.
 */
struct run_result *result_parse(const char *name, const char *text, gsize len, GError **error);
struct run_result *result_load(const char *summary_json, GError **error);
struct table *table_parse(const char *name, const char *text, gsize len, GError **error);
struct table *table_load(const char *table_json, GError **error);

/* What a path holds: a run (summary.json) or a table (table.json). */
enum result_kind { RESULT_NONE, RESULT_RUN, RESULT_TABLE };

/*
 * PATH: a run or table folder, or a summary.json/table.json file. Returns
 * the JSON file's path and its kind; NULL and CXLBED_ERROR_INPUT when it is
 * neither.
 */
char *result_locate(const char *path, enum result_kind *kind, GError **error);

/* The topology a result names (as recorded; a relative path is also tried
 * under the cxlbed root); NULL when it cannot be read any more. */
struct cb_topology *result_topology(const char *recorded_path);
/* The topology of run @r of the table in @table_dir (its DIR/NAME/summary.json). */
struct cb_topology *table_run_topology(const char *table_dir, const struct table_run *r);

#endif
