/* SPDX-License-Identifier: MIT */
/* report.html's sections on what ran on the fabric (html_runtime.h). */
#include "results/html_runtime.h"
#include "results/fault_report.h"
#include "results/html_parts.h"
#include "results/policy_report.h"
#include "results/pool_report.h"
#include "results/svg.h"

static double num(JsonObject *o, const char *key, double dflt)
{
	JsonNode *n = o && json_object_has_member(o, key) ?
		      json_object_get_member(o, key) : NULL;

	return n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) != G_TYPE_STRING ?
	       json_node_get_double(n) : dflt;
}

static void figure(GString *s, const char *svg)
{
	g_string_append(s, "<div class=\"figure\">\n");
	g_string_append(s, svg_element(svg));
	g_string_append(s, "</div>\n");
}

/* One pool workload: its policies side by side, then the hit-ratio plot. */
static void policies(GString *s, const struct res_workload *w, JsonArray *pols)
{
	static const char *const cols[] = { "policy", "ok", "time ms", "vs all-local",
					    "fast hit ratio", "moved MiB", "prefetch timely",
					    "late", "useless", NULL };
	g_autofree char *svg = policy_report_svg(w);
	g_autofree char *reading = policy_report_reading(w);
	g_autofree char *kernel = policy_report_kernel(w);
	g_autofree char *head = g_strdup_printf("%s on %s (local fraction %.2f)",
		json_object_get_string_member_with_default(w->output, "kind", "?"), w->host,
		num(w->output, "local_fraction", 0));
	double base = -1;

	for (guint i = 0; i < json_array_get_length(pols); i++) {
		JsonObject *p = json_array_get_object_element(pols, i);

		if (!g_strcmp0(json_object_get_string_member_with_default(p, "policy", ""),
			       "all-local"))
			base = num(p, "guest_ms", -1);
	}
	g_string_append(s, "<h3>");
	html_esc(s, head);
	g_string_append(s, "</h3>\n");
	html_table_head(s, cols);
	for (guint i = 0; i < json_array_get_length(pols); i++) {
		JsonObject *p = json_array_get_object_element(pols, i);
		JsonObject *pf = p && json_object_has_member(p, "prefetch") &&
				 JSON_NODE_HOLDS_OBJECT(json_object_get_member(p, "prefetch")) ?
				 json_object_get_object_member(p, "prefetch") : NULL;
		bool ok = json_object_get_boolean_member_with_default(p, "ok", FALSE) &&
			  json_object_get_boolean_member_with_default(p, "same_result", FALSE);
		double ms = num(p, "guest_ms", -1);

		g_string_append(s, "<tr>");
		html_cell(s, json_object_get_string_member_with_default(p, "policy", "?"));
		if (!policy_report_ran(p)) {
			g_string_append(s, "<td>unavailable (kernel)</td>");
			for (int c = 2; cols[c]; c++)
				html_num(s, -1, "%.0f");
			g_string_append(s, "</tr>\n");
			continue;
		}
		g_string_append_printf(s, "<td class=\"%s\">%s</td>", ok ? "pass" : "fail",
				       ok ? "yes" : "no");
		html_num(s, ms, "%.1f");
		html_num(s, ms >= 0 && base > 0 ? ms / base : -1, "%.2fx");
		html_num(s, num(p, "hit_ratio", -1), "%.3f");
		html_num(s, num(p, "moved_bytes", 0) / (1024.0 * 1024.0), "%.1f");
		html_num(s, pf ? num(pf, "timely", 0) : -1, "%.0f");
		html_num(s, pf ? num(pf, "late", 0) : -1, "%.0f");
		html_num(s, pf ? num(pf, "useless", 0) : -1, "%.0f");
		g_string_append(s, "</tr>\n");
	}
	g_string_append(s, "</table>\n");
	if (reading) {
		g_string_append(s, "<p class=\"note\">");
		html_esc(s, reading);
		g_string_append(s, "</p>\n");
	}
	if (kernel) {
		g_string_append(s, "<p class=\"note\">");
		html_esc(s, kernel);
		g_string_append(s, "</p>\n");
	}
	if (svg)
		figure(s, svg);
}

void html_tiering_section(GString *s, const struct run_result *r)
{
	g_autofree char *note = policy_report_note(r);
	g_autoptr(GString) heading = g_string_new("<h2>Tiering policies</h2>\n<p class=\"note\">");

	html_esc(heading, note);
	g_string_append(heading, "</p>\n");
	policy_report_each(s, r, heading->str, policies);
}

void html_pool_section(GString *s, const struct run_result *r)
{
	g_autofree char *svg = NULL;

	if (!r->pool)
		return;
	svg = pool_report_svg(r->pool, r->faults);
	g_string_append(s, "<h2>Pool (fabric manager)</h2>\n<p class=\"note\">Capacity the "
			   "fabric manager lent to each host over the run, what the hosts used, "
			   "and what stayed free or stranded (docs/pooling.md; the events and "
			   "the ownership map are in report.md and summary.json "
			   "<code>pool</code>).</p>\n");
	figure(s, svg);
}

void html_faults_section(GString *s, const struct run_result *r)
{
	g_autofree char *svg = NULL;

	if (!r->faults->len)
		return;
	svg = fault_report_svg(r);
	g_string_append(s, "<h2>Faults</h2>\n<p class=\"note\">Each fault's injection, its "
			   "detection on each host, when the workload was served again and "
			   "when its data was protected again, over what the workloads did "
			   "(docs/faults.md; the figures per fault are in report.md).</p>\n");
	figure(s, svg);
}
