/* SPDX-License-Identifier: MIT */
/* `cxlbed table` without QEMU: rows, ratios, curves, table.json, the SVG. */
#include <math.h>

#include "tap.h"
#include "results/svg.h"
#include "run/scenario.h"
#include "results/table_paths.h"

static JsonObject *parse(const char *text)
{
	g_autoptr(JsonParser) p = json_parser_new();

	json_parser_load_from_data(p, text, -1, NULL);
	return json_object_ref(json_node_get_object(json_parser_get_root(p)));
}

static void node(struct res_host *h, int n, const char *kind, const char *path,
		 const char *region)
{
	struct res_node *rn = result_host_add_node(h, n);

	rn->kind = g_strdup(kind);
	rn->path = g_strdup(path);
	rn->region = g_strdup(region);
	/* What the runner leaves after a loaded run: must not be used. */
	rn->latency_ns = 9999;
	g_free(rn->clock);
	rn->clock = g_strdup("modeled");
}

static void wl(struct run_result *r, const char *host, const char *name,
	       const char *program, int n, const char *output)
{
	struct res_workload *w = result_add_workload(r, host, name, program, n);

	w->ok = true;
	w->output = parse(output);
}

static void chase(struct run_result *r, const char *host, int n, double ns)
{
	g_autofree char *o = g_strdup_printf("{\"ns_per_access\":1234,\"clock\":\"guest\","
					     "\"modeled\":{\"ns_per_access\":%g}}", ns);

	wl(r, host, "chase", "cxlbed-chase", n, o);
}

static void stream(struct run_result *r, const char *host, int n, double rd, double wr)
{
	g_autofree char *o = g_strdup_printf("{\"read_gbps\":0.1,\"modeled\":{\"read_gbps\":%g,"
					     "\"write_gbps\":%g,\"mix_gbps\":5}}", rd, wr);

	wl(r, host, "stream", "cxlbed-stream", n, o);
}

/* What the timing merge leaves for cxlbed-loaded (timing_run.c). */
static void loaded(struct run_result *r, const char *host, int n, int threads,
		   double ns, double gbps)
{
	g_autofree char *o = g_strdup_printf("{\"load_threads\":%d,\"chase_ns_per_access\":9999,"
					     "\"load_gbps\":0.01,\"modeled\":{\"loaded_ns_per_access\":%g,"
					     "\"load_gbps\":%g}}", threads, ns, gbps);

	wl(r, host, "loaded", "cxlbed-loaded", n, o);
}

/* A workload on a devdax region's view. */
static void on_dax(struct run_result *r, const char *host, const char *region,
		   const char *program, const char *output)
{
	struct res_workload *w = result_add_workload(r, host, program + 7, program, -1);

	w->region = g_strdup(region);
	w->ok = true;
	w->output = parse(output);
}

/* Two hosts; h0's CXL node listed before its local one. */
static struct run_result *synthetic(void)
{
	struct run_result *r = result_new();
	struct res_host *h0, *h1;

	r->run_id = g_strdup("20261122-000000-two");
	r->out_dir = g_strdup("/tmp/x/two");
	r->topology = g_strdup("topologies/two.topo");
	r->topology_name = g_strdup("two");
	r->timing_model = true;
	result_check(r, "boot:h0", true, "ok");
	h0 = result_add_host(r, "h0");
	node(h0, 1, "cxl", "hb0/rp0/sw0/{mem0}", "r0");
	node(h0, 0, "local", "local", NULL);
	h1 = result_add_host(r, "h1");
	node(h1, 0, "local", "local", NULL);
	result_host_add_dax(h1, "r2", "dax0.0")->path = g_strdup("hb1/rp2/mem2");
	node(h1, 1, "cxl", "hb1/rp1/mem1", "r1");

	chase(r, "h0", 1, 250);
	chase(r, "h0", 0, 100);
	chase(r, "h1", 0, 125);
	chase(r, "h1", 1, 250);
	stream(r, "h0", 0, 60, 40);
	stream(r, "h0", 1, 20, 10);
	/* every vCPU streaming: the sustained figure; h0 node 0 has one thread */
	wl(r, "h0", "stream-x2", "cxlbed-stream", 1,
	   "{\"threads\":2,\"modeled\":{\"read_gbps\":35}}");
	/* h0 node 1: a full curve, given out of order; h1 node 1: loaded only. */
	loaded(r, "h0", 1, 1, 400, 20);
	loaded(r, "h0", 1, 0, 255, 0);
	loaded(r, "h1", 1, 1, 300, 8);
	/* h1's devdax region: its own figures, never node 1's or node -1's */
	on_dax(r, "h1", "r2", "cxlbed-chase",
	       "{\"modeled\":{\"ns_per_access\":330},\"chain\":\"computed\"}");
	on_dax(r, "h1", "r2", "cxlbed-stream",
	       "{\"threads\":1,\"modeled\":{\"read_gbps\":7,\"write_gbps\":6}}");
	loaded(r, "h1", -1, 0, 777, 0);	/* nodes = none: no row's */
	return r;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static const struct table_row *row(const struct table *t, guint i)
{
	return g_ptr_array_index(t->rows, i);
}

static void test_rows(const struct table *t)
{
	const struct table_curve *c;

	is_int(t->rows->len, 5, "one row per (host, node with memory or devdax region)");
	ok(!strcmp(row(t, 0)->host, "h0") && !strcmp(row(t, 0)->kind, "local") &&
	   !strcmp(row(t, 1)->kind, "cxl"), "h0: local row first, then CXL");
	ok(!strcmp(row(t, 2)->host, "h1") && !strcmp(row(t, 2)->kind, "local"),
	   "h1: local row first");
	ok(row(t, 0)->latency_ns == 100 && row(t, 1)->latency_ns == 250,
	   "latency from the chase's modeled figure, not the node's");
	ok(row(t, 1)->latency_ratio == 2.5, "h0 CXL ratio against h0's local (%.2f)",
	   row(t, 1)->latency_ratio);
	ok(row(t, 3)->latency_ratio == 2.0, "h1 CXL ratio against h1's own local (%.2f)",
	   row(t, 3)->latency_ratio);
	ok(row(t, 0)->latency_ratio == 1.0, "local ratio is 1");
	ok(row(t, 1)->read_gbps == 20 && row(t, 1)->write_gbps == 10,
	   "read/write GB/s from the stream's modeled figures");
	ok(row(t, 3)->read_gbps < 0, "no stream: bandwidth not measured (< 0)");
	is_str(row(t, 1)->clock, "modeled", "clock says modeled");
	is_str(row(t, 1)->run_id, "20261122-000000-two", "row names its run");

	ok(row(t, 1)->sustained_read_gbps == 35 && row(t, 0)->sustained_read_gbps == 60,
	   "all-vCPU read: the stream with the most threads, else the one thread's");
	ok(!strcmp(row(t, 4)->kind, "dax") && !strcmp(row(t, 4)->dax, "dax0.0") &&
	   row(t, 4)->node == -1 && !strcmp(row(t, 4)->region, "r2"),
	   "h1's devdax region: a row after its nodes, named by its dax device");
	ok(row(t, 4)->latency_ns == 330 && row(t, 4)->read_gbps == 7 &&
	   row(t, 4)->write_gbps == 6 && row(t, 4)->latency_ratio == 330.0 / 125,
	   "devdax row: figures from the workloads run on its view, ratio to h1 local");
	ok(row(t, 1)->cores_read_gbps < 0 && !strcmp(table_row_bound(row(t, 1)), "-"),
	   "no topology: no Little's-law figure, no path limit, bound '-'");
	{
		struct table_row *r1 = (struct table_row *)row(t, 1);

		/* Little's law: what the cores draw, not the measured figure */
		r1->path_read_gbps = 36;
		r1->cores_read_gbps = 2 * 10 * 64 / 250.0;
		is_str(table_row_bound(r1), "cores",
		       "5.1 GB/s by Little's law (2 vCPUs x 10 x 64 B / 250 ns) "
		       "< 36: bound by the cores, though 35 were measured");
		r1->path_read_gbps = 20;
		r1->cores_read_gbps = 2 * 48 * 64 / 250.0;
		is_str(table_row_bound(r1), "path",
		       "48 misses in flight each: 24.6 GB/s >= a 20 GB/s path: "
		       "bound by the path");
		r1->path_read_gbps = -1;
		r1->cores_read_gbps = -1;
	}

	is_int(t->curves->len, 5, "one curve per row");
	c = g_ptr_array_index(t->curves, 1);
	ok(c->points->len == 2 &&
	   g_array_index(c->points, struct table_point, 0).gbps == 0 &&
	   g_array_index(c->points, struct table_point, 0).latency_ns == 255 &&
	   g_array_index(c->points, struct table_point, 1).gbps == 20 &&
	   g_array_index(c->points, struct table_point, 1).latency_ns == 400,
	   "curve: modeled loaded points by bandwidth (loaded_ns_per_access, load_gbps)");
	c = g_ptr_array_index(t->curves, 4);
	ok(c->points->len == 1 && c->dax &&
	   g_array_index(c->points, struct table_point, 0).latency_ns == 330,
	   "devdax curve: its idle chase only (the loaded run had no region)");
	c = g_ptr_array_index(t->curves, 3);
	ok(c->points->len == 2 &&
	   g_array_index(c->points, struct table_point, 0).load_threads == -1 &&
	   g_array_index(c->points, struct table_point, 0).latency_ns == 250,
	   "no unloaded run: the idle chase is the x = 0 point");
}

static void test_json(const struct table *t)
{
	g_autoptr(JsonNode) root = table_to_json(t);
	JsonObject *o = json_node_get_object(root);
	JsonObject *r0 = json_array_get_object_element(json_object_get_array_member(o, "rows"), 0);
	JsonObject *c1 = json_array_get_object_element(json_object_get_array_member(o, "curves"), 1);
	const char *keys[] = { "topology", "host", "node", "kind", "path", "latency_ns",
			       "read_gbps", "write_gbps", "latency_ratio", "clock", NULL };
	bool all = true;

	is_str(json_object_get_string_member(o, "schema"), TABLE_SCHEMA, "schema " TABLE_SCHEMA);
	for (const char **k = keys; *k; k++)
		if (!json_object_has_member(r0, *k)) {
			diag("row lacks %s", *k);
			all = false;
		}
	ok(all, "every row has topology, host, node, kind, path, figures, ratio, clock");
	ok(json_array_get_length(json_object_get_array_member(c1, "points")) == 2 &&
	   json_object_has_member(json_array_get_object_element(
		   json_object_get_array_member(c1, "points"), 0), "latency_ns"),
	   "curves[] carry points with gbps and latency_ns");
	ok(json_node_is_null(json_object_get_member(
		   json_array_get_object_element(json_object_get_array_member(o, "rows"), 3),
		   "read_gbps")), "a figure not measured is null");
	{
		JsonObject *r4 = json_array_get_object_element(
			json_object_get_array_member(o, "rows"), 4);

		ok(json_node_is_null(json_object_get_member(r4, "node")) &&
		   !g_strcmp0(json_object_get_string_member(r4, "dax"), "dax0.0") &&
		   !g_strcmp0(json_object_get_string_member(r4, "region"), "r2") &&
		   json_object_has_member(r4, "sustained_read_gbps") &&
		   json_object_has_member(r4, "path_read_gbps") &&
		   json_object_has_member(r4, "bound"),
		   "devdax row in JSON: node null, dax, region, sustained/path/bound");
	}
}

static void test_svg(const struct table *t)
{
	g_autofree char *svg = table_curves_svg(t);
	struct svg_series s = { "a <b> & \"c\"", (double[]){ 0, 1 }, (double[]){ 1, 2 }, 2 };
	struct svg_plot p = { .title = "t", .series = &s, .nseries = 1 };
	g_autofree char *one = svg_line_plot(&p);

	ok(g_str_has_prefix(svg, "<?xml") && strstr(svg, "<svg ") &&
	   g_str_has_suffix(svg, "</svg>\n"), "SVG: XML declaration, one svg element");
	is_int(count(svg, "<polyline"), t->curves->len, "one polyline per curve");
	is_int(count(svg, "<g"), count(svg, "</g>"), "groups balanced");
	is_int(count(svg, "<text"), count(svg, "</text>"), "text elements balanced");
	ok(strstr(svg, "aggregate streamer bandwidth (GB/s)") &&
	   strstr(svg, "chaser latency (ns per access)"), "axis labels");
	ok(strstr(svg, "two h0 node 1") != NULL, "legend names each path");
	ok(strstr(one, "a &lt;b&gt; &amp; &quot;c&quot;") && !strstr(one, "<b>"),
	   "labels escaped");
	ok(svg_tick_step(430, 6) == 50 && svg_tick_step(1, 5) == 0.2,
	   "tick steps are 1, 2 or 5 x 10^k");
}

static void test_describe(void)
{
	struct { const char *file, *region, *want; } cases[] = {
		{ "direct.topo", "r0", "direct" },
		{ "default.topo", "r0", "1 switch, x4 interleave" },
		{ "shared-pool.topo", "r1", "1 switch, pool p0 shared by h0 h1" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *path = g_build_filename(SRCDIR, "topologies",
							 cases[i].file, NULL);
		g_autoptr(GError) err = NULL;
		g_autoptr(cb_topology) t = topology_load(path, &err);
		g_autofree char *got = t ? table_describe_region(t, cases[i].region) : NULL;

		is_str(got, cases[i].want, "%s %s: %s", cases[i].file, cases[i].region,
		       cases[i].want);
	}
}

/* The configured path limit: narrowest resource x ways / devices crossing it. */
static void test_path_limit(void)
{
	struct { const char *file, *region; double want; const char *why; } cases[] = {
		{ "direct.topo", "r0", 20, "one device: its media (20)" },
		{ "interleave2-rp.topo", "r0", 40, "two root ports: 2 x media" },
		{ "default.topo", "r0", 64 * 128 / 130.0,
		  "x4 behind one switch: the switch's x16 32 GT/s uplink" },
		{ "contention.topo", "r0", 1.6, "pool media 1.6" },
		{ "contention-qos.topo", "r0", 0.5, "QoS cap 0.5 on h0's link" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *path = g_build_filename(SRCDIR, "topologies",
							 cases[i].file, NULL);
		g_autoptr(cb_topology) t = topology_load(path, NULL);
		const struct cb_region *reg = t ? topology_find_region(t, cases[i].region) : NULL;
		double got = reg ? topology_region_read_gbps(reg) : -2;

		ok(got > cases[i].want - 1e-3 && got < cases[i].want + 1e-3,
		   "%s %s: path read %.4f GB/s, %s", cases[i].file, cases[i].region,
		   got, cases[i].why);
	}
}

/* bound: Little's law from the topology's vCPUs and misses in flight. */
static void test_cores(void)
{
	struct { const char *file; double ns, one, want; const char *bound; } cases[] = {
		/* Little's law: 4 x 48 x 64 B / 290 ns */
		{ "fpga-loaded.topo", 290, -1, 4 * 48 * 64 / 290.0, "path" },
		/* one core streams 6.7 GB/s (its instructions): 4 x 6.7 > 16 */
		{ "fpga-loaded.topo", 290, 6.7, 4 * 6.7, "path" },
		{ "default.topo", 220, -1, 2 * 10 * 64 / 220.0, "cores" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *path = g_build_filename(SRCDIR, "topologies",
							 cases[i].file, NULL);
		g_autoptr(cb_topology) topo = topology_load(path, NULL);
		const struct cb_topology *topos[] = { topo };
		g_autoptr(run_result) r = result_new();
		struct run_result *runs[] = { r };
		g_autoptr(table) t = NULL;
		const struct table_row *cxl;

		r->run_id = g_strdup("20261122-000000-x");
		r->topology_name = g_strdup(cases[i].file);
		r->timing_model = true;
		node(result_add_host(r, "h0"), 1, "cxl", "hb0/rp0/mem0", "r0");
		chase(r, "h0", 1, cases[i].ns);
		if (cases[i].one > 0)
			stream(r, "h0", 1, cases[i].one, cases[i].one);
		t = table_build(runs, topos, 1);
		cxl = t->rows->len ? g_ptr_array_index(t->rows, 0) : NULL;
		ok(cxl && fabs(cxl->cores_read_gbps - cases[i].want) < 1e-6 &&
		   !strcmp(table_row_bound(cxl), cases[i].bound),
		   "%s: the vCPUs draw %.1f GB/s at %.0f ns (Little's law, or one core's stream), path "
		   "%.1f: bound %s", cases[i].file, cxl ? cxl->cores_read_gbps : -1,
		   cases[i].ns, cxl ? cxl->path_read_gbps : -1, cases[i].bound);
	}
}

/* `--nodes cxl`: a node no workload was started on has no row (and the
 * CXL row no local one to compare with). */
static void test_unmeasured_node(void)
{
	g_autoptr(run_result) r = result_new();
	struct res_host *h = result_add_host(r, "h0");
	struct run_result *runs[] = { r };
	g_autoptr(table) t = NULL;

	r->run_id = g_strdup("cxl-only");
	r->topology_name = g_strdup("cxl-only");
	node(h, 0, "local", "local", NULL);
	node(h, 1, "cxl", "hb0/rp0/mem0", "r0");
	chase(r, "h0", 1, 250);
	t = table_build(runs, NULL, 1);
	ok(t->rows->len == 1 && !strcmp(row(t, 0)->kind, "cxl") && row(t, 0)->latency_ratio < 0,
	   "a node without workloads: no row; the CXL row has no local ratio (%u rows)",
	   t->rows->len);
}

/* The table's scenario: timing on; a streamer only where a vCPU is free for it. */
static void test_scenario(void)
{
	const char *files[] = { "direct.topo", "default.topo" };

	for (int i = 0; i < 2; i++) {
		g_autofree char *path = g_build_filename(SRCDIR, "topologies", files[i], NULL);
		g_autoptr(cb_topology) t = topology_load(path, NULL);
		g_autoptr(scenario) s = t ? scenario_table_for(t, false) : NULL;
		g_autoptr(GString) ids = g_string_new(NULL);

		for (guint j = 0; s && j < s->workloads->len; j++)
			g_string_append_printf(ids, "%s%s", j ? " " : "",
					       ((struct scn_workload *)g_ptr_array_index(s->workloads, j))->id);
		is_str(ids->str, i ? "chase stream stream-x2 loaded0 loaded1" :
		       "chase stream loaded0",
		       "%s: table workloads (%s)%s", files[i], ids->str,
		       i ? "" : ", no streamer on a 1-vCPU host");
		ok(s && s->timing, "%s: timing model on", files[i]);
		ok(s && ((struct scn_workload *)g_ptr_array_index(s->workloads, 0))->per_dax &&
		   ((struct scn_workload *)g_ptr_array_index(s->workloads, 0))->per_node &&
		   !((struct scn_workload *)g_ptr_array_index(s->workloads, 0))->cxl_nodes_only,
		   "%s: every table workload runs on every node and devdax region", files[i]);
	}
	{
		g_autofree char *path = g_build_filename(SRCDIR, "topologies", "default.topo", NULL);
		g_autoptr(cb_topology) t = topology_load(path, NULL);
		g_autoptr(scenario) s = t ? scenario_table_for(t, true) : NULL;
		guint cxl = 0;

		for (guint j = 0; s && j < s->workloads->len; j++) {
			struct scn_workload *w = g_ptr_array_index(s->workloads, j);

			cxl += w->per_node && w->per_dax && w->cxl_nodes_only;
		}
		ok(s && s->workloads->len == 5 && cxl == 5,
		   "--nodes cxl: the same 5 workloads, each on the CXL nodes only (%u)", cxl);
	}
}

int main(void)
{
	g_autoptr(run_result) r = synthetic();
	struct run_result *runs[] = { r };
	g_autoptr(table) t = table_build(runs, NULL, 1);
	g_autofree char *md = NULL;

	plan(54);
	t->run_id = g_strdup("table-test");
	test_rows(t);
	test_json(t);
	test_svg(t);
	md = table_to_markdown(t);
	ok(strstr(md, "| two | h0 | 1 | cxl |") && strstr(md, "2.50x") &&
	   strstr(md, "modeled virtual time"), "table.md: rows, ratio, how obtained");
	test_describe();
	test_path_limit();
	test_cores();
	test_scenario();
	test_unmeasured_node();
	return tap_failed ? 1 : 0;
}
