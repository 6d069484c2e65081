/* SPDX-License-Identifier: MIT */
/*
 * For report tests: a report section rendered from a summary.json text,
 * as `cxlbed report` would from a run folder.
 */
#ifndef CXLBED_REPORT_TEST_H
#define CXLBED_REPORT_TEST_H

#include "common/json_read.h"
#include "common/json_write.h"
#include "results/result_read.h"

/*
 * @section's markdown for @json (its schema taken as cxlbed.result/1);
 * empty when it does not read.
 */
static GString *render_section(const char *json,
			       void (*section)(GString *s, const struct run_result *r))
{
	g_autoptr(JsonNode) root = json_read_text("test.json", json, -1, NULL);
	g_autoptr(run_result) r = NULL;
	g_autoptr(GError) err = NULL;
	g_autofree char *text = NULL;
	GString *s = g_string_new(NULL);

	if (!root || !JSON_NODE_HOLDS_OBJECT(root))
		return s;
	json_object_set_string_member(json_node_get_object(root), "schema", RESULT_SCHEMA);
	text = json_write_text(root, false);
	r = result_parse("test.json", text, strlen(text), &err);
	if (r)
		section(s, r);
	else
		printf("# %s\n", err->message);
	return s;
}

#endif
