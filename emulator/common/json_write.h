/* SPDX-License-Identifier: MIT */
/*
 * JSON text out (summary.json, compare's and collect's JSON, socket
 * replies). json-glib writes a double that is not finite as "inf.0" or
 * "nan.0", and 1e20 as "1e+20.0", which no JSON reader takes; here a
 * number that is not finite becomes null, as an unmeasured figure is, and
 * 1e20 is written "1e+20".
 */
#ifndef CXLBED_JSON_WRITE_H
#define CXLBED_JSON_WRITE_H

#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdbool.h>

/* @root as text, indented when @pretty; non-finite numbers in it become null (in place). */
char *json_write_text(JsonNode *root, bool pretty);
/* The same, indented, into PATH. */
bool json_write_file(JsonNode *root, const char *path, GError **error);

#endif
