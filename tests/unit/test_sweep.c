/* SPDX-License-Identifier: MIT */
/*
 * cxlbed sweep without QEMU: sweep files, the matrix and its limit,
 * rewriting a key in a topology or scenario file, the points' files and
 * their checks (those of `cxlbed run`), the Slurm array script, and every
 * tests/data/bad/ *.sweep refused at its marked line (bad_files.h).
 */
#include "tap.h"
#include "bad_files.h"
#include "common/error.h"
#include "sweep/sweep.h"

#include <glib/gstdio.h>

static char *data(const char *name)
{
	return g_build_filename(SRCDIR, "tests/data", name, NULL);
}

static void rm_tree(const char *dir)
{
	g_autofree char *q = g_shell_quote(dir);
	g_autofree char *cmd = g_strdup_printf("rm -rf %s", q);

	g_spawn_command_line_sync(cmd, NULL, NULL, NULL, NULL);
}

/* What `cxlbed sweep --dry-run` does: load, expand, write and check every point. */
static bool expand_and_check(const char *path, GError **error)
{
	g_autofree char *tmp = g_dir_make_tmp("cxlbed-sweep-XXXXXX", NULL);
	g_autofree char *out = g_build_filename(tmp, "out", NULL);
	g_autoptr(sweep) s = sweep_load(path, error);
	bool good = false;

	if (s) {
		sweep_expand(s, out);
		good = sweep_write_points(s, error);
	}
	/* a refused sweep leaves nothing behind */
	if (!good && g_file_test(out, G_FILE_TEST_EXISTS))
		ok(0, "%s: refused, but left %s", path, out);
	rm_tree(tmp);
	return good;
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
	   strstr(script, "#SBATCH --mem=1537M\n") && strstr(script, "#SBATCH --partition=cxl\n") &&
	   strstr(script, "exec '/opt/cxlbed/cxlbed' sweep --point \"$SLURM_ARRAY_TASK_ID\" "),
	   "sbatch script: array 0-3, 1 CPU and 1537M per point (docs/sweeps.md's example), "
	   "extra #SBATCH, the task runs its point");
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
		{ "[sweep]\ntopology = small-llc.topo\n[vary a]\nkey = disk d0 size\nvalues = 1\n",
		  ":4: [vary a]: no section kind 'disk'" },
		{ "[sweep]\ntopology = small-llc.topo\n[vary a]\nkey = device size\nvalues = 1\n",
		  ":4: [vary a]: [device NAME] sections have names" },
		{ "[sweep]\nscenario = sweep-small.scn\n[vary a]\nkey = scenario s0 timeout\nvalues = 1\n",
		  ":4: [vary a]: [scenario] has no name" },
		{ "[sweep]\ntopology = small-llc.topo\n[vary a]\nkey = device mem0 a=b\nvalues = 1\n",
		  ":4: [vary a]: 'a=b' is not a key" },
		{ "[sweep]\ntopology = small-llc.topo\n[vary a]\nkey = device [x] size\nvalues = 1\n",
		  ":4: [vary a]: '[x]' is not a section name" },
		{ "[sweep]\nscenario = sweep-small.scn\n[vary a]\nkey = scenario topology\nvalues = x.topo\n",
		  ":4: [vary a]: each point's scenario runs the point's own topology" },
		{ "[sweep]\ntopology = small-llc.topo\n[vary a]\nkey = device mem0 size\nvalues = 1\n"
		  "[vary a]\nkey = device mem0 link-gbps\nvalues = 1\n", ":6: [vary a] twice (first at line 3)" },
		{ "[sweep]\ntopology = small-llc.topo\n[vary a]\nkey = device * size\nvalues = 1\n"
		  "[vary b]\nkey = device mem0 size\nvalues = 1\n",
		  ":7: [vary b] sets a key [vary a] (line 4) sets too" },
		{ "[sweep]\ntopology = small-llc.topo\n[vary a]\nkey = device mem0 size\nvalues = | \n",
		  ":5: [vary a]: values holds no value" },
		{ "[sweep]\ntopology = small-llc.topo\n[vary a]\nkey = device mem0 size\nvalues = 1G |;2G\n",
		  ":5: [vary a]: value ';2G' would read as a comment" },
		{ "[sweep]\nname = a/b\ntopology = small-llc.topo\n[vary a]\nkey = device mem0 size\nvalues = 1\n",
		  ":2: name: 'a/b' is not a name" },
		{ "[sweep]\ntopology = bad/syntax.topo\n[vary a]\nkey = device mem0 size\nvalues = 1\n",
		  ":2: topology: " },
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
			    g_str_has_prefix(parts[k], "none") || g_str_has_prefix(parts[k], "bad/")) {
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

/* A sweep file of @axes axes of @n values each, in @dir. */
static char *big_sweep(const char *dir, guint axes, guint n)
{
	g_autofree char *topo = data("small-llc.topo");
	GString *t = g_string_new(NULL);
	char *path = g_build_filename(dir, "big.sweep", NULL);

	g_string_append_printf(t, "[sweep]\ntopology = %s\n", topo);
	for (guint a = 0; a < axes; a++) {
		g_string_append_printf(t, "[vary a%u]\nkey = host h0 k%u\nvalues =", a, a);
		for (guint v = 0; v < n; v++)
			g_string_append_printf(t, " %u", v);
		g_string_append_c(t, '\n');
	}
	g_file_set_contents(path, t->str, -1, NULL);
	g_string_free(t, TRUE);
	return path;
}

/* The point limit: the product, refused at load, with the sizes; no overflow. */
static void test_limit(void)
{
	g_autofree char *tmp = g_dir_make_tmp("cxlbed-sweep-XXXXXX", NULL);
	g_autoptr(GError) err = NULL, err2 = NULL, err3 = NULL;
	g_autofree char *two = big_sweep(tmp, 2, 65537);
	g_autoptr(sweep) s = sweep_load(two, &err);
	g_autofree char *four = NULL, *edge = NULL;
	g_autoptr(sweep) s4 = NULL, se = NULL;

	if (!ok(!s && err && err->code == CXLBED_ERROR_INPUT &&
		strstr(err->message, "big.sweep:5: [vary a0]: the matrix has 65537 x 65537 = "
		       "4295098369 points, more than 4096"),
		"2 axes of 65537 values: refused at load naming the first axis past the limit"))
		diag("got: %s", err ? err->message : "(loaded)");
	four = big_sweep(tmp, 4, 65537);
	s4 = sweep_load(four, &err2);
	ok(!s4 && err2 && strstr(err2->message, "65537 x 65537 x 65537 x 65537 points, more than"),
	   "4 axes of 65537 (a product past 2^64): refused, no wrapped total");
	edge = big_sweep(tmp, 1, SWEEP_MAX_POINTS);
	se = sweep_load(edge, &err3);
	ok(se != NULL, "exactly SWEEP_MAX_POINTS points load");
	if (se) {
		sweep_expand(se, tmp);
		is_int(se->points->len, SWEEP_MAX_POINTS, "and expand to that many");
	} else {
		ok(0, "and expand to that many");
	}
	rm_tree(tmp);
}

/* A point's texts: scenario-file kinds go to the scenario; values read back. */
static void test_point_texts(void)
{
	g_autofree char *tmp = g_dir_make_tmp("cxlbed-sweep-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(tmp, "ev.sweep", NULL);
	g_autofree char *scn_path = data("faults-none.scn");
	g_autofree char *text = g_strdup_printf(
		"[sweep]\nscenario = %s\n[vary host]\nkey = event p0 host\nvalues = h7\n"
		"[vary media]\nkey = pool * read-latency-ns\nvalues = 180 | 300\n", scn_path);
	g_autoptr(GError) err = NULL;
	g_autoptr(sweep) s = NULL;
	g_autofree char *topo_base = NULL, *scn_base = NULL, *topo = NULL, *scn = NULL;
	const struct sweep_point *p;

	g_file_set_contents(path, text, -1, NULL);
	s = sweep_load(path, &err);
	if (!ok(s != NULL, "a sweep of an event's host and every pool's latency loads")) {
		diag("%s", err->message);
		rm_tree(tmp);
		return;
	}
	sweep_expand(s, tmp);
	p = g_ptr_array_index(s->points, 1);
	g_file_get_contents(s->base, &scn_base, NULL, NULL);
	g_file_get_contents(s->topology, &topo_base, NULL, NULL);
	if (!sweep_point_texts(s, p, topo_base, scn_base, &topo, &scn, &err))
		diag("%s", err->message);
	ok(topo && scn &&
	   strstr(scn, "[event p0]\nwhen = start\naction = bind\nld = p0.ld0\nhost = h7\n") &&
	   strstr(scn, "topology = point.topo") && !strstr(topo, "h7") &&
	   strstr(topo, "[pool p3]\nsize = 256M\nld-size = 256M\npreset = cxl-asic\n"
		  "read-latency-ns = 300\n") && !strstr(topo, "read-latency-ns = 250"),
	   "[event] keys are set in the scenario, [pool *] keys in the topology");
	rm_tree(tmp);
}

/*
 * A base scenario `cxlbed run` refuses (an event binds to host h9) under
 * a sweep of a topology key: every point is refused as run refuses it,
 * though no axis touches the event.
 */
static void test_base_refused(void)
{
	g_autofree char *tmp = g_dir_make_tmp("cxlbed-sweep-XXXXXX", NULL);
	g_autofree char *scn = g_build_filename(tmp, "h9.scn", NULL);
	g_autofree char *path = g_build_filename(tmp, "h9.sweep", NULL);
	g_autofree char *topo = g_build_filename(SRCDIR, "topologies/faults-rep.topo", NULL);
	g_autofree char *scn_text = g_strdup_printf(
		"[scenario]\ntopology = %s\n[event p0]\nwhen = start\naction = bind\n"
		"ld = p0.ld0\nhost = h9\n", topo);
	g_autofree char *text = g_strdup_printf(
		"[sweep]\nscenario = %s\n[vary media]\nkey = pool p0 read-latency-ns\n"
		"values = 200 300\n", scn);
	g_autoptr(GError) err = NULL;

	g_file_set_contents(scn, scn_text, -1, NULL);
	g_file_set_contents(path, text, -1, NULL);
	if (!ok(!expand_and_check(path, &err) && err && err->code == CXLBED_ERROR_INPUT &&
		strstr(err->message, "h9.sweep:5: point p0 (media=200): ") &&
		strstr(err->message, "host = h9: no such host"),
		"a base event on host h9: point p0 refused as `cxlbed run` refuses it"))
		diag("got: %s", err ? err->message : "(passed)");
	rm_tree(tmp);
}

/* The array script: --mem, logs per job and task, the most any point asks. */
static void test_sbatch(void)
{
	g_autofree char *tmp = g_dir_make_tmp("cxlbed-sweep-XXXXXX", NULL);
	g_autofree char *out = g_build_filename(tmp, "out", NULL);
	g_autofree char *path = g_build_filename(tmp, "hosts.sweep", NULL);
	g_autofree char *scn_path = data("sweep-small.scn");
	g_autofree char *text = g_strdup_printf(
		"[sweep]\nscenario = %s\n[vary mem]\nkey = host h0 memory\nvalues = 1G 2G\n"
		"[vary cpus]\nkey = host h0 cpus\nvalues = 2 1\n"
		"[vary time]\nkey = scenario timeout\nvalues = 60 3000\n", scn_path);
	g_autoptr(GError) err = NULL;
	g_autoptr(sweep) s = NULL;
	g_autofree char *script = NULL, *mine = NULL, *expect = NULL;

	g_file_set_contents(path, text, -1, NULL);
	s = sweep_load(path, &err);
	if (s) {
		sweep_expand(s, out);
		if (!sweep_write_points(s, &err))
			s = (sweep_free(s), NULL);
	}
	if (!ok(s != NULL, "a sweep of memory, cpus and timeout expands")) {
		diag("%s", err->message);
		rm_tree(tmp);
		return;
	}
	script = sweep_sbatch_script(s, "/opt/cxlbed/cxlbed", NULL);
	/* 2G + 256M device + 256M QEMU + (2 x (48K + 2M) + 1M) / 64 x 16 = 1.3M of cache tags */
	ok(strstr(script, "#SBATCH --mem=2562M\n") && strstr(script, "#SBATCH --cpus-per-task=2\n") &&
	   strstr(script, "#SBATCH --time=55\n"),
	   "memory, CPUs and time: the most any point needs (2G + 512M + cache tags, 2, 50 + 5 min)");
	expect = g_strdup_printf("#SBATCH --output=%s/points/slurm-%%A_%%a.log\n", s->out);
	ok(strstr(script, expect) != NULL, "logs named by job and task (%%A_%%a)");
	mine = sweep_sbatch_script(s, "/opt/cxlbed/cxlbed",
				   (char *[]){ "--mem=8G", "--time=5", NULL });
	ok(!strstr(mine, "--mem=2562M") && strstr(mine, "#SBATCH --mem=8G\n") &&
	   !strstr(mine, "--time=55") && strstr(mine, "--cpus-per-task=2"),
	   "an --sbatch --mem or --time replaces the script's own");
	g_free(mine);
	mine = sweep_sbatch_script(s, "/opt/cxlbed/cxlbed", (char *[]){ "--mem-per-cpu=2G", NULL });
	ok(!strstr(mine, "--mem=") && strstr(mine, "#SBATCH --mem-per-cpu=2G\n"),
	   "so does --mem-per-cpu (Slurm takes one of the two)");
	g_clear_error(&err);
	ok(!sweep_slurm_check("/tmp/a b", NULL, &err) && err->code == CXLBED_ERROR_INPUT &&
	   strstr(err->message, "--out /tmp/a b: with --slurm"), "--slurm: a folder with a blank is refused");
	g_clear_error(&err);
	ok(!sweep_slurm_check("/tmp/%A", NULL, &err), "--slurm: a folder with %% is refused");
	g_clear_error(&err);
	ok(!sweep_slurm_check("/tmp/x", (char *[]){ "--mem=1G\necho", NULL }, &err) &&
	   strstr(err->message, "--sbatch: '--mem=1G\\x0aecho' holds a control character"),
	   "--sbatch with a newline is refused, shown printable");
	ok(sweep_slurm_check("/srv/cxl/sweep-a_1.b", (char *[]){ "--partition=cxl", NULL }, NULL),
	   "an ordinary folder and --sbatch pass");
	rm_tree(tmp);
}

/*
 * The guest kernel as an axis (docs/kernels.md): the same scenario on
 * Debian's 6.12 and 7.3 and a build tree, each point's scenario naming
 * its kernel; a path relative to the sweep file (or to the base scenario)
 * made absolute, since the point's file lies elsewhere; a value that is
 * no kernel refused at the axis's values line.
 */
static void test_kernel_axis(void)
{
	g_autofree char *tmp = g_dir_make_tmp("cxlbed-sweep-XXXXXX", NULL);
	g_autofree char *tree = g_build_filename(tmp, "linux", NULL);
	g_autofree char *cfg = g_build_filename(tree, ".config", NULL);
	g_autofree char *scn = g_build_filename(tmp, "k.scn", NULL);
	g_autofree char *path = g_build_filename(tmp, "k.sweep", NULL);
	g_autofree char *bad_path = g_build_filename(tmp, "bad.sweep", NULL);
	g_autofree char *topo = g_build_filename(SRCDIR, "topologies/default.topo", NULL);
	g_autofree char *scn_text = g_strdup_printf("[scenario]\ntopology = %s\nkernel = linux\n",
						    topo);
	g_autofree char *text = g_strdup_printf("[sweep]\nscenario = %s\n[vary kernel]\n"
						"key = scenario kernel\nvalues = 6.12 7.3 linux\n", scn);
	g_autofree char *bad_text = g_strdup_printf("[sweep]\nscenario = %s\n[vary kernel]\n"
						    "key = scenario kernel\nvalues = 7.3 7\n", scn);
	g_autofree char *base = NULL, *topo_base = NULL, *want = NULL;
	g_autoptr(GError) err = NULL;
	g_autoptr(sweep) s = NULL;
	char *t[3] = { 0 }, *c[3] = { 0 };

	g_mkdir_with_parents(tree, 0755);
	g_file_set_contents(cfg, "CONFIG_MODULES=y\n", -1, NULL);
	g_file_set_contents(scn, scn_text, -1, NULL);
	g_file_set_contents(path, text, -1, NULL);
	g_file_set_contents(bad_path, bad_text, -1, NULL);
	s = sweep_load(path, &err);
	if (s)
		sweep_expand(s, tmp);
	if (!ok(s && s->points->len == 3, "a sweep over the kernel loads: three points")) {
		diag("%s", err ? err->message : "?");
		for (int i = 0; i < 3; i++)
			ok(0, "(not loaded)");
		rm_tree(tmp);
		return;
	}
	g_file_get_contents(s->base, &base, NULL, NULL);
	g_file_get_contents(s->topology, &topo_base, NULL, NULL);
	for (int i = 0; i < 3; i++)
		if (!sweep_point_texts(s, g_ptr_array_index(s->points, i), topo_base, base,
				       &t[i], &c[i], &err))
			diag("%s", err->message);
	want = g_strdup_printf("kernel = %s\n", tree);
	ok(c[0] && strstr(c[0], "kernel = 6.12\n") && c[1] && strstr(c[1], "kernel = 7.3\n"),
	   "p0 runs Debian's 6.12, p1 its 7.3");
	ok(c[2] && strstr(c[2], want), "p2's tree, given relative to the sweep file, absolute");
	for (int i = 0; i < 3; i++) {
		g_free(t[i]);
		g_free(c[i]);
	}
	g_clear_error(&err);
	if (!ok(!expand_and_check(bad_path, &err) && err && err->code == CXLBED_ERROR_INPUT &&
		strstr(err->message, "bad.sweep:5: point p1 (kernel=7): ") &&
		strstr(err->message, "kernel = '7': not a Debian version line"),
		"kernel = 7 in a point: refused at the axis's values line"))
		diag("got: %s", err ? err->message : "(passed)");
	rm_tree(tmp);
}

int main(void)
{
	g_autoptr(GPtrArray) bad = bad_files(".sweep");

	plan(bad->len + 20 + 12 + 4 + 2 + 1 + 9 + 4);
	for (guint i = 0; i < bad->len; i++)
		check_bad_file(g_ptr_array_index(bad, i), expand_and_check);
	test_rewrite();
	test_load_expand();
	test_bad();
	test_limit();
	test_point_texts();
	test_base_refused();
	test_sbatch();
	test_kernel_axis();
	return tap_failed ? 1 : 0;
}
