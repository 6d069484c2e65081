/* SPDX-License-Identifier: MIT */
/* cxlbed run [SCENARIO|TOPOLOGY] [--out DIR] */
#include "commands.h"
#include "argv.h"
#include "error.h"
#include "paths.h"
#include "pci_numbers.h"
#include "runner.h"

#include <string.h>
#include <stdio.h>

/* Input first, image second: nothing starts unless both are right. */
int run_prepare(const char *path, struct scenario **scn, struct cb_topology **topo)
{
	g_autoptr(GError) err = NULL;

	*scn = scenario_load(path, &err);
	if (*scn)
		*topo = topology_load((*scn)->topology_path, &err);
	if (*scn && *topo && !qemu_check_topology(*topo, &err))
		g_clear_pointer(topo, topology_free);
	if (!*scn || !*topo) {
		fprintf(stderr, "%s\n", err->message);
		return err->domain == CXLBED_ERROR ? err->code : 2;
	}
	if (!g_file_test(cxlbed_path(CXLBED_GUEST_KERNEL), G_FILE_TEST_EXISTS) ||
	    !g_file_test(cxlbed_path(CXLBED_DEFAULT_INITRD), G_FILE_TEST_EXISTS)) {
		fprintf(stderr, "cxlbed: guest image missing (%s, %s): run make\n",
			cxlbed_path(CXLBED_GUEST_KERNEL), cxlbed_path(CXLBED_DEFAULT_INITRD));
		return 1;
	}
	return 0;
}

bool parse_guest_clock(const char *verb, const char *val, bool *host_clock)
{
	if (!val || !strcmp(val, "modeled")) {
		*host_clock = false;
		return true;
	}
	if (!strcmp(val, "host")) {
		*host_clock = true;
		return true;
	}
	fprintf(stderr, "cxlbed %s: --guest-clock=%s: say modeled or host\n",
		verb, val);
	return false;
}

int cmd_run(int argc, char **argv)
{
	g_autofree char *out = NULL;
	g_autofree char *clock = NULL;
	gboolean boot_only = FALSE, timing = FALSE;
	GOptionEntry entries[] = {
		{ "out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
		  "write results to DIR instead of results/RUN_ID", "DIR" },
		{ "boot-only", 0, 0, G_OPTION_ARG_NONE, &boot_only,
		  "boot, bring regions online and check enumeration; run no workload", NULL },
		{ "timing", 't', 0, G_OPTION_ARG_NONE, &timing,
		  "load the timing model: latency and bandwidth in modeled time "
		  "(docs/timing-model.md)", NULL },
		{ "guest-clock", 0, 0, G_OPTION_ARG_STRING, &clock,
		  GUEST_CLOCK_HELP, "modeled|host" },
		{ NULL }
	};
	g_autoptr(GOptionContext) ctx = g_option_context_new("[SCENARIO|TOPOLOGY]");
	g_autoptr(GError) err = NULL;
	g_autoptr(scenario) scn = NULL;
	g_autoptr(cb_topology) topo = NULL;
	struct run_opts opts = { 0 };
	const char *path;
	int rc;

	g_option_context_set_summary(ctx,
		"Boot every host of the topology in QEMU, bring its CXL regions online\n"
		"through the guest agent, check the guest's enumeration against the\n"
		"topology, run the scenario's workloads, tear everything down, and write\n"
		"summary.json, report.md, console-HOST.log and qmp-HOST.log.\n"
		"A topology file runs the default workloads (idle latency and sequential\n"
		"bandwidth on every NUMA node). With no argument: " CXLBED_DEFAULT_SCENARIO ".\n"
		"Exit status: 0 every check passed, 1 a check failed, 2 bad input.");
	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!g_option_context_parse(ctx, &argc, &argv, &err)) {
		fprintf(stderr, "cxlbed run: %s\n", err->message);
		return 2;
	}
	if (argc > 2) {
		fprintf(stderr, "cxlbed run: one scenario or topology at most\n");
		return 2;
	}
	if (!parse_guest_clock("run", clock, &opts.host_clock))
		return 2;
	path = argc == 2 ? argv[1] : cxlbed_path(CXLBED_DEFAULT_SCENARIO);
	rc = run_prepare(path, &scn, &topo);
	if (rc)
		return rc;
	if (boot_only)
		g_ptr_array_set_size(scn->workloads, 0);
	opts.out_dir = out;
	opts.timing = timing || scn->timing;
	return runner_run(scn, topo, &opts, NULL);
}
