/* SPDX-License-Identifier: MIT */
/*
 * cxlbed export --libvirt without libvirt: the domain XML is well-formed,
 * its <qemu:commandline> is plan's command line less what libvirt's own
 * elements carry, in the same order, and the regions ride on the kernel
 * command line. (tests/integration/libvirt.t boots it on a real libvirtd.)
 */
#include "tap.h"
#include "qemu/argv.h"
#include "export/libvirt.h"

/* The qemu:arg values, in order, and whether the document parsed. */
static void on_start(GMarkupParseContext *c, const char *name, const char **an,
		     const char **av, gpointer data, GError **error)
{
	if (strcmp(name, "qemu:arg"))
		return;
	for (int i = 0; an[i]; i++)
		if (!strcmp(an[i], "value"))
			g_ptr_array_add(data, g_strdup(av[i]));
}

static GPtrArray *commandline(const char *xml, bool *well_formed)
{
	static const GMarkupParser p = { .start_element = on_start };
	GPtrArray *args = g_ptr_array_new_with_free_func(g_free);
	GMarkupParseContext *ctx = g_markup_parse_context_new(&p, 0, args, NULL);

	*well_formed = g_markup_parse_context_parse(ctx, xml, -1, NULL) &&
		g_markup_parse_context_end_parse(ctx, NULL);
	g_markup_parse_context_free(ctx);
	return args;
}

static int count_params(const char *xml)
{
	int n = 0;

	for (const char *p = xml; (p = strstr(p, "cxlbed.region=")); p++)
		n++;
	return n;
}

static void test_topology(const char *file, guint want_regions)
{
	g_autofree char *path = g_build_filename(SRCDIR, "topologies", file, NULL);
	g_autoptr(cb_topology) t = topology_load(path, NULL);
	const struct cb_host *h = t ? g_ptr_array_index(t->hosts, 0) : NULL;
	g_autofree char *xml = h ? libvirt_domain_xml(t, h, "/srv/exp", NULL) : NULL;
	g_autoptr(GPtrArray) args = NULL;
	g_autoptr(GPtrArray) argv = NULL;
	struct qemu_opts o;
	bool wf = false;
	guint j = 2, kept = 0, mismatch = 0;

	if (!ok(xml != NULL, "%s: domain XML built", file))
		return;
	args = commandline(xml, &wf);
	ok(wf, "%s: well-formed XML", file);
	qemu_opts_for_run(&o, "/srv/exp");
	argv = qemu_argv_build(t, h, &o, NULL);
	ok(args->len >= 2 && !strcmp(g_ptr_array_index(args, 0), "-machine") &&
	   !strcmp(g_ptr_array_index(args, 1), "cxl=on"),
	   "%s: -machine cxl=on first (the type is libvirt's)", file);
	/* Every CXL-side option of plan's argv, in order, and nothing else. */
	for (guint i = 1; i + 1 < argv->len && g_ptr_array_index(argv, i + 1); i++) {
		const char *opt = g_ptr_array_index(argv, i), *val = g_ptr_array_index(argv, i + 1);

		if (val[0] == '-' || !strcmp(opt, "-machine"))
			continue;	/* a flag, or the machine handled above */
		i++;
		if (strcmp(opt, "-device") && strcmp(opt, "-object") &&
		    strcmp(opt, "-acpitable") && strcmp(opt, "-M"))
			continue;
		if (strstr(val, "virtio-serial-pci") || strstr(val, "virtserialport"))
			continue;
		kept++;
		if (j + 1 >= args->len || strcmp(g_ptr_array_index(args, j), opt) ||
		    strcmp(g_ptr_array_index(args, j + 1), val))
			mismatch++;
		j += 2;
	}
	ok(kept > 5 && !mismatch && j == args->len,
	   "%s: qemu:commandline = plan's %u CXL options in order (%u differ, %u extra)",
	   file, kept, mismatch, args->len > j ? (args->len - j) / 2 : 0);
	is_int(count_params(xml), want_regions, "%s: one cxlbed.region= per region", file);
	ok(strstr(xml, "<feature policy='disable' name='hypervisor'/>") &&
	   strstr(xml, "<target type='virtio' name='org.cxlbed.agent'/>") &&
	   !strstr(xml, "<numa>"), "%s: CPU without hypervisor bit, agent channel, "
	   "no libvirt NUMA cell (cxlbed's own SRAT/HMAT travel as -acpitable)", file);
}

static void test_region_param(void)
{
	g_autofree char *path = g_build_filename(SRCDIR, "topologies/default.topo", NULL);
	g_autoptr(cb_topology) t = topology_load(path, NULL);
	g_autofree char *p = t ? libvirt_region_param(topology_find_region(t, "r0")) : NULL;

	is_str(p, "cxlbed.region=r0,window=0,granularity=4096,mode=ram,"
	       "serials=0x1000+0x1001+0x1002+0x1003",
	       "default r0: id, window, granularity, mode, serials in interleave order");
}

int main(void)
{
	plan(13);
	test_topology("default.topo", 1);
	test_topology("cascade.topo", 1);
	test_region_param();
	return tap_failed ? 1 : 0;
}
