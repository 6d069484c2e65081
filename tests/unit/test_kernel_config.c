/* SPDX-License-Identifier: MIT */
/*
 * A guest kernel's .config against what cxlbed needs, what a kernel
 * decides (versions, link rule, policies), and a kernel without CXL
 * support refused before anything is built, at the line that named it.
 * The configs are Debian's own (the default image's, build/guest/config)
 * and a copy of it with the CXL stack switched off.
 */
#define SCENARIO_TEST_OWN_BAD	/* none here: refusals come from the kernel */
#include "scenario_test.h"
#include "run/guest_kernel.h"
#include "run/kernel_config.h"
#include "run/kernel_features.h"
#include "run/run_input.h"

#include <glib/gstdio.h>
#include <unistd.h>

static char *debian_config(void)
{
	g_autofree char *path = g_build_filename(SRCDIR, "build/guest/config", NULL);
	char *text = NULL;

	return g_file_get_contents(path, &text, NULL, NULL) ? text : NULL;
}

/* @text with option NAME's line replaced by @line (NULL: removed). */
static char *edit(const char *text, const char *name, const char *line)
{
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	g_autofree char *set = g_strdup_printf("CONFIG_%s=", name);
	g_autofree char *unset = g_strdup_printf("# CONFIG_%s is not set", name);
	GString *out = g_string_new(NULL);

	for (char **l = lines; *l; l++) {
		if (g_str_has_prefix(*l, set) || !strcmp(*l, unset)) {
			if (line)
				g_string_append_printf(out, "%s\n", line);
			continue;
		}
		g_string_append_printf(out, "%s%s", *l, l[1] ? "\n" : "");
	}
	return g_string_free(out, FALSE);
}

/* The line number of the first line of @text starting with @prefix. */
static int line_of(const char *text, const char *prefix)
{
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);

	for (int i = 0; lines[i]; i++)
		if (g_str_has_prefix(lines[i], prefix))
			return i + 1;
	return 0;
}

/* Debian's config with the CXL stack and the agent's port switched off. */
static char *cxl_less(const char *deb)
{
	char *a = edit(deb, "CXL_REGION", "# CONFIG_CXL_REGION is not set");
	char *b = edit(a, "CXL_BUS", NULL);
	char *c = edit(b, "DEV_DAX_KMEM", "# CONFIG_DEV_DAX_KMEM is not set");
	char *d = edit(c, "VIRTIO_CONSOLE", "CONFIG_VIRTIO_CONSOLE=m");
	char *e = edit(d, "MODULE_SIG_FORCE", "CONFIG_MODULE_SIG_FORCE=y");

	g_free(a);
	g_free(b);
	g_free(c);
	g_free(d);
	return e;
}

static void parse(void)
{
	g_autoptr(kconfig) k = kconfig_parse("c", "# comment\nCONFIG_A=y\n# CONFIG_B is not set\n"
					     "CONFIG_C=m\nCONFIG_S=\"gcc 14\"\n");
	int line;

	ok(!strcmp(kconfig_get(k, "A", &line), "y") && line == 2, "CONFIG_A=y at line 2");
	ok(!strcmp(kconfig_get(k, "B", &line), "n") && line == 3, "'is not set' reads as n");
	ok(kconfig_enabled(k, "C") && !kconfig_enabled(k, "B") && !kconfig_enabled(k, "Z"),
	   "y and m are enabled, n and absent are not");
	ok(!strcmp(kconfig_get(k, "S", NULL), "gcc 14") && !kconfig_get(k, "Z", &line) &&
	   line == 0, "strings lose their quotes; an absent option is NULL at line 0");
}

static void debian(const char *deb)
{
	g_autoptr(kconfig) k = kconfig_parse("debian", deb);
	g_autofree char *missing = kconfig_missing(k, true);

	ok(!missing, "Debian's config has all cxlbed needs, pmem included");
	if (missing)
		diag("  %s", missing);
}

static void without_cxl(const char *deb)
{
	g_autofree char *text = cxl_less(deb);
	g_autoptr(kconfig) k = kconfig_parse("nocxl.config", text);
	g_autofree char *missing = kconfig_missing(k, false);
	g_autofree char *region = g_strdup_printf("CONFIG_CXL_REGION is not set (nocxl.config:%d; "
						  "needed =y)", line_of(text, "# CONFIG_CXL_REGION "));
	g_autofree char *kmem = g_strdup_printf("CONFIG_DEV_DAX_KMEM is not set (nocxl.config:%d; "
						"needed =y or =m)",
						line_of(text, "# CONFIG_DEV_DAX_KMEM "));
	g_autofree char *virtio = g_strdup_printf("CONFIG_VIRTIO_CONSOLE=m (nocxl.config:%d; "
						  "needed =y, built in)",
						  line_of(text, "CONFIG_VIRTIO_CONSOLE="));
	g_autofree char *sig = g_strdup_printf("CONFIG_MODULE_SIG_FORCE=y (nocxl.config:%d) "
					       "must not be set",
					       line_of(text, "CONFIG_MODULE_SIG_FORCE="));

	ok(missing != NULL, "a config without the CXL stack lacks what cxlbed needs");
	if (!missing)
		missing = g_strdup("");
	ok(strstr(missing, region) != NULL, "CXL_REGION: not set, at its line");
	ok(strstr(missing, "CONFIG_CXL_BUS is missing from nocxl.config") != NULL,
	   "CXL_BUS: missing, named");
	ok(strstr(missing, kmem) != NULL, "DEV_DAX_KMEM: not set, =y or =m would do");
	ok(strstr(missing, virtio) != NULL, "VIRTIO_CONSOLE as a module: must be built in");
	ok(strstr(missing, sig) != NULL, "MODULE_SIG_FORCE: the unsigned clock module");
	{
		g_auto(GStrv) lines = g_strsplit(missing, "\n", -1);

		ok(g_strv_length(lines) == 5, "exactly those five lines");
	}
	if (!strstr(missing, region))
		diag("  %s", missing);
}

static void features(void)
{
	int v[3];
	g_autofree char *old = kernel_policy_unavailable(KERNEL_POLICY_DAMON_AUTO,
							 "6.12.95+deb12-amd64", NULL);
	g_autofree char *none = kernel_policy_unavailable(KERNEL_POLICY_INTERLEAVE_AUTO,
							  "7.3.4+deb13-amd64", NULL);
	g_autoptr(kconfig) nodamon = kconfig_parse("c", "# CONFIG_DAMON_SYSFS is not set\n"
						   "CONFIG_DAMON_PADDR=y\n");
	g_autofree char *cfg = kernel_policy_unavailable(KERNEL_POLICY_DAMON_AUTO,
							 "7.3.4+deb13-amd64", nodamon);
	struct kernel_link_rule r = kernel_link_rule_parse("ns", "yes");
	struct kernel_link_rule u = kernel_link_rule_parse(NULL, "no");

	ok(kernel_version("7.3.4+deb13-amd64", v) && v[0] == 7 && v[1] == 3 && v[2] == 4 &&
	   kernel_version("6.16", v) && v[2] == 0 && !kernel_version("x6.1", v),
	   "versions from release strings");
	ok(kernel_at_least("6.16.0", 6, 16) && kernel_at_least("7.0.1", 6, 16) &&
	   !kernel_at_least("6.12.117+deb13-amd64", 6, 16), "6.16 and 7.0 are 6.16 or later");
	ok(old && strstr(old, "Linux 6.16 or later") && strstr(old, "6.12.95"),
	   "damon-auto on 6.12: unavailable, saying why");
	ok(!none, "interleave-auto on 7.3: available");
	ok(cfg && strstr(cfg, "CONFIG_DAMON_SYSFS"), "damon-auto without DAMON's sysfs: unavailable");
	ok(r.ns == KT_YES && r.width == KT_YES && u.ns == KT_UNKNOWN && u.width == KT_NO,
	   "the link rule from kernel.env");
}

/* A build tree with @config; what prepare.sh's config step looks at. */
static char *tree_with(const char *name, const char *config)
{
	char *tree = g_build_filename(dir, name, NULL);
	g_autofree char *boot = g_build_filename(tree, "arch/x86/boot", NULL);
	g_autofree char *inc = g_build_filename(tree, "include/config", NULL);
	g_autofree char *f = NULL;

	g_mkdir_with_parents(boot, 0755);
	g_mkdir_with_parents(inc, 0755);
	f = g_build_filename(tree, ".config", NULL);
	g_file_set_contents(f, config, -1, NULL);
	g_free(f);
	f = g_build_filename(inc, "kernel.release", NULL);
	g_file_set_contents(f, "6.12.95-test\n", -1, NULL);
	g_free(f);
	f = g_build_filename(boot, "bzImage", NULL);
	g_file_set_contents(f, "not a kernel", -1, NULL);
	g_free(f);
	f = g_build_filename(tree, "modules.order", NULL);
	g_file_set_contents(f, "drivers/cxl/cxl_pci.o\n", -1, NULL);
	return tree;
}

/* The whole refusal: scenario -> guest_kernel_find -> FILE:LINE, options. */
static void refused_before_boot(const char *deb)
{
	g_autofree char *text = cxl_less(deb);
	g_autofree char *bad_tree = tree_with("nocxl", text);
	g_autofree char *good_tree = tree_with("good", deb);
	g_autofree char *scn = NULL, *want = NULL;
	g_autoptr(GError) err = NULL;
	g_autoptr(scenario) s = NULL;
	g_autoptr(cb_topology) t = NULL;
	g_autoptr(guest_kernel) k = NULL;

	g_autofree char *topo = g_build_filename(SRCDIR, "topologies/default.topo", NULL);
	g_autofree char *head = g_strdup_printf("[scenario]\ntopology = %s\n", topo);
	g_autofree char *text2 = g_strdup_printf("%s\nkernel = nocxl\n", head);

	scn = write_file("k.scn", text2);
	ok(run_input_load(scn, &s, &t, &err), "a scenario naming a CXL-less kernel loads");
	if (err)
		diag("  %s", err->message);
	g_clear_error(&err);
	k = s ? guest_kernel_find(scenario_kernel(s, t), t, false, &err) : NULL;
	want = g_strdup_printf("%s:4: kernel = %s: kernel 6.12.95-test lacks what cxlbed needs:",
			       scn, bad_tree);
	ok(!k && err && err->code == CXLBED_ERROR_INPUT && g_str_has_prefix(err->message, want),
	   "refused before anything is built, at the kernel key's FILE:LINE");
	ok(err && strstr(err->message, "CONFIG_CXL_REGION is not set") &&
	   strstr(err->message, "CONFIG_CXL_BUS is missing") && strstr(err->message, "nocxl/.config:"),
	   "... naming what is missing, at the lines of the tree's own .config");
	if (err)
		diag("  %s", err->message);
	g_clear_error(&err);
	scenario_free(g_steal_pointer(&s));
	g_clear_pointer(&t, topology_free);
	g_free(text2);
	text2 = g_strdup_printf("%skernel = good\n", head);
	scn = (g_free(scn), write_file("k.scn", text2));
	if (run_input_load(scn, &s, &t, &err))
		k = guest_kernel_find(scenario_kernel(s, t), t, false, &err);
	ok(k && !g_strcmp0(k->release, "6.12.95-test") && !g_strcmp0(k->source, "user") &&
	   !g_strcmp0(k->path, good_tree) && k->link.ns == KT_UNKNOWN,
	   "Debian's config in a tree: accepted, release and source read back, link rule "
	   "unknown (no sources, before 7.4)");
	if (err)
		diag("  %s", err->message);
}

int main(void)
{
	g_autofree char *deb = debian_config();
	g_autofree char *guest = g_build_filename(SRCDIR, "guest", NULL);
	g_autofree char *link = NULL;

	scratch_dir("cxlbed-kconfig-XXXXXX");
	/* the scripts from the source tree, what they write under the scratch folder */
	link = g_build_filename(dir, "guest", NULL);
	if (symlink(guest, link))
		return printf("Bail out! symlink %s\n", link), 1;
	g_setenv("CXLBED_ROOT", dir, TRUE);
	if (!deb)
		plan_skip_all("no build/guest/config: run make (Debian's config of the default kernel)");
	plan(22);
	parse();
	debian(deb);
	without_cxl(deb);
	features();
	refused_before_boot(deb);
	/* what the config step left (kernel folders) goes with the scratch folder */
	{
		g_autofree char *cmd = g_strdup_printf("rm -rf '%s/build' '%s/nocxl' '%s/good'",
						       dir, dir, dir);

		if (system(cmd))
			diag("cleaning %s failed", dir);
		g_unlink(link);
	}
	return done_testing();
}
