/* SPDX-License-Identifier: MIT */
/* cxlbed table TOPOLOGY... [--out DIR]: the latency/bandwidth table. */
#include "cli/commands.h"
#include "run/guest_kernel.h"
#include "results/html.h"
#include "common/paths.h"
#include "run/run_dir.h"
#include "run/runner.h"
#include "results/table_paths.h"
#include "qemu/timing_limits.h"
#include "run/timing_run.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct table_input {
	struct scenario *scn;
	struct cb_topology *topo;
	struct guest_kernel *kernel;	/* --kernel, or the topology's kernel = */
	char *subdir;		/* DIR/TOPONAME, unique */
};

static void input_free(struct table_input *in, guint n)
{
	for (guint i = 0; i < n; i++) {
		scenario_free(in[i].scn);
		if (in[i].topo)
			topology_free(in[i].topo);
		guest_kernel_free(in[i].kernel);
		g_free(in[i].subdir);
	}
	g_free(in);
}

/* Every file loaded and checked before anything boots or is created. */
static int load_all(char **paths, guint n, struct table_input *in, bool cxl_only,
		    const struct kernel_option *ko)
{
	for (guint i = 0; i < n; i++) {
		struct scenario *loaded = NULL;
		g_autoptr(GError) err = NULL;
		int rc = run_prepare("table", paths[i], ko, &loaded, &in[i].topo, &in[i].kernel);

		if (rc) {
			scenario_free(loaded);
			return rc;
		}
		if (!timing_check_limits(in[i].topo, &err)) {
			fprintf(stderr, "%s\n", err->message);
			scenario_free(loaded);
			return 2;
		}
		/* A scenario file stands for its topology: the table has its own workloads. */
		in[i].scn = scenario_table_for(in[i].topo, cxl_only);
		scenario_free(loaded);
	}
	if (!g_file_test(cxlbed_path(TIMING_PLUGIN), G_FILE_TEST_EXISTS)) {
		fprintf(stderr, "cxlbed table: timing plugin %s not built: run make\n",
			cxlbed_path(TIMING_PLUGIN));
		return 1;
	}
	return 0;
}

/* DIR/NAME per topology; the same name twice gets -2, -3, ... */
static void name_subdirs(struct table_input *in, guint n, const char *dir)
{
	for (guint i = 0; i < n; i++) {
		int same = 0;

		for (guint j = 0; j < i; j++)
			same += !strcmp(in[j].topo->name, in[i].topo->name);
		in[i].subdir = same ? g_strdup_printf("%s/%s-%d", dir, in[i].topo->name, same + 1) :
			g_build_filename(dir, in[i].topo->name, NULL);
	}
}

static bool write_outputs(const struct table *t, const struct cb_topology *const *topos,
			  guint n, const char *dir)
{
	g_autofree char *html = g_build_filename(dir, "report.html", NULL);
	g_autofree char *html_text = html_table_report(t, topos, n);
	g_autofree char *json = g_build_filename(dir, "table.json", NULL);
	g_autofree char *md = g_build_filename(dir, "table.md", NULL);
	g_autofree char *svg = g_build_filename(dir, "loaded-latency.svg", NULL);
	g_autofree char *md_text = table_to_markdown(t);
	g_autofree char *svg_text = table_curves_svg(t);
	g_autoptr(GError) err = NULL;

	if (!table_write_json(t, json, &err) ||
	    !g_file_set_contents(md, md_text, -1, &err) ||
	    !g_file_set_contents(svg, svg_text, -1, &err) ||
	    !g_file_set_contents(html, html_text, -1, &err)) {
		fprintf(stderr, "cxlbed table: writing %s: %s\n", dir, err->message);
		return false;
	}
	return true;
}

int cmd_table(int argc, char **argv)
{
	g_autofree char *out = NULL;
	g_autofree char *clock = NULL;
	g_autofree char *nodes = NULL;
	g_autofree char *qemu = NULL;
	g_auto(kernel_option) ko = { 0 };
	bool host_clock = false;
	GOptionEntry entries[] = {
		{ "out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
		  "write the table and every run's results to DIR instead of "
		  "results/table-YYYYmmdd-HHMMSS-PID; a new or empty folder", "DIR" },
		{ "guest-clock", 0, 0, G_OPTION_ARG_STRING, &clock,
		  GUEST_CLOCK_HELP, "modeled|host" },
		{ "nodes", 0, 0, G_OPTION_ARG_STRING, &nodes,
		  "all (default): a row for every NUMA node and devdax region; "
		  "cxl: leave the local DRAM nodes out", "all|cxl" },
		QEMU_OPTION_ENTRY(qemu),
		KERNEL_OPTION_ENTRIES(ko),
		{ NULL }
	};
	g_autoptr(GError) err = NULL;
	g_autoptr(GPtrArray) results = g_ptr_array_new_with_free_func((GDestroyNotify)result_free);
	g_autoptr(table) t = NULL;
	g_autofree char *dir = NULL;
	g_autofree const struct cb_topology **topos = NULL;
	struct table_input *in;
	guint n;
	bool created;
	int rc = 0;

	if (!verb_options(&argc, &argv, "TOPOLOGY...",
			  "Boot each topology with the timing model, run idle latency\n"
			  "(cxlbed-chase), bandwidth (cxlbed-stream --mix all) and loaded latency\n"
			  "(cxlbed-loaded, 0 and 1 streamer threads) on every NUMA node of every\n"
			  "host, and write table.md, table.json (schema " TABLE_SCHEMA "),\n"
			  "loaded-latency.svg, report.html (the page to read) and one folder of\n"
			  "run results per topology.\n"
			  "One row per path (topology, host, node); figures are modeled virtual\n"
			  "time (docs/latency-table.md).\n"
			  "Exit status: 0 every run passed, 1 a run failed, 2 bad input.", entries))
		return 2;
	if (!parse_guest_clock("table", clock, &host_clock) ||
	    !choose_qemu("table", qemu))
		return 2;
	if (nodes && strcmp(nodes, "all") && strcmp(nodes, "cxl"))
		return verb_usage("table", "--nodes '%s': use all or cxl", nodes);
	if (argc < 2)
		return verb_usage("table", "give at least one topology, e.g. "
			"cxlbed table topologies/direct.topo topologies/default.topo");
	n = argc - 1;
	in = g_new0(struct table_input, n);
	rc = load_all(argv + 1, n, in, !g_strcmp0(nodes, "cxl"), &ko);
	if (rc) {
		input_free(in, n);
		return rc;
	}

	if (out) {
		dir = g_strdup(out);
	} else {
		g_autofree char *stamp = run_stamp_new();
		g_autofree char *name = g_strdup_printf("table-%s", stamp);

		dir = g_build_filename(cxlbed_path(CXLBED_RESULTS), name, NULL);
	}
	/* Like run --out: a new or empty folder, refused before anything starts. */
	if ((out && !run_out_acceptable(out, "--out", &err)) ||
	    !run_dir_make(dir, !out, &created, &err)) {
		fprintf(stderr, "cxlbed table: %s\n", err->message);
		input_free(in, n);
		return out ? 2 : 1;
	}
	name_subdirs(in, n, dir);

	topos = g_new0(const struct cb_topology *, n);
	for (guint i = 0; i < n; i++) {
		struct run_opts opts = {
			.out_dir = in[i].subdir, .timing = true, .quiet = true,
			.host_clock = host_clock, .kernel = in[i].kernel,
		};
		struct run_result *res = NULL;
		int one = runner_run(in[i].scn, in[i].topo, &opts, &res);

		topos[results->len] = in[i].topo;
		if (res)
			g_ptr_array_add(results, res);
		if (one && !rc)
			rc = one;
		if (one == 2 && !res) {
			input_free(in, n);
			return 2;	/* a run folder refused before it started */
		}
		if (one >= 128)
			break;	/* interrupted: no further boots */
	}

	t = table_build((struct run_result *const *)results->pdata, topos, results->len);
	t->run_id = g_path_get_basename(dir);
	if (!write_outputs(t, topos, results->len, dir) && !rc)
		rc = 1;
	table_print(t, stdout);
	for (guint i = 0; i < t->runs->len; i++) {
		const struct table_run *r = g_ptr_array_index(t->runs, i);

		if (!r->passed)
			printf("run %s (%s) failed: see %s/report.md\n", r->run_id,
			       r->topology, r->out_dir);
	}
	printf("\nverdict: %s   (%s: report.html, table.md, table.json, loaded-latency.svg)\n",
	       rc ? "fail" : "pass", dir);
	input_free(in, n);
	return rc;
}
