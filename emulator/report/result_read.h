/* SPDX-License-Identifier: MIT */
/*
 * summary.json and table.json read back into the structs that wrote them
 * (a report can be redrawn, two runs compared, sweep points collected).
 * Unknown members are ignored; a figure that is null reads as -1.
 */
#ifndef CXLBED_RESULT_READ_H
#define CXLBED_RESULT_READ_H

#include "result.h"
#include "table_paths.h"

/*
 * PATH parsed; its "schema" must start with @schema_prefix (NULL: any).
 * Errors: CXLBED_ERROR_INPUT naming PATH. Caller frees.
 */
JsonNode *read_json_file(const char *path, const char *schema_prefix,
			 GError **error);
/* A member's number, or -1 when absent or null. */
double read_figure(JsonObject *o, const char *key);

struct run_result *result_from_json(JsonObject *summary);
/* PATH/summary.json; out_dir becomes the folder it lies in. */
struct run_result *result_load(const char *summary_json, GError **error);

struct table *table_from_json(JsonObject *table);
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
