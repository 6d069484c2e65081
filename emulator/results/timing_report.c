/* SPDX-License-Identifier: MIT */
#include "results/timing_report.h"

char *timing_report_path(const char *dir, const struct cb_host *h)
{
	return g_strdup_printf("%s/timing-%s.json", dir, h->id);
}

JsonArray *timing_report_rois(JsonParser *p, const char *report)
{
	JsonNode *root;
	JsonObject *o;

	if (!json_parser_load_from_file(p, report, NULL) ||
	    !(root = json_parser_get_root(p)) || !JSON_NODE_HOLDS_OBJECT(root))
		return NULL;
	o = json_node_get_object(root);
	if (!json_object_has_member(o, "rois"))
		return NULL;
	return json_object_get_array_member(o, "rois");
}

guint timing_report_roi_count(const char *report)
{
	g_autoptr(JsonParser) p = json_parser_new();
	JsonArray *rois = timing_report_rois(p, report);

	return rois ? json_array_get_length(rois) : 0;
}
