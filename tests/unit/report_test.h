/* SPDX-License-Identifier: MIT */
/*
 * For report tests: a report section rendered from a summary.json text,
 * as `cxlbed report` would from a run folder.
 */
#ifndef CXLBED_REPORT_TEST_H
#define CXLBED_REPORT_TEST_H

#include "result_read.h"

/* @section's markdown for @json; empty when the JSON does not parse. */
static GString *render_section(const char *json,
			       void (*section)(GString *s, const struct run_result *r))
{
	g_autoptr(JsonParser) p = json_parser_new();
	g_autoptr(run_result) r = NULL;
	GString *s = g_string_new(NULL);

	if (!json_parser_load_from_data(p, json, -1, NULL))
		return s;
	r = result_from_json(json_node_get_object(json_parser_get_root(p)));
	if (r)
		section(s, r);
	return s;
}

#endif
