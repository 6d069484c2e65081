/* SPDX-License-Identifier: MIT */
/* Rows and curves of `cxlbed table` from run results (see table_paths.h). */
#include "results/table_paths.h"
#include "results/escape.h"
#include "results/figures.h"
#include "common/json_write.h"
#include "results/svg.h"

#include <string.h>

#define CHASE	"cxlbed-chase"
#define STREAM	"cxlbed-stream"
#define LOADED	"cxlbed-loaded"

static void row_free(gpointer p)
{
	struct table_row *r = p;

	g_free(r->topology);
	g_free(r->run_id);
	g_free(r->host);
	g_free(r->dax);
	g_free(r->region);
	g_free(r->kind);
	g_free(r->path);
	g_free(r->via);
	g_free(r->clock);
	g_free(r);
}

static void curve_free(gpointer p)
{
	struct table_curve *c = p;

	g_free(c->label);
	g_free(c->topology);
	g_free(c->host);
	g_free(c->dax);
	g_array_unref(c->points);
	g_free(c);
}

static void run_free(gpointer p)
{
	struct table_run *r = p;

	g_free(r->topology);
	g_free(r->run_id);
	g_free(r->out_dir);
	g_free(r->kernel);
	g_free(r);
}

void table_free(struct table *t)
{
	if (!t)
		return;
	g_free(t->run_id);
	g_ptr_array_unref(t->runs);
	g_ptr_array_unref(t->rows);
	g_ptr_array_unref(t->curves);
	g_free(t);
}

/* Was workload @w started at @row's place: its node, or its devdax region? */
static bool tried_at(const struct res_workload *w, const struct table_row *row)
{
	if (g_strcmp0(w->host, row->host))
		return false;
	if (row->dax)
		return w->region && !g_strcmp0(w->region, row->region);
	return !w->region && w->node == row->node;
}

/* ... and did it succeed there, with output? */
static bool ran_at(const struct res_workload *w, const struct table_row *row)
{
	return w->ok && w->output && tried_at(w, row);
}

/* A place no workload was started at (`cxlbed table --nodes cxl`: the
 * local nodes) has no row; one whose workloads failed keeps its row. */
static bool anything_tried_at(const struct run_result *r, const struct table_row *row)
{
	for (guint i = 0; i < r->workloads->len; i++)
		if (tried_at(g_ptr_array_index(r->workloads, i), row))
			return true;
	return false;
}

static const struct res_workload *find_workload(const struct run_result *r,
						const struct table_row *row,
						const char *program)
{
	for (guint i = 0; i < r->workloads->len; i++) {
		const struct res_workload *w = g_ptr_array_index(r->workloads, i);

		if (ran_at(w, row) && !g_strcmp0(w->program, program))
			return w;
	}
	return NULL;
}

/* The read bandwidth of the stream with the most threads at @row. */
static double sustained_read(const struct run_result *r,
			     const struct table_row *row, struct fig_clocks *c)
{
	gint64 most = 0;
	double gbps = -1;

	for (guint i = 0; i < r->workloads->len; i++) {
		const struct res_workload *w = g_ptr_array_index(r->workloads, i);
		gint64 threads;
		double v;

		if (!ran_at(w, row) || g_strcmp0(w->program, STREAM))
			continue;
		threads = json_object_get_int_member_with_default(w->output, "threads", 1);
		if (threads > most && (v = fig_of(w->output, "read_gbps", c)) >= 0) {
			most = threads;
			gbps = v;
		}
	}
	return gbps;
}

char *table_describe_region(const struct cb_topology *t, const char *region)
{
	const struct cb_region *reg = t && region ? topology_find_region(t, region) : NULL;
	g_autoptr(GString) s = NULL;
	const struct cb_device *d;
	const struct cb_pool *pool = NULL;
	int levels = 0;

	if (!reg)
		return NULL;
	cb_foreach(reg->devices, const struct cb_device, d) {
		levels = MAX(levels, topology_device_switch_levels(d));
		if (d->pool)
			pool = d->pool;
	}
	s = g_string_new(NULL);
	if (!levels)
		g_string_append(s, "direct");
	else
		g_string_append_printf(s, "%d switch%s", levels, levels > 1 ? "es" : "");
	if (reg->devices->len > 1)
		g_string_append_printf(s, ", x%u interleave", reg->devices->len);
	if (reg->window && reg->window->bridges->len > 1)
		g_string_append_printf(s, " across %u host bridges",
				       reg->window->bridges->len);
	if (pool && pool->shared && pool->devices->len > 1) {
		g_string_append_printf(s, ", pool %s shared by", pool->id);
		cb_foreach(pool->devices, const struct cb_device, d)
			g_string_append_printf(s, " %s", d->host->id);
	} else if (pool) {
		g_string_append_printf(s, ", pool %s", pool->id);
	}
	return g_string_free(g_steal_pointer(&s), FALSE);
}

static int point_cmp(gconstpointer a, gconstpointer b)
{
	const struct table_point *p = a, *q = b;

	return (p->gbps > q->gbps) - (p->gbps < q->gbps);
}

/*
 * The loaded-latency curve of one node: one point per cxlbed-loaded run.
 * If none of them ran without load, the idle chase is the x = 0 point, so
 * that every curve starts where the table's latency column is.
 */
static struct table_curve *build_curve(const struct run_result *r,
				       const struct table_row *row)
{
	struct table_curve *c = g_new0(struct table_curve, 1);
	bool have_idle = false;

	c->topology = g_strdup(row->topology);
	c->host = g_strdup(row->host);
	c->node = row->node;
	c->dax = g_strdup(row->dax);
	c->label = row->dax ?
		g_strdup_printf("%s %s %s (%s)", row->topology, row->host, row->dax,
				row->via ? row->via : row->kind) :
		g_strdup_printf("%s %s node %d (%s)", row->topology, row->host,
				row->node, row->via ? row->via : row->kind);
	c->points = g_array_new(FALSE, FALSE, sizeof(struct table_point));
	for (guint i = 0; i < r->workloads->len; i++) {
		const struct res_workload *w = g_ptr_array_index(r->workloads, i);
		struct fig_clocks ck = { 0 };
		struct table_point p = { 0 };
		double v;

		if (!ran_at(w, row) || g_strcmp0(w->program, LOADED))
			continue;
		/*
		 * The timing merge names the chaser's figure apart from an
		 * idle chase (loaded_ns_per_access), so that it never lands in
		 * the node's idle latency; without the model the guest-clock
		 * fields chase_ns_per_access and load_gbps are the fallback.
		 */
		p.latency_ns = fig_get(w->output, "loaded_ns_per_access",
				       "chase_ns_per_access", &ck);
		if (p.latency_ns <= 0)
			continue;
		if ((v = fig_of(w->output, "load_gbps", &ck)) > 0)
			p.gbps = v;
		p.load_threads = json_object_get_int_member_with_default(w->output,
									"load_threads",
									p.gbps > 0 ? 1 : 0);
		have_idle |= p.load_threads == 0;
		g_array_append_val(c->points, p);
	}
	if (!have_idle && row->latency_ns > 0) {
		struct table_point p = { 0, row->latency_ns, -1 };

		g_array_append_val(c->points, p);
	}
	g_array_sort(c->points, point_cmp);
	return c;
}

/*
 * What the host's vCPUs can draw: each its Little's-law limit at
 * @latency_ns, or what one thread measured (@one, < 0: not measured) when
 * that is lower (a core's instruction rate bounds it too).
 */
static double cores_read(const struct cb_host *th, double latency_ns,
			 double one)
{
	double core;
	int line;

	if (!th || latency_ns <= 0 || th->cpus <= 0 ||
	    th->cache.max_outstanding_misses <= 0)
		return -1;
	line = th->cache.line_bytes > 0 ? th->cache.line_bytes : 64;
	core = (double)th->cache.max_outstanding_misses * line / latency_ns;
	if (one > 0 && one < core)
		core = one;
	return th->cpus * core;
}

static struct table_row *build_row(const struct run_result *r,
				   const struct cb_topology *topo,
				   const struct res_host *h, const struct res_node *n)
{
	struct table_row *row = g_new0(struct table_row, 1);
	const struct cb_host *th = topo ? topology_find_host(topo, h->name) : NULL;
	const struct cb_region *reg = topo && n->region ?
		topology_find_region(topo, n->region) : NULL;
	const struct res_workload *w;
	struct fig_clocks ck = { 0 };

	row->topology = g_strdup(r->topology_name ? r->topology_name : r->topology);
	row->run_id = g_strdup(r->run_id);
	row->host = g_strdup(h->name);
	row->node = n->node;
	row->dax = g_strdup(n->dax);
	row->region = g_strdup(n->region);
	row->kind = g_strdup(n->kind ? n->kind : "?");
	row->path = g_strdup(n->path ? n->path : "");
	row->via = !g_strcmp0(n->kind, "local") ? g_strdup("local DRAM") :
		table_describe_region(topo, n->region);
	row->latency_ratio = -1;
	row->path_read_gbps = !g_strcmp0(n->kind, "local") ?
		(th ? th->local.read_gbps : -1) :
		(reg ? topology_region_gbps(reg, CB_READ) : -1);
	row->config_latency_ns = !g_strcmp0(n->kind, "local") ?
		(th ? th->local.read_latency_ns : -1) :
		(reg ? topology_region_latency_ns(reg, CB_READ) : -1);

	/*
	 * From the workloads, not the node's figures: the runner copies every
	 * workload's figures into its node, so a loaded chaser would leave its
	 * loaded latency there.
	 */
	w = find_workload(r, row, CHASE);
	row->latency_ns = w ? fig_of(w->output, "ns_per_access", &ck) : -1;
	w = find_workload(r, row, STREAM);
	row->read_gbps = w ? fig_of(w->output, "read_gbps", &ck) : -1;
	row->write_gbps = w ? fig_of(w->output, "write_gbps", &ck) : -1;
	row->sustained_read_gbps = sustained_read(r, row, &ck);
	row->cores_read_gbps = cores_read(th, row->latency_ns > 0 ?
					 row->latency_ns : row->config_latency_ns,
					 row->read_gbps);
	row->clock = g_strdup(fig_clock_word(&ck) ? fig_clock_word(&ck) : "-");
	return row;
}

static int row_cmp(gconstpointer a, gconstpointer b)
{
	const struct table_row *p = *(struct table_row *const *)a;
	const struct table_row *q = *(struct table_row *const *)b;
	int pl = !g_strcmp0(p->kind, "local"), ql = !g_strcmp0(q->kind, "local");

	if (pl != ql)
		return ql - pl;
	if (!p->dax != !q->dax)		/* nodes before devdax regions */
		return p->dax ? 1 : -1;
	if (p->dax)
		return g_strcmp0(p->region, q->region);
	return p->node - q->node;
}

/* Each host's rows: local first, ratios against that host's local node. */
static void add_host(struct table *t, const struct run_result *r,
		     const struct cb_topology *topo, const struct res_host *h)
{
	g_autoptr(GPtrArray) rows = g_ptr_array_new();
	double local = -1;

	for (guint i = 0; i < h->nodes->len; i++) {
		struct table_row *row = build_row(r, topo, h, g_ptr_array_index(h->nodes, i));

		if (anything_tried_at(r, row))
			g_ptr_array_add(rows, row);
		else
			row_free(row);
	}
	g_ptr_array_sort(rows, row_cmp);
	for (guint i = 0; i < rows->len; i++) {
		struct table_row *row = g_ptr_array_index(rows, i);

		if (!g_strcmp0(row->kind, "local") && local <= 0)
			local = row->latency_ns;
	}
	for (guint i = 0; i < rows->len; i++) {
		struct table_row *row = g_ptr_array_index(rows, i);

		if (local > 0 && row->latency_ns > 0)
			row->latency_ratio = row->latency_ns / local;
		g_ptr_array_add(t->rows, row);
		g_ptr_array_add(t->curves, build_curve(r, row));
	}
}

struct table *table_build(struct run_result *const *runs,
			  const struct cb_topology *const *topos, guint n)
{
	struct table *t = g_new0(struct table, 1);

	t->runs = g_ptr_array_new_with_free_func(run_free);
	t->rows = g_ptr_array_new_with_free_func(row_free);
	t->curves = g_ptr_array_new_with_free_func(curve_free);
	for (guint i = 0; i < n; i++) {
		const struct run_result *r = runs[i];
		struct table_run *tr;

		if (!r)
			continue;
		tr = g_new0(struct table_run, 1);
		tr->topology = g_strdup(r->topology_name ? r->topology_name : r->topology);
		tr->run_id = g_strdup(r->run_id);
		tr->out_dir = g_strdup(r->out_dir);
		tr->timing_model = r->timing_model;
		tr->passed = result_passed(r);
		tr->kernel = result_kernel_words(r);
		g_ptr_array_add(t->runs, tr);
		for (guint j = 0; j < r->hosts->len; j++)
			add_host(t, r, topos ? topos[i] : NULL,
				 g_ptr_array_index(r->hosts, j));
	}
	return t;
}

/* ---- Presentation: table.json, table.md, the terminal, the plot. ---- */

/*
 * What limits the path's sustained read bandwidth: "path" when the host's
 * vCPUs can draw at least the path's configured bandwidth (Little's law
 * per core, or its one-thread read when lower: cores_read_gbps), "cores"
 * when they cannot, "-" when either is unknown.
 * Worked out from the configuration and the idle latency, not from the
 * all-vCPU figure: that one says how close the run came.
 */
const char *table_row_bound(const struct table_row *r)
{
	if (r->cores_read_gbps <= 0 || r->path_read_gbps <= 0)
		return "-";
	return r->cores_read_gbps >= r->path_read_gbps ? "path" : "cores";
}

/* The node column: "1", or "dax0.0" for a devdax region. */
static void row_node(const struct table_row *r, char *buf, size_t len)
{
	if (r->dax)
		g_strlcpy(buf, r->dax, len);
	else
		g_snprintf(buf, len, "%d", r->node);
}

static void set_figure(JsonObject *o, const char *key, double v)
{
	if (v >= 0)
		json_object_set_double_member(o, key, v);
	else
		json_object_set_null_member(o, key);
}

JsonNode *table_to_json(const struct table *t)
{
	JsonObject *root = json_object_new();
	JsonArray *runs = json_array_new(), *rows = json_array_new();
	JsonArray *curves = json_array_new();
	JsonNode *node = json_node_new(JSON_NODE_OBJECT);

	json_object_set_string_member(root, "schema", TABLE_SCHEMA);
	json_object_set_string_member(root, "run_id", t->run_id ? t->run_id : "");
	for (guint i = 0; i < t->runs->len; i++) {
		const struct table_run *r = g_ptr_array_index(t->runs, i);
		JsonObject *o = json_object_new();

		json_object_set_string_member(o, "topology", r->topology);
		json_object_set_string_member(o, "run_id", r->run_id);
		json_object_set_string_member(o, "out_dir", r->out_dir);
		json_object_set_boolean_member(o, "timing_model", r->timing_model);
		json_object_set_string_member(o, "verdict", r->passed ? "pass" : "fail");
		if (r->kernel)
			json_object_set_string_member(o, "kernel", r->kernel);
		json_array_add_object_element(runs, o);
	}
	for (guint i = 0; i < t->rows->len; i++) {
		const struct table_row *r = g_ptr_array_index(t->rows, i);
		JsonObject *o = json_object_new();

		json_object_set_string_member(o, "topology", r->topology);
		json_object_set_string_member(o, "run_id", r->run_id);
		json_object_set_string_member(o, "host", r->host);
		if (r->dax) {
			json_object_set_null_member(o, "node");
			json_object_set_string_member(o, "dax", r->dax);
		} else {
			json_object_set_int_member(o, "node", r->node);
		}
		if (r->region)
			json_object_set_string_member(o, "region", r->region);
		json_object_set_string_member(o, "kind", r->kind);
		json_object_set_string_member(o, "path", r->path);
		if (r->via)
			json_object_set_string_member(o, "via", r->via);
		set_figure(o, "latency_ns", r->latency_ns);
		set_figure(o, "read_gbps", r->read_gbps);
		set_figure(o, "write_gbps", r->write_gbps);
		set_figure(o, "sustained_read_gbps", r->sustained_read_gbps);
		set_figure(o, "path_read_gbps", r->path_read_gbps);
		set_figure(o, "configured_latency_ns", r->config_latency_ns);
		set_figure(o, "cores_read_gbps", r->cores_read_gbps);
		json_object_set_string_member(o, "bound", table_row_bound(r));
		set_figure(o, "latency_ratio", r->latency_ratio);
		json_object_set_string_member(o, "clock", r->clock);
		json_array_add_object_element(rows, o);
	}
	for (guint i = 0; i < t->curves->len; i++) {
		const struct table_curve *c = g_ptr_array_index(t->curves, i);
		JsonObject *o = json_object_new();
		JsonArray *pts = json_array_new();

		json_object_set_string_member(o, "label", c->label);
		json_object_set_string_member(o, "topology", c->topology);
		json_object_set_string_member(o, "host", c->host);
		if (c->dax)
			json_object_set_string_member(o, "dax", c->dax);
		else
			json_object_set_int_member(o, "node", c->node);
		for (guint j = 0; j < c->points->len; j++) {
			const struct table_point *p = &g_array_index(c->points, struct table_point, j);
			JsonObject *po = json_object_new();

			json_object_set_double_member(po, "gbps", p->gbps);
			json_object_set_double_member(po, "latency_ns", p->latency_ns);
			json_object_set_int_member(po, "load_threads", p->load_threads);
			json_array_add_object_element(pts, po);
		}
		json_object_set_array_member(o, "points", pts);
		json_array_add_object_element(curves, o);
	}
	json_object_set_array_member(root, "runs", runs);
	json_object_set_array_member(root, "rows", rows);
	json_object_set_array_member(root, "curves", curves);
	json_node_take_object(node, root);
	return node;
}

bool table_write_json(const struct table *t, const char *path, GError **error)
{
	g_autoptr(JsonNode) root = table_to_json(t);

	return json_write_file(root, path, error);
}

/* A row's figures as table cells ("-" where not measured). */
struct row_cells {
	char lat[32], rd[32], wr[32], all[32], lim[32], ratio[32], node[32];
};

static void row_cells(const struct table_row *r, struct row_cells *c)
{
	fig_format(c->lat, sizeof(c->lat), r->latency_ns, "%.1f");
	fig_format(c->rd, sizeof(c->rd), r->read_gbps, "%.2f");
	fig_format(c->wr, sizeof(c->wr), r->write_gbps, "%.2f");
	fig_format(c->all, sizeof(c->all), r->sustained_read_gbps, "%.2f");
	fig_format(c->lim, sizeof(c->lim), r->path_read_gbps, "%.2f");
	fig_format(c->ratio, sizeof(c->ratio), r->latency_ratio, "%.2fx");
	row_node(r, c->node, sizeof(c->node));
}

/* How the figures were obtained, from the rows' clocks, in words. */
static const char *table_clock_words(const struct table *t)
{
	bool modeled = false, other = false;

	for (guint i = 0; i < t->rows->len; i++) {
		const struct table_row *r = g_ptr_array_index(t->rows, i);

		if (!g_strcmp0(r->clock, "modeled"))
			modeled = true;
		else
			other = true;
	}
	if (modeled && !other)
		return "modeled virtual time (timing-model plugin ROIs), not host wall time";
	if (modeled)
		return "partly modeled virtual time, partly the guest clock (see each row's clock)";
	return "the guest's wall clock under TCG: proves the paths work, not hardware figures";
}

static bool any_idle_chase_point(const struct table *t)
{
	for (guint i = 0; i < t->curves->len; i++) {
		const struct table_curve *c = g_ptr_array_index(t->curves, i);

		for (guint j = 0; j < c->points->len; j++)
			if (g_array_index(c->points, struct table_point, j).load_threads < 0)
				return true;
	}
	return false;
}

char *table_to_markdown(const struct table *t)
{
	GString *s = g_string_new("# Latency/bandwidth table ");

	md_text(s, t->run_id ? t->run_id : "");
	g_string_append_printf(s, "\n\nFigures: %s. Idle latency is `cxlbed-chase` "
			       "(dependent loads over a 64 MiB working set), read and "
			       "write bandwidth `cxlbed-stream` (sequential, one thread), "
			       "all-vCPU read every vCPU of the host streaming at once, "
			       "path read the configured limit of the path (its "
			       "narrowest resource, scaled by the interleave), bound "
			       "what stops the all-vCPU read (`path`: within 10%% of the "
			       "limit; `cores`: the vCPUs' misses in flight); ratio is the "
			       "latency over the same host's local node. A node column "
			       "daxN.M is a devdax region, measured through its device. "
			       "See docs/latency-table.md.\n\n", table_clock_words(t));
	g_string_append(s, "| topology | host | node | kind | via | idle latency ns | "
			"read GB/s | write GB/s | all-vCPU read GB/s | path read GB/s | "
			"bound | latency vs local | clock | path |\n"
			"|---|---|---|---|---|---:|---:|---:|---:|---:|---|---:|---|---|\n");
	for (guint i = 0; i < t->rows->len; i++) {
		const struct table_row *r = g_ptr_array_index(t->rows, i);
		struct row_cells c;

		row_cells(r, &c);
		g_string_append_c(s, '|');
		md_cell(s, r->topology);
		md_cell(s, r->host);
		md_cell(s, c.node);
		md_cell(s, r->kind);
		md_cell(s, r->via);
		g_string_append_printf(s, " %s | %s | %s | %s | %s | %s | %s |", c.lat, c.rd,
				       c.wr, c.all, c.lim, table_row_bound(r), c.ratio);
		md_cell(s, r->clock);
		g_string_append_c(s, ' ');
		md_code(s, r->path);
		g_string_append(s, " |\n");
	}
	g_string_append_printf(s, "\n## Loaded latency\n\n"
			       "![loaded latency](loaded-latency.svg)\n\n"
			       "Chaser latency (ns per access) while streamer threads load "
			       "the same path; x is their aggregate bandwidth (GB/s); load "
			       "threads 0 is the chaser alone%s.\n\n"
			       "| path | load threads | GB/s | latency ns |\n|---|---:|---:|---:|\n",
			       any_idle_chase_point(t) ? ", -1 the idle chase (cxlbed-chase) "
			       "where no cxlbed-loaded run had no load" : "");
	for (guint i = 0; i < t->curves->len; i++) {
		const struct table_curve *c = g_ptr_array_index(t->curves, i);

		for (guint j = 0; j < c->points->len; j++) {
			const struct table_point *p = &g_array_index(c->points, struct table_point, j);

			g_string_append_c(s, '|');
			md_cell(s, c->label);
			g_string_append_printf(s, " %d | %.2f | %.1f |\n",
					       p->load_threads, p->gbps, p->latency_ns);
		}
	}
	g_string_append(s, "\n## Runs\n\n");
	for (guint i = 0; i < t->runs->len; i++) {
		const struct table_run *r = g_ptr_array_index(t->runs, i);

		g_string_append(s, "- ");
		md_text(s, r->topology);
		g_string_append(s, ": run ");
		md_code(s, r->run_id ? r->run_id : "");
		g_string_append(s, ", ");
		md_text(s, r->out_dir);
		g_string_append_printf(s, ", timing model %s, verdict %s\n",
				       r->timing_model ? "on" : "off",
				       r->passed ? "pass" : "fail");
	}
	return g_string_free(s, FALSE);
}

void table_print(const struct table *t, FILE *out)
{
	int tw = (int)strlen("topology"), hw = (int)strlen("host");

	for (guint i = 0; i < t->rows->len; i++) {
		const struct table_row *r = g_ptr_array_index(t->rows, i);

		tw = MAX(tw, (int)strlen(r->topology));
		hw = MAX(hw, (int)strlen(r->host));
	}
	fprintf(out, "\ntable %s\nfigures: %s\n\n", t->run_id ? t->run_id : "",
		table_clock_words(t));
	fprintf(out, "%-*s %-*s %6s %-5s %9s %8s %8s %8s %8s %-5s %7s %-7s  %s\n",
		tw, "topology", hw, "host", "node", "kind", "lat ns", "rd GB/s",
		"wr GB/s", "all rd", "path rd", "bound", "ratio", "clock", "via");
	for (guint i = 0; i < t->rows->len; i++) {
		const struct table_row *r = g_ptr_array_index(t->rows, i);
		struct row_cells c;

		row_cells(r, &c);
		fprintf(out, "%-*s %-*s %6s %-5s %9s %8s %8s %8s %8s %-5s %7s %-7s  %s\n",
			tw, r->topology, hw, r->host, c.node, r->kind, c.lat, c.rd,
			c.wr, c.all, c.lim, table_row_bound(r), c.ratio, r->clock,
			r->via ? r->via : r->path);
	}
}

/* The kind of @c's path ("local", "cxl", "dax"): its row's. */
static const char *curve_kind(const struct table *t, const struct table_curve *c)
{
	for (guint i = 0; i < t->rows->len; i++) {
		const struct table_row *r = g_ptr_array_index(t->rows, i);

		if (!g_strcmp0(r->topology, c->topology) && !g_strcmp0(r->host, c->host) &&
		    !g_strcmp0(r->dax, c->dax) && (c->dax || r->node == c->node))
			return r->kind;
	}
	return "?";
}

/* One panel per kind of path, in this order; any other kind last. */
static const struct {
	const char *kind, *title;
} panel_kinds[] = {
	{ "local", "Local DRAM" },
	{ "cxl", "CXL memory as a NUMA node" },
	{ "dax", "CXL memory as a devdax region" },
	{ NULL, "Other paths" },
};

/*
 * Loaded latency, one panel per kind of path: the local DRAM curves of
 * every topology lie on one another, and apart from the CXL ones they
 * would only crowd them.
 */
char *table_curves_svg(const struct table *t)
{
	guint n = t->curves->len, npanels = 0, style = 0;
	g_autofree struct svg_series *series = g_new0(struct svg_series, n ? n : 1);
	struct svg_plot panels[G_N_ELEMENTS(panel_kinds)];
	g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func(g_free);
	g_autofree char *sub = g_strdup_printf("cxlbed table %s: %s",
					       t->run_id ? t->run_id : "",
					       table_clock_words(t));
	guint used = 0;

	for (guint k = 0; k < G_N_ELEMENTS(panel_kinds); k++) {
		guint first = used;

		for (guint i = 0; i < n; i++) {
			const struct table_curve *c = g_ptr_array_index(t->curves, i);
			const char *kind = curve_kind(t, c);
			bool known = false;
			double *x, *y;

			for (guint j = 0; panel_kinds[j].kind; j++)
				known |= !g_strcmp0(kind, panel_kinds[j].kind);
			if (panel_kinds[k].kind ? g_strcmp0(kind, panel_kinds[k].kind) : known)
				continue;
			x = g_new(double, c->points->len + 1);
			y = g_new(double, c->points->len + 1);
			for (guint j = 0; j < c->points->len; j++) {
				x[j] = g_array_index(c->points, struct table_point, j).gbps;
				y[j] = g_array_index(c->points, struct table_point, j).latency_ns;
			}
			g_ptr_array_add(keep, x);
			g_ptr_array_add(keep, y);
			series[used++] = (struct svg_series){ c->label, x, y, c->points->len };
		}
		if (used == first)
			continue;
		panels[npanels++] = (struct svg_plot){
			.title = panel_kinds[k].title,
			.subtitle = sub,
			.x_label = "aggregate streamer bandwidth (GB/s)",
			.y_label = "chaser latency (ns per access)",
			.series = series + first,
			.nseries = used - first,
			.style_base = style,
			.end_labels = true,
		};
		style += used - first;
	}
	return svg_panels("Loaded latency: one chaser beside streamer threads",
			  panels, npanels);
}
