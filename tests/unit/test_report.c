/* SPDX-License-Identifier: MIT */
/*
 * Reports without QEMU: results read back from the committed reference
 * (summary.json, table.json), the plot's legend layout and series styles,
 * the topology tree, and the report.html pages built from them.
 */
#include "tap.h"
#include "results/html.h"
#include "results/result_read.h"
#include "results/svg.h"
#include "results/topo_tree.h"

static char *ref(const char *rel)
{
	return g_build_filename(SRCDIR, "results/reference/table", rel, NULL);
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* summary.json -> run_result -> JSON again: the same figures and checks. */
static void test_result_roundtrip(void)
{
	g_autofree char *path = ref("shared-pool/summary.json");
	g_autoptr(GError) err = NULL;
	g_autoptr(run_result) r = result_load(path, &err);
	g_autoptr(JsonNode) again = NULL;
	JsonObject *o;

	if (!ok(r != NULL, "reference summary.json reads back")) {
		diag("%s", err->message);
		return;
	}
	is_int(r->hosts->len, 2, "two hosts");
	again = result_to_json(r);
	o = json_node_get_object(again);
	is_str(json_object_get_string_member(o, "verdict"), "pass", "verdict pass again");
	{
		JsonObject *h1 = json_array_get_object_element(json_object_get_array_member(o, "hosts"), 1);
		JsonObject *n1 = json_array_get_object_element(json_object_get_array_member(h1, "nodes"), 1);

		is_str(json_object_get_string_member(n1, "dax"), "dax0.0", "dax view read back as dax");
		ok(json_object_get_double_member(n1, "latency_ns") > 200 &&
		   json_object_get_double_member(n1, "latency_ns") < 240, "its latency read back");
	}
	ok(r->checks->len > 10 && r->workloads->len > 10, "checks and workloads read back");
}

static void test_table_roundtrip(void)
{
	g_autofree char *path = ref("table.json");
	g_autoptr(GError) err = NULL;
	g_autoptr(table) t = table_load(path, &err);
	g_autofree char *md = NULL;

	if (!ok(t != NULL, "reference table.json reads back")) {
		diag("%s", err->message);
		return;
	}
	is_int(t->rows->len, 14, "14 rows");
	is_int(t->curves->len, 14, "14 curves");
	is_int(t->runs->len, 6, "6 runs");
	md = table_to_markdown(t);
	{
		/* The figure comes from the reference run, so the expected row is
		 * built from the read-back row: the check is that markdown keeps it. */
		const struct table_row *cxl = NULL;
		g_autofree char *want = NULL;

		for (guint i = 0; i < t->rows->len && !cxl; i++) {
			const struct table_row *row = g_ptr_array_index(t->rows, i);

			if (!strcmp(row->topology, "default") && !strcmp(row->host, "h0") &&
			    row->node == 1)
				cxl = row;
		}
		if (ok(cxl != NULL, "reference has the default h0 node 1 row")) {
			ok(cxl->latency_ns > 150 && cxl->latency_ns < 300,
			   "its idle latency is a CXL one (150-300 ns)");
			want = g_strdup_printf("| default | h0 | 1 | cxl | 1 switch, x4 interleave | %.1f |",
					       cxl->latency_ns);
		}
		ok(want && strstr(md, want) != NULL,
		   "table.md from the read-back table has the default CXL row");
	}
}

/* Legend under the plot, inside the document; each series its own style. */
static void test_plot_legend(void)
{
	static const char *const long_label =
		"a very long series label that is wider than the whole plot area would be "
		"if the document kept its usual width of nine hundred pixels";
	double x[] = { 0, 1 }, y[] = { 1, 2 };
	struct svg_series s[14];
	struct svg_plot p = { .title = "t", .series = s, .nseries = 14 };
	g_autofree char *doc = NULL;
	g_autoptr(GHashTable) styles = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	int w = 0, h = 0;
	const char *at;

	for (int i = 0; i < 14; i++)
		s[i] = (struct svg_series){ i == 13 ? long_label : "series", x, y, 2 };
	doc = svg_line_plot(&p);
	sscanf(strstr(doc, "<svg"), "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"cxlbed-plot\" "
	       "width=\"%d\" height=\"%d\"", &w, &h);
	ok(w >= svg_text_width(long_label, 12) + 80, "the document widens for a long label (%d px)", w);
	ok(h > 560, "and grows to hold the legend rows (%d px)", h);
	is_int(count(doc, "<g class=\"legend\""), 1, "one legend group");
	/* Every legend swatch: colour + dash + the marker element after it. */
	at = strstr(doc, "<g class=\"legend\"");
	for (const char *l = at; l && (l = strstr(l, "<line ")); l++) {
		const char *end = strstr(l, "/>");
		const char *marker = end ? end + 3 : NULL;
		g_autofree char *line = g_strndup(l, end - l);
		g_autofree char *stroke = g_strndup(strstr(line, "stroke=\""), 17);
		g_autofree char *dash = strstr(line, "dasharray") ?
			g_strndup(strstr(line, "dasharray"), 16) : g_strdup("solid");
		g_autofree char *mk = marker ? g_strndup(marker, strcspn(marker, " ")) : g_strdup("");
		g_autofree char *fill = marker && strstr(marker, "fill=\"none\"") &&
			strstr(marker, "fill=\"none\"") < strstr(marker, "/>") ? g_strdup("open") : g_strdup("");

		g_hash_table_add(styles, g_strconcat(stroke, dash, mk, fill, NULL));
	}
	is_int(g_hash_table_size(styles), 14, "14 series, 14 distinct colour/dash/marker styles");
	ok(svg_text_width("mmmm", 12) > svg_text_width("iiii", 12) &&
	   svg_text_width("abc", 12) >= 3 * 0.6 * 12, "text width estimate: wide glyphs wider, "
	   "never under 0.6 em for lowercase");
	ok(g_str_has_prefix(svg_element(doc), "<svg"), "svg_element drops the XML declaration");
}

/* Events a fraction of a pixel apart (kill, detection, served again):
 * their labels get slots a label's width apart, not one over another. */
static void test_mark_labels(void)
{
	double x[] = { 0, 200 }, y[] = { 1, 2 };
	struct svg_series se = { "s", x, y, 2 };
	struct svg_vmark m[] = { { 40.0, "injected", NULL }, { 40.3, "detected", NULL },
				 { 40.4, "served again", NULL }, { 199.9, "at the edge", NULL } };
	g_autofree char *doc = svg_line_plot(&(struct svg_plot){
		.title = "t", .series = &se, .nseries = 1, .marks = m, .nmarks = 4 });
	double at[4];
	int n = 0;

	for (const char *p = doc; n < 4 && (p = strstr(p, "class=\"mark-label\"")); p++)
		if (sscanf(strstr(p, "rotate(-90 "), "rotate(-90 %lf", &at[n]) == 1)
			n++;
	is_int(n, 4, "four mark labels");
	ok(n == 4 && at[1] - at[0] >= 13 && at[2] - at[1] >= 13,
	   "labels of close marks a label's width apart (%.1f %.1f %.1f)", at[0], at[1], at[2]);
	ok(n == 4 && at[3] <= 900 - 30, "a label at the right edge stays inside the plot (%.1f)",
	   at[3]);
}

static void test_tree(void)
{
	g_autofree char *path = g_build_filename(SRCDIR, "topologies/shared-pool.topo", NULL);
	g_autoptr(GError) err = NULL;
	g_autoptr(cb_topology) t = topology_load(path, &err);
	g_autofree char *svg = t ? topo_tree_svg(t) : NULL;

	if (!ok(svg != NULL, "shared-pool.topo drawn")) {
		diag("%s", err ? err->message : "?");
		return;
	}
	is_int(count(svg, "class=\"tree-host\""), 2, "two hosts");
	is_int(count(svg, "class=\"tree-switch\""), 2, "two switches");
	is_int(count(svg, "class=\"tree-device\""), 2, "two devices");
	is_int(count(svg, "class=\"tree-pool\""), 1, "one pool");
	ok(strstr(svg, "path 220.0 ns, 20.0 GB/s") != NULL,
	   "a device carries its path's latency and narrowest bandwidth");
	is_int(count(svg, "stroke-dasharray=\"5 3\""), 2, "the pool joined to both devices");
}

static void test_pages(void)
{
	g_autofree char *tpath = ref("table.json");
	g_autofree char *rpath = ref("default/summary.json");
	g_autofree char *topo_path = g_build_filename(SRCDIR, "topologies/default.topo", NULL);
	g_autoptr(table) t = table_load(tpath, NULL);
	g_autoptr(run_result) r = result_load(rpath, NULL);
	g_autoptr(cb_topology) topo = topology_load(topo_path, NULL);
	const struct cb_topology *topos[] = { topo };
	g_autofree char *tpage = t ? html_table_report(t, topos, 1) : NULL;
	g_autofree char *rpage = r ? html_run_report(r, topo) : NULL;

	ok(tpage && g_str_has_prefix(tpage, "<!DOCTYPE html>") &&
	   count(tpage, "class=\"cxlbed-plot\"") == 3 && count(tpage, "class=\"cxlbed-tree\"") == 1,
	   "table page: doctype, the loaded-latency plot (a panel per kind of path: local, "
	   "cxl, dax), the tree");
	ok(tpage && count(tpage, "class=\"end-label\"") == 14,
	   "table page: each of the 14 curves labelled at its end");
	ok(tpage && !strstr(tpage, "<?xml"),
	   "table page: plots inline without their XML declaration");
	ok(tpage && !strstr(tpage, "src=") && !strstr(tpage, "<link"),
	   "table page fetches nothing (no src=, no <link>)");
	ok(rpage && strstr(rpage, "verdict pass") && strstr(rpage, "<h2>Checks</h2>") &&
	   strstr(rpage, "<h2>Figures</h2>") && strstr(rpage, "class=\"cxlbed-tree\""),
	   "run page: verdict, checks, figures, tree");
	ok(rpage && strstr(rpage, "hb0/rp0/sw0/{mem0,mem1,mem2,mem3}"),
	   "run page names the CXL path");
}

int main(void)
{
	plan(35);
	test_result_roundtrip();
	test_table_roundtrip();
	test_plot_legend();
	test_mark_labels();
	test_tree();
	test_pages();
	return tap_failed ? 1 : 0;
}
