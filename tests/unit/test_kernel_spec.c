/* SPDX-License-Identifier: MIT */
/* `kernel =` in a scenario or topology, --kernel: which guest kernel. */
#include "scenario_test.h"
#include "topology/kernel_spec.h"
#include "topology/topology.h"

#include <glib/gstdio.h>

static void versions(void)
{
	ok(cb_kernel_is_version("6.12") && cb_kernel_is_version("7.3") &&
	   cb_kernel_is_version("7.3.4"), "6.12, 7.3 and 7.3.4 are version lines");
	ok(!cb_kernel_is_version("7") && !cb_kernel_is_version("7.3.4.1") &&
	   !cb_kernel_is_version("7.x") && !cb_kernel_is_version("v7.3") &&
	   !cb_kernel_is_version("7.") && !cb_kernel_is_version(".3") &&
	   !cb_kernel_is_version("") && !cb_kernel_is_version("12345.1"),
	   "7, 7.3.4.1, 7.x, v7.3, 7., .3, empty and a five-digit part are not");
}

/* A folder that looks like a kernel build tree (a .config is what parse wants). */
static char *fake_tree(const char *name, const char *config)
{
	char *tree = g_build_filename(dir, name, NULL);
	g_autofree char *cfg = g_build_filename(tree, ".config", NULL);

	g_mkdir_with_parents(tree, 0755);
	g_file_set_contents(cfg, config, -1, NULL);
	return tree;
}

static void in_scenario(void)
{
	g_autoptr(GError) err = NULL;
	g_autofree char *tree = fake_tree("linux", "CONFIG_MODULES=y\n");
	g_autofree char *bz = write_file("bzImage", "not really a kernel");
	g_autofree char *path = NULL;
	struct scenario *s;

	g_free(write_file("t.topo", "[host h0]\n"));
	path = write_file("k.scn", "[scenario]\ntopology = t.topo\nkernel = 7.3\n");
	s = scenario_load(path, &err);
	ok(s && s->kernel && s->kernel->kind == CB_KERNEL_DEBIAN &&
	   !strcmp(s->kernel->line, "7.3") && s->kernel->line_no == 3 &&
	   !strcmp(s->kernel->file, path), "kernel = 7.3: Debian's 7.3, its line kept");
	scenario_free(s);

	g_free(path);
	path = write_file("k.scn", "[scenario]\ntopology = t.topo\nkernel = linux\n");
	s = scenario_load(path, &err);
	ok(s && s->kernel && s->kernel->kind == CB_KERNEL_TREE &&
	   !strcmp(s->kernel->path, tree), "kernel = linux: the build tree beside the file");
	scenario_free(s);

	g_free(path);
	path = write_file("k.scn", "[scenario]\ntopology = t.topo\nkernel = bzImage\n"
			  "kernel-modules = linux\n");
	s = scenario_load(path, &err);
	ok(s && s->kernel && s->kernel->kind == CB_KERNEL_IMAGE &&
	   !strcmp(s->kernel->path, bz) && !strcmp(s->kernel->modules, tree),
	   "kernel = bzImage + kernel-modules: a bzImage and its modules folder");
	scenario_free(s);

	g_free(path);
	path = write_file("k.scn", "[scenario]\ntopology = t.topo\n");
	s = scenario_load(path, &err);
	ok(s && !s->kernel && !scenario_kernel(s, NULL), "no kernel key: the default kernel");
	scenario_free(s);
}

static void refused(void)
{
	g_autofree char *nocfg = g_build_filename(dir, "empty", NULL);

	g_mkdir_with_parents(nocfg, 0755);
	g_free(write_file("bzImage", "x"));
	g_free(write_file("t.topo", "[host h0]\n"));
	bad("a bare major", "[scenario]\ntopology = t.topo\n\nkernel = 7\n", 4,
	    "not a Debian version line");
	bad("four numbers", "[scenario]\ntopology = t.topo\nkernel = 7.3.4.1\n", 3,
	    "not a Debian version line");
	bad("a path that is not there", "[scenario]\ntopology = t.topo\nkernel = nowhere/linux\n",
	    3, "no such file or folder");
	bad("a folder without .config", "[scenario]\ntopology = t.topo\nkernel = empty\n", 3,
	    "without .config");
	bad("a bzImage without its modules", "[scenario]\ntopology = t.topo\nkernel = bzImage\n",
	    3, "give its modules folder too");
	bad("modules without a bzImage", "[scenario]\ntopology = t.topo\n\nkernel-modules = empty\n",
	    4, "give the bzImage too");
	bad("modules with a Debian line", "[scenario]\ntopology = t.topo\nkernel = 7.3\n"
	    "kernel-modules = empty\n", 4, "goes with a bzImage");
	bad("an empty value", "[scenario]\ntopology = t.topo\nkernel =\n", 3,
	    "needs a Debian version line");
}

static void in_topology(void)
{
	g_autoptr(GError) err = NULL;
	g_autofree char *path = write_file("k.topo", "[topology]\nname = k\nkernel = 6.12\n"
					   "[host h0]\n");
	g_autofree char *bad_path = write_file("b.topo", "[topology]\n\nkernel = 6\n[host h0]\n");
	g_autofree char *scn_path = NULL;
	g_autoptr(cb_topology) t = topology_load(path, &err);
	g_autoptr(cb_topology) b = NULL;
	struct scenario *s;

	ok(t && t->kernel && t->kernel->kind == CB_KERNEL_DEBIAN &&
	   !strcmp(t->kernel->line, "6.12") && t->kernel->line_no == 3,
	   "[topology] kernel = 6.12");
	if (err)
		diag("  %s", err->message);
	g_clear_error(&err);
	b = topology_load(bad_path, &err);
	ok(!b && err && strstr(err->message, "b.topo:3: kernel = '6'") != NULL,
	   "a bad kernel in a topology is refused at its line");
	if (err)
		diag("  %s", err->message);
	g_clear_error(&err);
	scn_path = write_file("k.scn", "[scenario]\ntopology = k.topo\nkernel = 7.3\n");
	s = scenario_load(scn_path, &err);
	ok(s && t && !strcmp(scenario_kernel(s, t)->line, "7.3"),
	   "the scenario's kernel wins over the topology's");
	if (s) {
		cb_kernel_spec_free(s->kernel);
		s->kernel = NULL;
	}
	ok(s && t && scenario_kernel(s, t) == t->kernel, "without one, the topology's");
	scenario_free(s);
}

static void on_command_line(void)
{
	g_autoptr(GError) err = NULL;
	g_autofree char *tree = fake_tree("src", "CONFIG_MODULES=y\n");
	g_autoptr(cb_kernel_spec) k = cb_kernel_spec_parse("src", NULL, dir, NULL, 0, 0, &err);
	g_autoptr(cb_kernel_spec) v = cb_kernel_spec_parse("7.3.4", NULL, dir, NULL, 0, 0, &err);
	g_autoptr(cb_kernel_spec) e = NULL;
	g_autofree char *where = NULL;

	ok(k && k->kind == CB_KERNEL_TREE && !strcmp(k->path, tree) && !k->file,
	   "--kernel DIR: relative to the working folder, no file");
	where = k ? cb_kernel_spec_where(k) : NULL;
	is_str(where, "--kernel", "--kernel names the place");
	ok(v && v->kind == CB_KERNEL_DEBIAN && !strcmp(v->line, "7.3.4"), "--kernel 7.3.4");
	e = cb_kernel_spec_parse("7.3.4.5", NULL, dir, NULL, 0, 0, &err);
	ok(!e && err && err->code == CXLBED_ERROR_INPUT &&
	   g_str_has_prefix(err->message, "--kernel '7.3.4.5'"),
	   "a bad --kernel is an input error that names the option");
	if (err)
		diag("  %s", err->message);
	g_clear_error(&err);
	e = cb_kernel_spec_parse("src", "src", dir, NULL, 0, 0, &err);
	ok(!e && err && g_str_has_prefix(err->message, "--kernel-modules "),
	   "--kernel-modules with a build tree names --kernel-modules");
}

int main(void)
{
	scratch_dir("cxlbed-kspec-XXXXXX");
	plan(23);
	versions();
	in_scenario();
	refused();
	in_topology();
	on_command_line();
	return done_testing();
}
