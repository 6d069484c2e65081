/* SPDX-License-Identifier: MIT */
/*
 * cxlbed plan TOPOLOGY: validate and print each host's QEMU command line.
 * Starts nothing and writes nothing; CDAT and pool paths are shown where a
 * run would put them.
 */
#include "commands.h"
#include "data_check.h"
#include "argv.h"
#include "cdat.h"
#include "error.h"
#include "topology.h"

#include <stdio.h>

static void print_host(const struct cb_topology *t, const struct cb_host *h,
		       GPtrArray *argv)
{
	g_autofree char *cmd = qemu_argv_to_shell(argv);
	struct cb_device *d;

	printf("# host %s: %d vCPU, %llu MiB DRAM, %u memdev(s), %llu MiB "
	       "CXL RAM\n", h->id, h->cpus,
	       (unsigned long long)(h->memory / CB_MIB),
	       topology_host_memdev_count(h),
	       (unsigned long long)(topology_host_cxl_ram_bytes(h) / CB_MIB));
	cb_foreach(h->devices, struct cb_device, d) {
		g_autofree char *path = topology_device_path(d);
		struct cb_region *r = topology_device_region(t, d);

		printf("#   %s sn=0x%llx %lluM %s read %u ns %u MB/s, write %u "
		       "ns %u MB/s%s%s%s%s\n", path,
		       (unsigned long long)d->serial,
		       (unsigned long long)(d->size / CB_MIB),
		       d->persistent ? "persistent" : "volatile",
		       cdat_latency_ns(d->perf.read_latency_ns),
		       cdat_bandwidth_mbs(d->perf.read_gbps),
		       cdat_latency_ns(d->perf.write_latency_ns),
		       cdat_bandwidth_mbs(d->perf.write_gbps),
		       r ? ", region " : "", r ? r->id : "",
		       d->pool ? ", pool " : "", d->pool ? d->pool->id : "");
	}
	fputs(cmd, stdout);
}

int cmd_plan(int argc, char **argv)
{
	g_autofree char *rundir = NULL, *kernel = NULL, *initrd = NULL,
		*qemu = NULL, *append = NULL, *plugin = NULL;
	gboolean switch_cdat = FALSE;
	GOptionEntry entries[] = {
		{ "rundir", 0, 0, G_OPTION_ARG_FILENAME, &rundir,
		  "Run directory the paths are shown in (default "
		  "results/RUN_ID)", "DIR" },
		{ "qemu", 0, 0, G_OPTION_ARG_FILENAME, &qemu,
		  "QEMU binary (default " CXLBED_DEFAULT_QEMU ")", "PATH" },
		{ "kernel", 0, 0, G_OPTION_ARG_FILENAME, &kernel,
		  "Guest kernel (default " CXLBED_DEFAULT_KERNEL ")", "PATH" },
		{ "initrd", 0, 0, G_OPTION_ARG_FILENAME, &initrd,
		  "Guest initramfs (default " CXLBED_DEFAULT_INITRD ")", "PATH" },
		{ "append", 0, 0, G_OPTION_ARG_STRING, &append,
		  "Extra guest kernel command line", "ARGS" },
		{ "plugin", 0, 0, G_OPTION_ARG_STRING, &plugin,
		  "TCG plugin (a full -plugin value)", "SPEC" },
		{ "switch-cdat", 0, 0, G_OPTION_ARG_NONE, &switch_cdat,
		  "Give switches their own CDAT (latency-ns) files", NULL },
		{ NULL },
	};
	g_autoptr(GOptionContext) ctx = g_option_context_new(
		"TOPOLOGY - print the QEMU command line of every host");
	g_autoptr(GError) error = NULL;
	g_autoptr(cb_topology) t = NULL;
	struct qemu_opts o = { 0 };
	struct cb_host *h;

	g_option_context_set_summary(ctx,
		"Validates TOPOLOGY (see docs/topology.md) and prints each "
		"host's QEMU command line.\nStarts nothing, writes nothing. "
		"Exit status 2 on bad input, with FILE:LINE: on stderr.");
	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
		g_printerr("cxlbed plan: %s (see cxlbed plan --help)\n",
			   error->message);
		return 2;
	}
	if (argc != 2) {
		g_printerr("cxlbed plan: give exactly one TOPOLOGY file, e.g. "
			   "cxlbed plan topologies/default.topo\n");
		return 2;
	}
	t = topology_load(argv[1], &error);
	if (!t) {
		g_printerr("%s\n", error->message);
		return error->domain == CXLBED_ERROR ? error->code : 2;
	}
	data_check_warn(t);
	o.qemu = qemu;
	o.kernel = kernel;
	o.initrd = initrd;
	o.rundir = rundir ? rundir : "results/RUN_ID";
	o.append_extra = append;
	o.plugin = plugin;
	o.switch_cdat = switch_cdat;
	printf("# topology %s (%s): %u host(s)%s%s\n", t->name, t->file,
	       t->hosts->len, *t->description ? " - " : "", t->description);
	cb_foreach(t->hosts, struct cb_host, h) {
		g_autoptr(GPtrArray) a = qemu_argv_build(t, h, &o, &error);

		if (!a) {
			g_printerr("cxlbed plan: %s\n", error->message);
			return 2;
		}
		print_host(t, h, a);
	}
	return 0;
}
