/* SPDX-License-Identifier: MIT */
/* report.html of a run and of a table (see html.h). */
#include "results/html.h"
#include "results/html_parts.h"
#include "results/escape.h"
#include "results/figures.h"
#include "results/html_runtime.h"
#include "results/html_kv.h"
#include "results/program_report.h"
#include "results/svg.h"
#include "results/topo_tree.h"

#include <string.h>

static void fact(GString *s, const char *what, const char *value)
{
	g_string_append(s, "<dt>");
	html_esc(s, what);
	g_string_append(s, "</dt><dd>");
	html_esc(s, value);
	g_string_append(s, "</dd>\n");
}

/* The last cell of a row: a fabric path, in code type. */
static void path_cell(GString *s, const char *path)
{
	g_string_append(s, "<td><code>");
	html_esc(s, path);
	g_string_append(s, "</code></td></tr>\n");
}

static void verdict(GString *s, bool pass)
{
	g_string_append_printf(s, "<p>verdict: <span class=\"verdict %s\">%s</span></p>\n",
			       pass ? "pass" : "fail", pass ? "pass" : "fail");
}

static void tree_section(GString *s, const struct cb_topology *t, const char *heading)
{
	g_autofree char *svg = NULL;

	g_string_append(s, "<h2>");
	html_esc(s, heading);
	g_string_append(s, "</h2>\n");
	if (!t) {
		g_string_append(s, "<p class=\"note\">The topology file could not be read, "
				   "so it is not drawn.</p>\n");
		return;
	}
	g_string_append(s, "<p class=\"note\">");
	html_esc(s, t->file);
	g_string_append(s, ": each device shows its path's configured idle read latency "
			   "(media and every hop) and the read bandwidth of the path's "
			   "narrowest hop; each switch and device the link above it.</p>\n"
			   "<div class=\"figure\">\n");
	svg = topo_tree_svg(t);
	g_string_append(s, svg);
	g_string_append(s, "</div>\n");
	if (t->regions->len) {
		static const char *const cols[] = { "region", "host", "mode", "devices",
						    "idle read ns", "read GB/s", NULL };
		const struct cb_region *reg;

		html_table_head(s, cols);
		cb_foreach(t->regions, const struct cb_region, reg) {
			g_string_append(s, "<tr>");
			html_cell(s, reg->id);
			html_cell(s, reg->window && reg->window->host ? reg->window->host->id : "");
			html_cell(s, reg->mode == CB_REGION_RAM ? "ram" : "devdax");
			html_cell(s, reg->path_text);
			html_num(s, topology_region_latency_ns(reg, CB_READ), "%.1f");
			html_num(s, topology_region_gbps(reg, CB_READ), "%.1f");
			g_string_append(s, "</tr>\n");
		}
		g_string_append(s, "</table>\n");
	}
}

/* The loaded-latency plot, when some path has a curve to draw. */
static void curves_section(GString *s, const struct table *t)
{
	g_autofree char *svg = NULL;
	bool any = false;

	for (guint i = 0; i < t->curves->len; i++)
		any |= ((struct table_curve *)g_ptr_array_index(t->curves, i))->points->len > 1;
	if (!any)
		return;
	svg = table_curves_svg(t);
	g_string_append(s, "<h2>Loaded latency</h2>\n<p class=\"note\">One chaser's latency "
			   "while streamer threads load the same path; x is their aggregate "
			   "bandwidth.</p>\n<div class=\"figure\">\n");
	g_string_append(s, svg_element(svg));
	g_string_append(s, "</div>\n");
}

static void checks_section(GString *s, const struct run_result *r)
{
	static const char *const cols[] = { "check", "result", "detail", NULL };

	g_string_append(s, "<h2>Checks</h2>\n");
	html_table_head(s, cols);
	for (guint i = 0; i < r->checks->len; i++) {
		const struct res_check *c = g_ptr_array_index(r->checks, i);

		g_string_append(s, "<tr>");
		html_cell(s, c->name);
		g_string_append_printf(s, "<td class=\"%s\">%s</td>", c->pass ? "pass" : "fail",
				       c->pass ? "pass" : "FAIL");
		html_cell(s, c->detail);
		g_string_append(s, "</tr>\n");
	}
	g_string_append(s, "</table>\n");
}

static void nodes_section(GString *s, const struct run_result *r)
{
	static const char *const cols[] = { "host", "node", "kind", "MiB", "latency ns",
					    "read GB/s", "write GB/s", "clock", "path", NULL };

	g_string_append(s, "<h2>Figures</h2>\n<p class=\"note\">");
	html_esc(s, result_measured_with(r));
	g_string_append(s, ". Each row's clock says how: <code>modeled</code> is the timing "
			   "model's virtual time, <code>guest</code> the program's own "
			   "clock_gettime, in this run ");
	html_esc(s, result_clock_words(r, "guest"));
	g_string_append(s, ". Read and write are one thread's stream where one ran.</p>\n");
	html_table_head(s, cols);
	for (guint i = 0; i < r->hosts->len; i++) {
		const struct res_host *h = g_ptr_array_index(r->hosts, i);

		for (guint j = 0; j < h->nodes->len; j++) {
			const struct res_node *n = g_ptr_array_index(h->nodes, j);
			char label[16], rd[32];

			g_string_append(s, "<tr>");
			html_cell(s, h->name);
			html_cell(s, result_node_label(n, label, sizeof(label)));
			html_cell(s, n->kind);
			html_num(s, (double)(n->mem_bytes >> 20), "%.0f");
			html_num(s, n->latency_ns, "%.1f");
			if (n->threads > 1) {	/* no one-thread stream ran there */
				g_string_append_printf(s, "<td class=\"num\">%s (%d threads)</td>",
						       fig_format(rd, sizeof(rd), n->read_gbps, "%.3f"),
						       n->threads);
			} else {
				html_num(s, n->read_gbps, "%.3f");
			}
			html_num(s, n->write_gbps, "%.3f");
			html_cell(s, n->clock ? n->clock : "-");
			path_cell(s, n->path);
		}
	}
	g_string_append(s, "</table>\n");
}

/* Each command workload: its own figures, modeled, CXL/local, its log. */
static void programs_section(GString *s, const struct run_result *r)
{
	g_autoptr(GPtrArray) rows = program_report_rows(r);
	g_autofree char *note = NULL;

	if (!rows)
		return;
	note = program_report_note(r);
	g_string_append(s, "<h2>Programs</h2>\n<p class=\"note\">");
	html_esc(s, note);
	g_string_append(s, "</p>\n<table>\n<tr>");
	for (int c = 0; c < PROGRAM_NCOLS; c++) {
		g_string_append(s, "<th>");
		html_esc(s, program_report_cols[c]);
		g_string_append(s, "</th>");
	}
	g_string_append(s, "<th>log</th></tr>\n");
	for (guint i = 0; i < rows->len; i++) {
		const struct program_row *row = g_ptr_array_index(rows, i);

		g_string_append(s, "<tr>");
		for (int c = 0; c < PROGRAM_NCOLS; c++)
			html_cell(s, row->cells[c]);
		g_string_append(s, "<td>");
		html_link(s, row->log, row->log ? row->log : "-");
		g_string_append(s, "</td></tr>\n");
	}
	g_string_append(s, "</table>\n");
}

static void workloads_section(GString *s, const struct run_result *r)
{
	static const char *const cols[] = { "host", "workload", "program", "where", "ok",
					    "host wall s", "error", NULL };

	if (!r->workloads->len)
		return;
	g_string_append(s, "<h2>Workloads</h2>\n");
	html_table_head(s, cols);
	for (guint i = 0; i < r->workloads->len; i++) {
		const struct res_workload *w = g_ptr_array_index(r->workloads, i);
		g_autofree char *where = w->region ? g_strdup_printf("region %s", w->region) :
			w->node >= 0 ? g_strdup_printf("node %d", w->node) : g_strdup("-");

		g_string_append(s, "<tr>");
		html_cell(s, w->host);
		html_cell(s, w->name);
		html_cell(s, w->program);
		html_cell(s, where);
		g_string_append_printf(s, "<td class=\"%s\">%s</td>", w->ok ? "pass" : "fail",
				       w->ok ? "yes" : "no");
		html_num(s, w->wall_s, "%.2f");
		html_cell(s, w->error ? w->error : "");
		g_string_append(s, "</tr>\n");
	}
	g_string_append(s, "</table>\n");
}

/* One file beside the page: "<a href=NAME>WHAT</a>". */
static void file_link(GString *s, const char *what, const char *fmt, const char *host)
{
	g_autofree char *name = g_strdup_printf(fmt, host);

	html_link(s, name, what);
}

static void files_section(GString *s, const struct run_result *r)
{
	g_string_append(s, "<h2>Files</h2>\n<ul>\n<li><a href=\"summary.json\">summary.json</a> "
			   "(schema " RESULT_SCHEMA ")</li>\n<li><a href=\"report.md\">report.md</a></li>\n");
	for (guint i = 0; i < r->hosts->len; i++) {
		const struct res_host *h = g_ptr_array_index(r->hosts, i);

		g_string_append(s, "<li>");
		html_esc(s, h->name);
		g_string_append(s, ": ");
		file_link(s, "guest console", "console-%s.log", h->name);
		g_string_append(s, ", ");
		file_link(s, "QMP and agent traffic", "qmp-%s.log", h->name);
		g_string_append(s, ", ");
		file_link(s, "QEMU's output", "qemu-%s.log", h->name);
		g_string_append(s, ", ");
		file_link(s, "QEMU command line", "qemu-%s.cmdline", h->name);
		g_string_append(s, "</li>\n");
	}
	for (guint i = 0; i < r->workloads->len; i++) {
		const struct res_workload *w = g_ptr_array_index(r->workloads, i);
		const char *log = w->output ?
			json_object_get_string_member_with_default(w->output, "log", NULL) : NULL;

		if (!log)
			continue;
		g_string_append(s, "<li>");
		html_esc(s, w->host);
		g_string_append(s, " ");
		html_esc(s, w->name);
		g_string_append(s, ": ");
		html_link(s, log, "the program's output");
		g_string_append(s, "</li>\n");
	}
	g_string_append(s, "</ul>\n");
}

char *html_run_report(const struct run_result *r, const struct cb_topology *topo)
{
	GString *s = g_string_new(NULL);
	g_autofree char *title = g_strdup_printf("cxlbed run %s", r->run_id ? r->run_id : "");
	g_autofree char *wall = g_strdup_printf("%.1f s", r->wall_s);
	g_autofree char *ready = g_strdup_printf("%.1f s", r->boot_ready_s);
	struct run_result *one[1] = { (struct run_result *)r };
	const struct cb_topology *topos[1] = { topo };
	g_autoptr(table) t = table_build(one, topos, 1);

	html_page_start(s, title);
	verdict(s, result_passed(r));
	g_string_append(s, "<dl>\n");
	fact(s, "topology", r->topology_name ? r->topology_name : "");
	fact(s, "topology file", r->topology);
	fact(s, "scenario", r->scenario);
	fact(s, "started", r->started_at);
	fact(s, "wall time", wall);
	fact(s, "boot to ready", ready);
	fact(s, "QEMU", r->qemu_version ? r->qemu_version : "?");
	fact(s, "timing model", r->timing_model ? "loaded (figures in modeled time)" :
	     "off (--no-timing: figures are the guest clock under emulation)");
	if (r->interrupted)
		fact(s, "interrupted by", r->interrupted);
	g_string_append(s, "</dl>\n");
	checks_section(s, r);
	nodes_section(s, r);
	curves_section(s, t);
	tree_section(s, topo, "Topology");
	workloads_section(s, r);
	programs_section(s, r);
	html_tiering_section(s, r);
	html_pool_section(s, r);
	html_faults_section(s, r);
	html_kv_section(s, r);
	files_section(s, r);
	g_string_append(s, "</body>\n</html>\n");
	return g_string_free(s, FALSE);
}

static void table_rows_section(GString *s, const struct table *t)
{
	static const char *const cols[] = { "topology", "host", "node", "kind", "via",
					    "idle latency ns", "read GB/s", "write GB/s",
					    "all-vCPU read GB/s", "path read GB/s", "bound",
					    "latency vs local", "clock", "path", NULL };

	g_string_append(s, "<h2>Paths</h2>\n");
	html_table_head(s, cols);
	for (guint i = 0; i < t->rows->len; i++) {
		const struct table_row *r = g_ptr_array_index(t->rows, i);
		char node[16];

		g_snprintf(node, sizeof(node), "%d", r->node);
		g_string_append(s, "<tr>");
		html_cell(s, r->topology);
		html_cell(s, r->host);
		html_cell(s, r->dax ? r->dax : node);
		html_cell(s, r->kind);
		html_cell(s, r->via ? r->via : "");
		html_num(s, r->latency_ns, "%.1f");
		html_num(s, r->read_gbps, "%.2f");
		html_num(s, r->write_gbps, "%.2f");
		html_num(s, r->sustained_read_gbps, "%.2f");
		html_num(s, r->path_read_gbps, "%.2f");
		html_cell(s, table_row_bound(r));
		html_num(s, r->latency_ratio, "%.2fx");
		html_cell(s, r->clock);
		path_cell(s, r->path);
	}
	g_string_append(s, "</table>\n");
}

char *html_table_report(const struct table *t, const struct cb_topology *const *topos,
			guint n)
{
	GString *s = g_string_new(NULL);
	g_autofree char *title = g_strdup_printf("cxlbed table %s", t->run_id ? t->run_id : "");
	bool pass = t->runs->len > 0;

	for (guint i = 0; i < t->runs->len; i++)
		pass &= ((struct table_run *)g_ptr_array_index(t->runs, i))->passed;
	html_page_start(s, title);
	verdict(s, pass);
	g_string_append(s, "<p class=\"note\">Idle latency is <code>cxlbed-chase</code>, read and "
			   "write bandwidth <code>cxlbed-stream</code> with one thread, all-vCPU "
			   "read every vCPU streaming; path read is the path's configured limit. "
			   "See docs/latency-table.md. Machine-readable: "
			   "<a href=\"table.json\">table.json</a> (schema " TABLE_SCHEMA "), "
			   "<a href=\"table.md\">table.md</a>.</p>\n");
	table_rows_section(s, t);
	curves_section(s, t);
	g_string_append(s, "<h2>Runs</h2>\n<ul>\n");
	for (guint i = 0; i < t->runs->len; i++) {
		const struct table_run *r = g_ptr_array_index(t->runs, i);
		g_autofree char *base = g_path_get_basename(r->out_dir ? r->out_dir : ".");
		/* no folder recorded: no link (it would point at this page) */
		g_autofree char *page = r->out_dir && *r->out_dir ?
			g_build_filename(base, "report.html", NULL) : NULL;
		g_autofree char *text = g_strdup_printf("run %s", r->run_id ? r->run_id : "?");

		g_string_append(s, "<li>");
		html_esc(s, r->topology);
		g_string_append(s, ": ");
		html_link(s, page, text);
		g_string_append_printf(s, ", timing model %s, <span class=\"%s\">%s</span></li>\n",
				       r->timing_model ? "on" : "off", r->passed ? "pass" : "fail",
				       r->passed ? "pass" : "fail");
	}
	g_string_append(s, "</ul>\n");
	for (guint i = 0; i < n; i++) {
		g_autofree char *h = topos[i] ? g_strdup_printf("Topology %s", topos[i]->name) : NULL;

		if (topos[i])
			tree_section(s, topos[i], h);
	}
	g_string_append(s, "</body>\n</html>\n");
	return g_string_free(s, FALSE);
}

bool result_write_html(const struct run_result *r, const struct cb_topology *topo,
		       const char *path, GError **error)
{
	g_autofree char *html = html_run_report(r, topo);

	return g_file_set_contents(path, html, -1, error);
}
