/* SPDX-License-Identifier: MIT */
/*
 * cxlbed plan SCENARIO|TOPOLOGY: validate (as cxlbed run does) and print
 * each host's QEMU command line.
 * Starts nothing and writes nothing; CDAT, SRAT/HMAT and pool paths are
 * shown where a run would put them.
 */
#include "cli/commands.h"
#include "run/data_check.h"
#include "qemu/acpi_numa.h"
#include "qemu/argv.h"
#include "qemu/cdat.h"
#include "common/error.h"
#include "run/guest_kernel.h"
#include "run/guest_layer.h"
#include "run/run_input.h"
#include "run/timing_run.h"
#include "topology/topology.h"

#include <stdio.h>

/* Where the fabric manager may bind pool LDs on @h, and what they cost. */
static void print_ld_ports(const struct cb_topology *t, const struct cb_host *h)
{
	g_autoptr(GPtrArray) ports = topology_host_ld_ports(t, h);
	struct cb_pool *pool;
	struct cb_port *port;

	cb_foreach(t->pools, struct cb_pool, pool) {
		const struct cb_ld *ld;

		if (!topology_pool_lends_to(pool, h))
			continue;
		ld = g_ptr_array_index(pool->lds, 0);
		cb_foreach(ports, struct cb_port, port) {
			struct cb_device *d = topology_ld_device(ld, port);
			const struct cb_path *p = cb_device_path(d);

			printf("#   LD port %s: pool %s lends %u x %lluM here at run time "
			       "(%s.ldN, sn=0x%llx..); path %s: idle read %g ns, write %g ns\n",
			       port->id, pool->id, pool->lds->len,
			       (unsigned long long)(pool->ld_size / CB_MIB), pool->id,
			       (unsigned long long)ld->serial, p->text,
			       p->latency_ns[CB_READ], p->latency_ns[CB_WRITE]);
			topology_ld_device_free(d);
		}
	}
}

/* Each region's proximity domain and what the guest's HMAT says of it. */
static void print_numa(const struct cb_host *h)
{
	g_autoptr(numa_layout) l = numa_layout_new(h, NULL, NULL);
	struct cb_region *r;

	cb_foreach(h->regions, struct cb_region, r) {
		const struct numa_pd *pd = numa_layout_region(l, r);

		printf("#   region %s: PXM %u%s, HMAT read %u ns %u MB/s, write "
		       "%u ns %u MB/s (its whole path)\n", r->id, pd->pxm,
		       r->mode == CB_REGION_RAM ? ", its own NUMA node" : " (devdax)",
		       hmat_latency_ns(pd->latency_ns[CB_READ]),
		       hmat_bandwidth_mbs(pd->gbps[CB_READ]),
		       hmat_latency_ns(pd->latency_ns[CB_WRITE]),
		       hmat_bandwidth_mbs(pd->gbps[CB_WRITE]));
	}
}

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
		const struct cb_path *p = cb_device_path(d);
		struct cb_region *r = topology_device_region(t, d);

		printf("#   %s sn=0x%llx %lluM %s: media read %u ns %u MB/s, "
		       "write %u ns %u MB/s; path +%g ns = idle read %g ns, "
		       "write %g ns%s%s%s%s\n", p->text,
		       (unsigned long long)d->serial,
		       (unsigned long long)(d->size / CB_MIB),
		       d->persistent ? "persistent" : "volatile",
		       cdat_latency_ns(d->perf.read_latency_ns),
		       cdat_bandwidth_mbs(d->perf.read_gbps),
		       cdat_latency_ns(d->perf.write_latency_ns),
		       cdat_bandwidth_mbs(d->perf.write_gbps),
		       p->hops_ns, p->latency_ns[CB_READ], p->latency_ns[CB_WRITE],
		       r ? ", region " : "", r ? r->id : "",
		       d->pool ? ", pool " : "", d->pool ? d->pool->id : "");
	}
	print_numa(h);
	print_ld_ports(t, h);
	fputs(cmd, stdout);
}

/* What will boot: the kernel, how it was chosen, what it decides. */
static void print_kernel(const struct guest_kernel *k)
{
	g_autofree char *what = guest_kernel_describe(k);

	if (!k->release) {
		printf("# guest kernel: %s (chosen by %s)\n", what, k->chosen_by);
		return;
	}
	printf("# guest kernel: %s, chosen by %s; image %s%s\n", what, k->chosen_by, k->dir,
	       k->is_default ? " (make builds it)" : " (cxlbed run builds it when it is not current)");
	printf("#   CXL link latency: %s%s (%s)\n",
	       k->link.ns == KT_YES ? "ns, rounded up" : k->link.ns == KT_NO ?
	       "ps added to ns figures" : "unknown unit",
	       k->link.width == KT_YES ? ", over the link's width" : k->link.width == KT_NO ?
	       ", from the speed alone" : "", k->link_from ? k->link_from : "?");
	for (int i = 0; kernel_policies[i]; i++) {
		g_autofree char *why = guest_kernel_policy_unavailable(k, kernel_policies[i]);

		printf("#   cxlbed-pool %s: %s\n", kernel_policies[i], why ? why : "available");
	}
}

int cmd_plan(int argc, char **argv)
{
	g_autofree char *rundir = NULL;
	g_autofree char *clock = NULL;
	g_autofree char *qemu = NULL;
	g_autofree char *kernel_file = NULL, *initrd_file = NULL;
	g_auto(kernel_option) ko = { 0 };
	g_autoptr(guest_kernel) kernel = NULL;
	gboolean timing = FALSE, no_timing = FALSE;
	bool host_clock = false;
	GOptionEntry entries[] = {
		{ "rundir", 0, 0, G_OPTION_ARG_FILENAME, &rundir,
		  "Run directory the paths are shown in (default "
		  "results/RUN_ID)", "DIR" },
		{ "no-timing", 0, 0, G_OPTION_ARG_NONE, &no_timing,
		  "Show the command line of a run without the timing model "
		  "(cxlbed run --no-timing)", NULL },
		{ "timing", 't', 0, G_OPTION_ARG_NONE, &timing,
		  "With the timing model's -plugin (the default, as cxlbed run)", NULL },
		{ "guest-clock", 0, 0, G_OPTION_ARG_STRING, &clock,
		  GUEST_CLOCK_HELP, "modeled|host" },
		QEMU_OPTION_ENTRY(qemu),
		KERNEL_OPTION_ENTRIES(ko),
		{ NULL },
	};
	g_autoptr(GError) error = NULL;
	g_autoptr(scenario) scn = NULL;
	g_autoptr(cb_topology) t = NULL;
	struct qemu_opts o;
	struct cb_host *h;
	bool with_model;

	if (!verb_options(&argc, &argv, "SCENARIO|TOPOLOGY - print the QEMU command line of every host",
			  "Validates TOPOLOGY (see docs/topology.md), or SCENARIO and its "
			  "topology as `cxlbed run`\nchecks them (events, fault targets, "
			  "offsets and sizes, packages), and prints each\nhost's QEMU "
			  "command line, exactly as `cxlbed run` starts it (the QEMU --qemu "
			  "says, the guest\nimage under the cxlbed root), and each device's path "
			  "with its configured figures.\nThe guest kernel: which one boots, checked "
			  "against what cxlbed needs, and what it\ndecides (docs/kernels.md); a Debian "
			  "kernel not downloaded yet is named, not fetched.\n"
			  "Starts nothing, writes nothing. Exit status 2 on bad input, "
			  "with FILE:LINE: on stderr.", entries))
		return 2;
	if (!parse_guest_clock("plan", clock, &host_clock) ||
	    !choose_qemu("plan", qemu))
		return 2;
	if (argc != 2)
		return verb_usage("plan", "give exactly one SCENARIO or TOPOLOGY file, e.g. "
			   "cxlbed plan topologies/default.topo");
	if (timing && no_timing)
		return verb_usage("plan", "--timing and --no-timing contradict each other; give one");
	/* a topology is a scenario of its default workloads, as for run */
	scn = scenario_load(argv[1], &error);
	t = scn ? topology_load(scn->topology_path, &error) : NULL;
	with_model = timing || (!no_timing && scn && scn->timing);
	if (t && !run_input_check(scn, t, with_model, &error))
		g_clear_pointer(&t, topology_free);
	if (!t) {
		g_printerr("%s\n", error->message);
		return error->domain == CXLBED_ERROR ? error->code : 2;
	}
	if (!apply_kernel_option("plan", &ko, scn))
		return 2;
	/* the kernel as run finds it, downloading nothing */
	kernel = guest_kernel_find(scenario_kernel(scn, t), t, false, &error);
	if (!kernel) {
		g_printerr("%s\n", error->message);
		return error->domain == CXLBED_ERROR ? error->code : 1;
	}
	data_check_warn(t);
	qemu_opts_for_run(&o, rundir ? rundir : "results/RUN_ID");
	if (kernel->release) {
		o.kernel = kernel_file = guest_kernel_boot_file(kernel);
		o.initrd = initrd_file = guest_kernel_file(kernel, "initramfs.cpio.gz");
	}
	if (scn->file)
		printf("# scenario %s (%s): checked as cxlbed run checks it%s\n", scn->name,
		       scn->file, guest_layer_wanted(scn) ? "; its packages and files go "
		       "into a guest layer that cxlbed run builds and boots as -initrd" : "");
	printf("# topology %s (%s): %u host(s)%s%s\n", t->name, t->file,
	       t->hosts->len, *t->description ? " - " : "", t->description);
	print_kernel(kernel);
	cb_foreach(t->hosts, struct cb_host, h) {
		/* hosts wait for each other only for a `together` workload */
		g_autofree char *plugin = with_model ?
			timing_plugin_arg(h, o.rundir, "RUN_ID",
					  scenario_has_together(scn) ? t->hosts->len : 1,
					  !host_clock) : NULL;
		g_autoptr(GPtrArray) a = NULL;

		o.plugin = plugin;
		o.guest_clock = with_model && !host_clock;
		a = qemu_argv_build(t, h, &o, &error);
		if (!a)
			return verb_usage("plan", "%s", error->message);
		print_host(t, h, a);
	}
	return 0;
}
