/* SPDX-License-Identifier: MIT */
/*
 * The modeled times of a protected workload's markers (workloads/
 * protect_log.h, ROI ids 3000-3005): the k-th marker of an id in the
 * workload's "fault_rois" list is the k-th ROI of that id the plugin
 * reported since the workload started. Each entry gains begin_ns and
 * end_ns (modeled) in "modeled_rois".
 */
#include "results/fault_rois.h"
#include "results/timing_report.h"

#define FIRST_ID 3000
#define IDS 6

bool fault_rois_merge(JsonObject *output, const char *report, guint first_roi)
{
	g_autoptr(JsonParser) p = json_parser_new();
	JsonArray *rois, *want, *out;
	GPtrArray *by_id[IDS];
	guint matched = 0;

	if (!json_object_has_member(output, "fault_rois"))
		return true;
	want = json_object_get_array_member(output, "fault_rois");
	rois = timing_report_rois(p, report);
	if (!rois)
		return false;
	for (int i = 0; i < IDS; i++)
		by_id[i] = g_ptr_array_new();
	for (guint i = first_roi; i < json_array_get_length(rois); i++) {
		JsonObject *r = json_array_get_object_element(rois, i);
		gint64 id = json_object_get_int_member_with_default(r, "id", -1);

		if (id >= FIRST_ID && id < FIRST_ID + IDS)
			g_ptr_array_add(by_id[id - FIRST_ID], r);
	}
	out = json_array_new();
	for (guint i = 0; want && i < json_array_get_length(want); i++) {
		JsonObject *w = json_array_get_object_element(want, i);
		gint64 id = json_object_get_int_member_with_default(w, "id", -1);
		gint64 k = json_object_get_int_member_with_default(w, "index", -1);
		JsonObject *m, *r;

		if (id < FIRST_ID || id >= FIRST_ID + IDS || k < 0 ||
		    k >= (gint64)by_id[id - FIRST_ID]->len)
			continue;
		r = g_ptr_array_index(by_id[id - FIRST_ID], k);
		m = json_object_new();
		json_object_set_int_member(m, "id", id);
		json_object_set_int_member(m, "index", k);
		json_object_set_string_member(m, "what",
			json_object_get_string_member_with_default(w, "what", ""));
		json_object_set_double_member(m, "begin_ns",
			json_object_get_double_member_with_default(r, "begin_ns", 0));
		json_object_set_double_member(m, "end_ns",
			json_object_get_double_member_with_default(r, "end_ns", 0));
		json_array_add_object_element(out, m);
		matched++;
	}
	json_object_set_array_member(output, "modeled_rois", out);
	for (int i = 0; i < IDS; i++)
		g_ptr_array_unref(by_id[i]);
	return matched == json_array_get_length(want);
}

/* The modeled [begin, end] of marker (@id, @index), false when absent. */
bool fault_roi_time(JsonObject *output, int id, gint64 index, double *begin,
		    double *end)
{
	JsonArray *a = json_object_has_member(output, "modeled_rois") ?
		       json_object_get_array_member(output, "modeled_rois") : NULL;

	for (guint i = 0; a && i < json_array_get_length(a); i++) {
		JsonObject *m = json_array_get_object_element(a, i);

		if (json_object_get_int_member(m, "id") == id &&
		    json_object_get_int_member(m, "index") == index) {
			*begin = json_object_get_double_member(m, "begin_ns");
			*end = json_object_get_double_member(m, "end_ns");
			return true;
		}
	}
	return false;
}
