/* SPDX-License-Identifier: MIT */
/*
 * What `cxlbed gpu` writes from the GPU binary's JSON (gpu.json):
 * summary.json (cxlbed.result/1 with a gpu section), report.md, the
 * transfer/compute overlap plot (overlap.svg) and the terminal table.
 */
#include "results/gpu_report.h"
#include "results/svg.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* ---- small JSON readers that tolerate missing members ---- */
static JsonObject *obj_of(JsonObject *o, const char *k)
{
	return o && json_object_has_member(o, k) &&
	       JSON_NODE_HOLDS_OBJECT(json_object_get_member(o, k)) ?
	       json_object_get_object_member(o, k) : NULL;
}

static JsonArray *arr_of(JsonObject *o, const char *k)
{
	return o && json_object_has_member(o, k) &&
	       JSON_NODE_HOLDS_ARRAY(json_object_get_member(o, k)) ?
	       json_object_get_array_member(o, k) : NULL;
}

static double num_of(JsonObject *o, const char *k)
{
	JsonNode *n = o && json_object_has_member(o, k) ?
		      json_object_get_member(o, k) : NULL;

	return n && JSON_NODE_HOLDS_VALUE(n) ? json_node_get_double(n) : NAN;
}

const char *gpu_str_of(JsonObject *o, const char *k)
{
	JsonNode *n = o && json_object_has_member(o, k) ?
		      json_object_get_member(o, k) : NULL;

	return n && json_node_get_value_type(n) == G_TYPE_STRING ?
	       json_node_get_string(n) : "";
}

static char *fmt_num(double v, int prec)
{
	return isnan(v) ? g_strdup("-") : g_strdup_printf("%.*f", prec, v);
}

/* Free text in a markdown table cell: a '|' would split the cell. */
static char *md_esc(const char *t)
{
	GString *s = g_string_new(NULL);

	for (; *t; t++) {
		if (*t == '|')
			g_string_append_c(s, '\\');
		g_string_append_c(s, *t == '\n' ? ' ' : *t);
	}
	return g_string_free(s, FALSE);
}

static char *gbps_text(double v)
{
	return v > 0 ? g_strdup_printf("%g GB/s", v) : g_strdup("uncapped");
}

/* ---- summary.json ---- */
static void add_member_copy(JsonBuilder *b, JsonObject *src, const char *k)
{
	json_builder_set_member_name(b, k);
	if (src && json_object_has_member(src, k))
		json_builder_add_value(b, json_node_copy(json_object_get_member(src, k)));
	else
		json_builder_add_null_value(b);
}

JsonNode *gpu_report_summary(JsonObject *g, const char *run_id, const char *wl,
			       const char *source, const char *cmdline)
{
	g_autoptr(JsonBuilder) b = json_builder_new();
	JsonArray *w = arr_of(g, "workloads");
	g_autofree char *scn = g_strdup_printf("gpu:%s", wl);

	json_builder_begin_object(b);
	json_builder_set_member_name(b, "schema");
	json_builder_add_string_value(b, "cxlbed.result/1");
	json_builder_set_member_name(b, "run_id");
	json_builder_add_string_value(b, run_id);
	json_builder_set_member_name(b, "mode");
	json_builder_add_string_value(b, "gpu");
	json_builder_set_member_name(b, "topology");
	json_builder_add_null_value(b);
	json_builder_set_member_name(b, "scenario");
	json_builder_add_string_value(b, scn);
	json_builder_set_member_name(b, "timing_model");
	json_builder_add_boolean_value(b, FALSE);
	json_builder_set_member_name(b, "boot_ready_s");
	json_builder_add_null_value(b);
	json_builder_set_member_name(b, "hosts");
	json_builder_begin_array(b);
	json_builder_end_array(b);
	/* Workloads without their per-run detail are in gpu.workloads. */
	json_builder_set_member_name(b, "workloads");
	json_builder_begin_array(b);
	for (guint i = 0; w && i < json_array_get_length(w); i++) {
		JsonObject *o = json_array_get_object_element(w, i);

		json_builder_begin_object(b);
		json_builder_set_member_name(b, "name");
		json_builder_add_string_value(b, gpu_str_of(o, "name"));
		json_builder_set_member_name(b, "kind");
		json_builder_add_string_value(b, "gpu");
		add_member_copy(b, o, "summary");
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	json_builder_set_member_name(b, "faults");
	json_builder_begin_array(b);
	json_builder_end_array(b);
	add_member_copy(b, g, "checks");
	json_builder_set_member_name(b, "verdict");
	json_builder_add_string_value(b, !strcmp(gpu_str_of(g, "verdict"), "pass") ?
				      "pass" : "fail");
	json_builder_set_member_name(b, "gpu");
	json_builder_begin_object(b);
	json_builder_set_member_name(b, "source");
	json_builder_add_string_value(b, source);
	json_builder_set_member_name(b, "command");
	json_builder_add_string_value(b, cmdline);
	add_member_copy(b, g, "clock");
	add_member_copy(b, g, "device");
	add_member_copy(b, g, "far_tiers");
	add_member_copy(b, g, "primary_far");
	add_member_copy(b, g, "targets");
	add_member_copy(b, g, "workloads");
	json_builder_end_object(b);
	json_builder_end_object(b);
	return json_builder_get_root(b);
}

/* ---- report.md ---- */
static void md_far_summary(GString *s, JsonArray *sum)
{
	g_string_append(s, "| far tier (added cost) | compute only ms | transfer only ms | tiered ms | "
			"demand ms | tiered / max(compute, transfer) | overlap % | "
			"demand overlap % | speedup vs UM |\n"
			"|---|---|---|---|---|---|---|---|---|\n");
	for (guint i = 0; sum && i < json_array_get_length(sum); i++) {
		JsonObject *o = json_array_get_object_element(sum, i);
		g_autofree char *a = fmt_num(num_of(o, "compute_only_ms"), 2);
		g_autofree char *x = fmt_num(num_of(o, "transfer_only_ms"), 2);
		g_autofree char *t = fmt_num(num_of(o, "tiered_ms"), 2);
		g_autofree char *d = fmt_num(num_of(o, "demand_ms"), 2);
		g_autofree char *r = fmt_num(num_of(o, "tiered_vs_bound"), 2);
		g_autofree char *ov = fmt_num(num_of(o, "overlap_pct"), 0);
		g_autofree char *dv = fmt_num(num_of(o, "demand_overlap_pct"), 0);
		g_autofree char *um = fmt_num(num_of(o, "speedup_vs_um"), 2);
		g_autofree char *bw = gbps_text(num_of(o, "far_gbps"));

		g_string_append_printf(s, "| %s (+%.0f ns, %s) | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				       gpu_str_of(o, "far"), num_of(o, "far_latency_ns"),
				       bw, a, x, t, d, r, ov, dv, um);
	}
}

static void md_runs(GString *s, JsonArray *runs)
{
	g_string_append(s, "\n| mode | far tier | ms | hits | late | misses | prefetches | "
			"evictions | write-backs | MiB in | MiB out | host stall ms |\n"
			"|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (guint i = 0; runs && i < json_array_get_length(runs); i++) {
		JsonObject *o = json_array_get_object_element(runs, i);
		g_autofree char *ms = fmt_num(num_of(o, "ms"), 2);

		if (!json_object_has_member(o, "accesses")) {
			g_string_append_printf(s, "| %s | %s | %s | | | | | | | | | |\n",
					       gpu_str_of(o, "mode"), "-", ms);
			continue;
		}
		g_string_append_printf(s, "| %s | %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.2f |\n",
				       gpu_str_of(o, "mode"), gpu_str_of(o, "far"), ms,
				       num_of(o, "hits"), num_of(o, "late"),
				       num_of(o, "misses"), num_of(o, "prefetches"),
				       num_of(o, "evictions"), num_of(o, "writebacks"),
				       num_of(o, "bytes_in") / 1048576.0,
				       num_of(o, "bytes_out") / 1048576.0,
				       num_of(o, "stall_ms"));
	}
}

static void md_config(GString *s, JsonObject *cfg)
{
	GList *m = cfg ? json_object_get_members(cfg) : NULL;
	bool first = true;

	for (GList *l = m; l; l = l->next) {
		g_string_append_printf(s, "%s%s %g", first ? "" : ", ",
				       (char *)l->data, num_of(cfg, l->data));
		first = false;
	}
	g_list_free(m);
	if (!first)
		g_string_append(s, "\n\n");
}

char *gpu_report_markdown(JsonObject *g, const char *run_id, const char *source)
{
	GString *s = g_string_new(NULL);
	JsonObject *dev = obj_of(g, "device");
	JsonArray *a;

	g_string_append_printf(s, "# cxlbed GPU run %s\n\n", run_id);
	{
		g_autofree char *hbm = fmt_num(num_of(dev, "hbm_bytes") / 1073741824.0, 1);

		g_string_append_printf(s, "Workload `%s` on %s (compute capability %.0f.%.0f, "
				       "%s GiB HBM, CUDA runtime %.0f, driver %.0f). Verdict: **%s**.\n\n",
				       gpu_str_of(g, "workload"), gpu_str_of(dev, "name"),
				       num_of(dev, "cc_major"), num_of(dev, "cc_minor"), hbm,
				       num_of(dev, "cuda_runtime"), num_of(dev, "cuda_driver"),
				       gpu_str_of(g, "verdict"));
	}
	g_string_append_printf(s, "How the numbers were obtained: measured by cxlbed-gpu "
			       "on the device above (%s; %s) as %s. The far tier is emulated: pinned host "
			       "memory whose copies are shaped by the runtime (added "
			       "latency per transfer, bandwidth cap shared fairly "
			       "between concurrent copy lanes). \"host\" is pinned DRAM "
			       "over PCIe, unshaped. Overlap %% = share of transfer-only "
			       "time hidden behind compute: 100 x (1 - (tiered - "
			       "compute only) / transfer only).\n\n",
			       run_id, source, gpu_str_of(g, "clock"));
	/* Cells come from free text (check details): keep the table intact. */

	g_string_append(s, "## Far tiers\n\n| tier | shaped | added latency ns | GB/s cap |\n|---|---|---|---|\n");
	a = arr_of(g, "far_tiers");
	for (guint i = 0; a && i < json_array_get_length(a); i++) {
		JsonObject *o = json_array_get_object_element(a, i);
		g_autofree char *bw = gbps_text(num_of(o, "gbps"));

		g_string_append_printf(s, "| %s | %s | %.0f | %s |\n", gpu_str_of(o, "name"),
				       json_object_get_boolean_member_with_default(o, "shaped", FALSE) ?
				       "yes" : "no", num_of(o, "latency_ns"), bw);
	}

	a = arr_of(g, "workloads");
	for (guint i = 0; a && i < json_array_get_length(a); i++) {
		JsonObject *w = json_array_get_object_element(a, i);

		g_string_append_printf(s, "\n## Workload %s\n\n", gpu_str_of(w, "name"));
		if (!strcmp(gpu_str_of(w, "name"), "bandwidth")) {
			static const char *const k[] = {
				"h2d_pageable_gbps", "h2d_pinned_gbps", "h2d_runtime_gbps",
				"d2h_pageable_gbps", "d2h_pinned_gbps", "d2h_runtime_gbps",
			};
			char *v[6];

			for (int x = 0; x < 6; x++)
				v[x] = fmt_num(num_of(w, k[x]), 1);
			g_string_append_printf(s, "%.0f MiB per direction, runtime path in %.0f MiB blocks.\n\n"
				"| direction | pageable cudaMemcpy GB/s | pinned cudaMemcpy GB/s | runtime copy lane GB/s |\n"
				"|---|---|---|---|\n"
				"| host to device | %s | %s | %s |\n"
				"| device to host | %s | %s | %s |\n",
				num_of(w, "bytes") / 1048576.0, num_of(w, "block_bytes") / 1048576.0,
				v[0], v[1], v[2], v[3], v[4], v[5]);
			for (int x = 0; x < 6; x++)
				g_free(v[x]);
			continue;
		}
		md_config(s, obj_of(w, "config"));
		md_far_summary(s, arr_of(w, "summary"));
		md_runs(s, arr_of(w, "runs"));
	}

	g_string_append(s, "\n## Targets (reported, not part of the verdict)\n\n"
			"| target | value | goal | met | detail |\n|---|---|---|---|---|\n");
	a = arr_of(g, "targets");
	for (guint i = 0; a && i < json_array_get_length(a); i++) {
		JsonObject *o = json_array_get_object_element(a, i);
		bool info = !strcmp(gpu_str_of(o, "cmp"), "info");
		g_autofree char *goal = info ? g_strdup("-") :
			g_strdup_printf("%s %g", gpu_str_of(o, "cmp"), num_of(o, "goal"));
		g_autofree char *name = md_esc(gpu_str_of(o, "name"));
		g_autofree char *detail = md_esc(gpu_str_of(o, "detail"));
		g_autofree char *val = fmt_num(num_of(o, "value"), 2);

		g_string_append_printf(s, "| %s | %s | %s | %s | %s |\n", name,
				       val, goal,
				       info ? "-" : json_object_get_boolean_member_with_default(o, "met", FALSE) ? "yes" : "no",
				       detail);
	}
	g_string_append(s, "\n## Checks\n\n| check | result | detail |\n|---|---|---|\n");
	a = arr_of(g, "checks");
	for (guint i = 0; a && i < json_array_get_length(a); i++) {
		JsonObject *o = json_array_get_object_element(a, i);
		g_autofree char *name = md_esc(gpu_str_of(o, "name"));
		g_autofree char *detail = md_esc(gpu_str_of(o, "detail"));

		g_string_append_printf(s, "| %s | %s | %s |\n", name,
				       json_object_get_boolean_member_with_default(o, "pass", FALSE) ?
				       "pass" : "FAIL", detail);
	}
	g_string_append(s, "\nTimeline of the traced tiered pass: [overlap.svg](overlap.svg). "
			"Raw output of cxlbed-gpu: gpu.json.\n");
	return g_string_free(s, FALSE);
}

/* ---- overlap.svg: one row per copy lane, compute and host stalls ---- */
static char *row_key(const char *kind, int lane)
{
	if (!strcmp(kind, "compute"))
		return g_strdup("compute (GPU)");
	if (!strcmp(kind, "stall"))
		return g_strdup("host waits");
	return g_strdup_printf("%s lane %d", kind, lane);
}

static const char *row_color(const char *key)
{
	if (g_str_has_prefix(key, "fetch"))
		return "#4e79a7";
	if (g_str_has_prefix(key, "writeback"))
		return "#f28e2b";
	if (g_str_has_prefix(key, "compute"))
		return "#59a14f";
	return "#e15759";
}

static int row_rank(const char *key)
{
	return g_str_has_prefix(key, "fetch") ? 0 : g_str_has_prefix(key, "writeback") ? 1 :
	       g_str_has_prefix(key, "compute") ? 2 : 3;
}

static gint row_cmp(gconstpointer a, gconstpointer b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	int d = row_rank(x) - row_rank(y);

	return d ? d : strcmp(x, y);
}

char *gpu_report_overlap_svg(JsonObject *g)
{
	JsonArray *ev = arr_of(obj_of(g, "trace"), "events");
	g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func(g_free);
	GString *s = g_string_new(NULL);
	g_autofree char *far = NULL;
	const int left = 130, width = 820, rh = 26, top = 40;
	double tmax = 0;
	guint n = ev ? json_array_get_length(ev) : 0;
	int height;

	for (guint i = 0; i < n; i++) {
		JsonArray *e = json_array_get_array_element(ev, i);
		g_autofree char *k = row_key(json_array_get_string_element(e, 0),
					     (int)json_array_get_int_element(e, 1));
		bool seen = false;

		for (guint r = 0; r < rows->len && !seen; r++)
			seen = !strcmp(rows->pdata[r], k);
		if (!seen)
			g_ptr_array_add(rows, g_strdup(k));
		tmax = MAX(tmax, json_array_get_double_element(e, 4));
	}
	g_ptr_array_sort(rows, row_cmp);
	height = top + (int)MAX(rows->len, 1) * rh + 40;
	g_string_append_printf(s, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
			       "height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">\n",
			       left + width + 20, height);
	far = svg_escape(gpu_str_of(g, "primary_far"));
	g_string_append_printf(s, "<text x=\"10\" y=\"20\" font-size=\"14\">Transfer / compute "
			       "overlap: tiered pass, far tier %s (host wall clock)</text>\n",
			       far);
	if (!n)
		g_string_append_printf(s, "<text x=\"10\" y=\"%d\">no trace events in this run</text>\n",
				       top + 16);
	for (guint r = 0; r < rows->len; r++)
		g_string_append_printf(s, "<text x=\"10\" y=\"%d\">%s</text>\n",
				       top + (int)r * rh + 17, (char *)rows->pdata[r]);
	for (guint i = 0; i < n && tmax > 0; i++) {
		JsonArray *e = json_array_get_array_element(ev, i);
		g_autofree char *k = row_key(json_array_get_string_element(e, 0),
					     (int)json_array_get_int_element(e, 1));
		double t0 = json_array_get_double_element(e, 3);
		double t1 = json_array_get_double_element(e, 4);
		guint r = 0;

		while (r < rows->len && strcmp(rows->pdata[r], k))
			r++;
		g_string_append_printf(s, "<rect x=\"%.1f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
				       "fill=\"%s\"><title>%s block %" G_GINT64_FORMAT
				       ": %.1f-%.1f us</title></rect>\n",
				       left + t0 / tmax * width, top + (int)r * rh + 4,
				       MAX((t1 - t0) / tmax * width, 0.5), rh - 8,
				       row_color(k), k, json_array_get_int_element(e, 2), t0, t1);
	}
	for (int t = 0; t <= 4 && tmax > 0; t++) {
		int x = left + width * t / 4;

		g_string_append_printf(s, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
				       "stroke=\"#999\"/><text x=\"%d\" y=\"%d\" "
				       "text-anchor=\"middle\">%.2f ms</text>\n",
				       x, top - 4, x, height - 30, x, height - 14,
				       tmax * t / 4 / 1000.0);
	}
	g_string_append(s, "</svg>\n");
	return g_string_free(s, FALSE);
}

/* ---- stdout table ---- */
void gpu_report_print(JsonObject *g, const char *dir)
{
	JsonArray *a = arr_of(g, "workloads"), *c = arr_of(g, "checks");

	printf("\ngpu run: %s on %s, verdict %s\n", gpu_str_of(g, "workload"),
	       gpu_str_of(obj_of(g, "device"), "name"), gpu_str_of(g, "verdict"));
	printf("%-10s %-8s %12s %12s %10s %8s\n", "workload", "far", "tiered ms",
	       "demand ms", "vs bound", "overlap");
	for (guint i = 0; a && i < json_array_get_length(a); i++) {
		JsonObject *w = json_array_get_object_element(a, i);
		JsonArray *sum = arr_of(w, "summary");

		for (guint k = 0; sum && k < json_array_get_length(sum); k++) {
			JsonObject *o = json_array_get_object_element(sum, k);

			printf("%-10s %-8s %12.2f %12.2f %9.2fx %7.0f%%\n", gpu_str_of(w, "name"),
			       gpu_str_of(o, "far"), num_of(o, "tiered_ms"), num_of(o, "demand_ms"),
			       num_of(o, "tiered_vs_bound"), num_of(o, "overlap_pct"));
		}
	}
	for (guint i = 0; c && i < json_array_get_length(c); i++) {
		JsonObject *o = json_array_get_object_element(c, i);

		if (!json_object_get_boolean_member_with_default(o, "pass", FALSE))
			printf("FAIL %s: %s\n", gpu_str_of(o, "name"), gpu_str_of(o, "detail"));
	}
	printf("results: %s\n", dir);
}

