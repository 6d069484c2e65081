/* SPDX-License-Identifier: MIT */
/* cxlbed report PATH...: (re)draw report.html (and a table's table.md and plot) of result folders. */
#include "cli/commands.h"
#include "common/error.h"
#include "results/html.h"
#include "results/result_read.h"

#include <stdio.h>

static bool write_run(const char *json, GError **error)
{
	g_autoptr(run_result) r = result_load(json, error);
	g_autoptr(cb_topology) topo = NULL;
	g_autofree char *out = NULL;

	if (!r)
		return false;
	topo = result_topology(r->topology);
	out = g_build_filename(r->out_dir, "report.html", NULL);
	if (!result_write_html(r, topo, out, error))
		return false;
	printf("%s\n", out);
	return true;
}

/* The table's page, table.md and plot, and each of its runs' pages (the
 * table links to them): every view of table.json from the one renderer. */
static bool write_table(const char *json, GError **error)
{
	g_autoptr(table) t = table_load(json, error);
	g_autofree char *dir = g_path_get_dirname(json);
	g_autofree char *out = g_build_filename(dir, "report.html", NULL);
	g_autofree char *svg_path = g_build_filename(dir, "loaded-latency.svg", NULL);
	g_autofree char *md_path = g_build_filename(dir, "table.md", NULL);
	g_autofree char *html = NULL, *svg = NULL, *md = NULL;
	g_autofree struct cb_topology **topos = NULL;
	bool ok = true;

	if (!t)
		return false;
	topos = g_new0(struct cb_topology *, t->runs->len + 1);
	for (guint i = 0; i < t->runs->len; i++) {
		const struct table_run *r = g_ptr_array_index(t->runs, i);
		g_autofree char *base = g_path_get_basename(r->out_dir ? r->out_dir : "");
		g_autofree char *summary = g_build_filename(dir, base, "summary.json", NULL);

		topos[i] = table_run_topology(dir, r);
		if (g_file_test(summary, G_FILE_TEST_EXISTS) && !write_run(summary, error))
			ok = false;
	}
	html = html_table_report(t, (const struct cb_topology *const *)topos, t->runs->len);
	for (guint i = 0; i < t->runs->len; i++)
		if (topos[i])
			topology_free(topos[i]);
	if (!ok)
		return false;
	svg = table_curves_svg(t);
	md = table_to_markdown(t);
	if (!g_file_set_contents(out, html, -1, error) ||
	    !g_file_set_contents(md_path, md, -1, error) ||
	    !g_file_set_contents(svg_path, svg, -1, error))
		return false;
	printf("%s\n%s\n%s\n", out, md_path, svg_path);
	return true;
}

int cmd_report(int argc, char **argv)
{
	g_autoptr(GError) err = NULL;
	GOptionEntry entries[] = { { NULL } };

	if (!verb_options(&argc, &argv, "PATH...",
			  "Write report.html, the page a person reads, for each PATH: a run\n"
			  "folder (summary.json) or a table folder (table.json, whose\n"
			  "table.md and loaded-latency.svg are rewritten too), or such a file.\n"
			  "`cxlbed run` and `cxlbed table` write it themselves; this redraws it,\n"
			  "e.g. for results made by an older cxlbed. Prints each page written.\n"
			  "Exit status: 0 written, 1 a page could not be written, 2 bad input.", entries))
		return 2;
	if (argc < 2)
		return verb_usage("report", "give a run or table folder, e.g. "
			"cxlbed report results/reference/table");
	for (int i = 1; i < argc; i++) {
		enum result_kind kind;
		g_autofree char *json = result_locate(argv[i], &kind, &err);
		bool ok;

		if (!json)
			return verb_usage("report", "%s", err->message);
		ok = kind == RESULT_RUN ? write_run(json, &err) : write_table(json, &err);
		if (!ok) {
			fprintf(stderr, "cxlbed report: %s\n", err->message);
			return err->domain == CXLBED_ERROR ? err->code : 1;
		}
	}
	return 0;
}
