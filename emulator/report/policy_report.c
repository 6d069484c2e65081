/* SPDX-License-Identifier: MIT */
/* The tiering policies' table in report.md (policy_report.h). */
#include "policy_report.h"

#include <string.h>

static double num(JsonObject *o, const char *key, double dflt)
{
	JsonNode *n = o && json_object_has_member(o, key) ?
		      json_object_get_member(o, key) : NULL;

	return n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) != G_TYPE_STRING ?
	       json_node_get_double(n) : dflt;
}

static JsonObject *obj(JsonObject *o, const char *key)
{
	return o && json_object_has_member(o, key) &&
	       JSON_NODE_HOLDS_OBJECT(json_object_get_member(o, key)) ?
	       json_object_get_object_member(o, key) : NULL;
}

static void one_workload(GString *s, const struct res_workload *w, JsonArray *pols)
{
	const char *kind = json_object_get_string_member_with_default(w->output, "kind", "?");
	double base = -1;

	for (guint i = 0; i < json_array_get_length(pols); i++) {
		JsonObject *p = json_array_get_object_element(pols, i);

		if (!g_strcmp0(json_object_get_string_member_with_default(p, "policy", ""),
			       "all-local") && json_object_get_boolean_member_with_default(p, "ok", FALSE))
			base = num(p, "guest_ms", -1);
	}
	g_string_append_printf(s, "\n### %s on %s (local fraction %.2f)\n\n"
			       "| policy | ok | time ms | vs all-local | fast hit ratio | moved MiB | "
			       "prefetch timely/late/useless |\n|---|---|---|---|---|---|---|\n",
			       kind, w->host, num(w->output, "local_fraction", 0));
	for (guint i = 0; i < json_array_get_length(pols); i++) {
		JsonObject *p = json_array_get_object_element(pols, i);
		JsonObject *pf = obj(p, "prefetch");
		double ms = num(p, "guest_ms", -1), hit = num(p, "hit_ratio", -1);
		gboolean ok = json_object_get_boolean_member_with_default(p, "ok", FALSE) &&
			      json_object_get_boolean_member_with_default(p, "same_result", FALSE);

		g_string_append_printf(s, "| %s | %s |",
				       json_object_get_string_member_with_default(p, "policy", "?"),
				       ok ? "yes" : "**no**");
		if (ms >= 0)
			g_string_append_printf(s, " %.1f |", ms);
		else
			g_string_append(s, " – |");
		if (ms >= 0 && base > 0)
			g_string_append_printf(s, " %.2fx |", ms / base);
		else
			g_string_append(s, " – |");
		if (hit >= 0)
			g_string_append_printf(s, " %.3f |", hit);
		else
			g_string_append(s, " – |");
		g_string_append_printf(s, " %.1f |", num(p, "moved_bytes", 0) / (1024.0 * 1024.0));
		if (pf)
			g_string_append_printf(s, " %.0f/%.0f/%.0f |\n", num(pf, "timely", 0),
					       num(pf, "late", 0), num(pf, "useless", 0));
		else
			g_string_append(s, " – |\n");
	}
}

void policy_report_md(GString *s, const struct run_result *r)
{
	bool any = false;

	for (guint i = 0; i < r->workloads->len; i++) {
		const struct res_workload *w = g_ptr_array_index(r->workloads, i);
		JsonArray *pols;

		if (!w->output || g_strcmp0(json_object_get_string_member_with_default(
				   w->output, "workload", ""), "pool") ||
		    !json_object_has_member(w->output, "policies") ||
		    !JSON_NODE_HOLDS_ARRAY(json_object_get_member(w->output, "policies")))
			continue;
		pols = json_object_get_array_member(w->output, "policies");
		if (!any)
			g_string_append(s, "\n## Tiering policies\n\nThe same workload under each "
					   "policy (docs/pooling.md). Time: each policy's span in "
					   "guest time, which is modeled time when summary.json "
					   "`guest_clock` is `modeled`; moved: pages the kernel "
					   "migrated plus the runtime's own copies.\n");
		any = true;
		one_workload(s, w, pols);
	}
}
