/* SPDX-License-Identifier: MIT */
/*
 * cxlbed sweep without QEMU: sweep files, the matrix, rewriting a key in
 * a topology or scenario file, the points' files and their checks, the
 * Slurm array script.
 */
#include "tap.h"
#include "error.h"
#include "sweep.h"

#include <glib/gstdio.h>

static char *data(const char *name)
{
	return g_build_filename(SRCDIR, "tests/data", name, NULL);
}

static void test_rewrite(void)
{
	const char *text = "# head\n[device mem0]\nport = rp0\nread-latency-ns = 150 # media\n\n"
			   "[device mem1]\nport = rp1\n\n# trailing comment\n[window w0]\nsize = 4G\n";
	guint m;
	g_autofree char *a = sweep_rewrite(text, "device", "mem0", "read-latency-ns", "300", &m);
	g_autofree char *b = NULL, *c = NULL, *d = NULL;

	ok(m == 1 && strstr(a, "[device mem0]\nport = rp0\nread-latency-ns = 300\n\n[device mem1]"),
	   "an existing key is replaced in its section only");
	b = sweep_rewrite(text, "device", "mem1", "read-latency-ns", "200", &m);
	ok(m == 1 && strstr(b, "[device mem1]\nport = rp1\nread-latency-ns = 200\n\n# trailing comment\n[window w0]"),
	   "a missing key is added after the section's last line");
	c = sweep_rewrite(text, "device", "*", "link-width", "4", &m);
	ok(m == 2 && strstr(c, "read-latency-ns = 150 # media\nlink-width = 4\n") &&
	   strstr(c, "port = rp1\nlink-width = 4\n"), "ID * sets every [device ...]");
	d = sweep_rewrite(text, "window", "w0", "size", "8G", &m);
	ok(m == 1 && g_str_has_suffix(d, "[window w0]\nsize = 8G\n"), "the last section, file end kept");
	g_free(sweep_rewrite(text, "switch", "sw0", "ports", "2", &m));
	is_int(m, 0, "no such section: nothing matched");
}

static void test_load_expand(void)
{
	g_autofree char *path = data("sweep-4.sweep");
	g_autoptr(GError) err = NULL;
	g_autoptr(sweep) s = sweep_load(path, &err);
	g_autofree char *tmp = g_dir_make_tmp("cxlbed-sweep-XXXXXX", NULL);
	g_autofree char *out = g_build_filename(tmp, "out", NULL);
	g_autofree char *label = NULL, *script = NULL, *topo = NULL;
	const struct sweep_point *p;

	if (!ok(s != NULL, "sweep-4.sweep loads")) {
		diag("%s", err->message);
		return;
	}
	ok(s->axes->len == 2 && s->base_is_scenario && g_str_has_suffix(s->topology, "small-llc.topo"),
	   "two axes, a scenario base, its topology");
	sweep_expand(s, out);
	is_int(s->points->len, 4, "2 x 2 = 4 points");
	p = g_ptr_array_index(s->points, 1);
	label = sweep_point_label(s, p);
	is_str(label, "media=150, link=25", "p1: the last axis varies fastest");
	ok(sweep_write_points(s, &err), "points written and checked");
	topo = g_build_filename(out, "points/p2/point.topo", NULL);
	{
		g_autofree char *text = NULL;

		g_file_get_contents(topo, &text, NULL, NULL);
		ok(text && strstr(text, "read-latency-ns = 300\nlink-latency-ns = 5\n"),
		   "p2's topology carries its values");
	}
	{
		g_autoptr(sweep) plan = sweep_load_plan(out, NULL);

		ok(plan && plan->points->len == 4 &&
		   !strcmp(((struct sweep_point *)g_ptr_array_index(plan->points, 3))->values[1], "25"),
		   "sweep.json reads back with the points' values");
	}
	script = sweep_sbatch_script(s, "/opt/cxlbed/cxlbed", (char *[]){ "--partition=cxl", NULL });
	ok(strstr(script, "#SBATCH --array=0-3\n") && strstr(script, "#SBATCH --cpus-per-task=1\n") &&
	   strstr(script, "#SBATCH --partition=cxl\n") &&
	   strstr(script, "exec '/opt/cxlbed/cxlbed' sweep --point \"$SLURM_ARRAY_TASK_ID\" "),
	   "sbatch script: array 0-3, 1 CPU per point, extra #SBATCH, the task runs its point");
	g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", tmp);
	g_spawn_command_line_sync(cmd, NULL, NULL, NULL, NULL);
}

static void test_bad(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "[vary a]\nkey = device mem0 size\nvalues = 1G\n", ":1: no [sweep] section" },
		{ "[sweep]\nscenario = sweep-small.scn\ntopology = small-llc.topo\n[vary a]\nkey = x y z\nvalues = 1\n",
		  ":1: [sweep] needs one of" },
		{ "[sweep]\ntopology = small-llc.topo\n", ":1: nothing varies" },
		{ "[sweep]\ntopology = small-llc.topo\n[vary a]\nkey = device\nvalues = 1\n",
		  ":4: [vary a] needs key = KIND ID KEY" },
		{ "[sweep]\ntopology = small-llc.topo\n[vary a]\nkey = scenario timeout\nvalues = 60\n",
		  ":4: [vary a] sets a scenario key" },
		{ "[sweep]\ntopology = small-llc.topo\n[vary a]\nkey = device mem0 size\n", ":3: [vary a] needs values" },
		{ "[sweep]\ntopology = none.topo\n[vary a]\nkey = device mem0 size\nvalues = 1\n",
		  ":2: topology '" },
	};

	g_autofree char *tmp = g_dir_make_tmp("cxlbed-sweep-XXXXXX", NULL);
	g_autofree char *dir = data("/");

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *path = g_build_filename(tmp, "bad.sweep", NULL);
		g_autoptr(GError) err = NULL;
		g_autoptr(sweep) s = NULL;
		g_auto(GStrv) parts = g_strsplit(cases[i].text, "= ", -1);
		g_autofree char *text = NULL;

		/* Files named relative to the sweep file: make them tests/data's. */
		for (guint k = 1; parts[k]; k++)
			if (g_str_has_prefix(parts[k], "sweep-small") || g_str_has_prefix(parts[k], "small-llc") ||
			    g_str_has_prefix(parts[k], "none")) {
				char *abs = g_strconcat(dir, parts[k], NULL);

				g_free(parts[k]);
				parts[k] = abs;
			}
		text = g_strjoinv("= ", parts);
		g_file_set_contents(path, text, -1, NULL);
		s = sweep_load(path, &err);
		ok(!s && err && err->code == CXLBED_ERROR_INPUT && strstr(err->message, cases[i].want),
		   "bad sweep %zu: %s", i, cases[i].want);
		if (err && !strstr(err->message, cases[i].want))
			diag("got: %s", err->message);
		g_remove(path);
	}
	g_rmdir(tmp);
}

int main(void)
{
	plan(20);
	test_rewrite();
	test_load_expand();
	test_bad();
	return tap_failed ? 1 : 0;
}
