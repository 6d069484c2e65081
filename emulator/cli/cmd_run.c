/* SPDX-License-Identifier: MIT */
/* cxlbed run [SCENARIO|TOPOLOGY] [--out DIR] [--boot-only] [--no-timing] */
#include "cli/commands.h"
#include "qemu/argv.h"
#include "common/error.h"
#include "faults/fault_schedule.h"
#include "run/guest_kernel.h"
#include "common/paths.h"
#include "qemu/qemu_binary.h"
#include "run/run_input.h"
#include "run/runner.h"

#include <string.h>
#include <stdio.h>

void kernel_option_clear(struct kernel_option *ko)
{
	g_clear_pointer(&ko->kernel, g_free);
	g_clear_pointer(&ko->modules, g_free);
}

bool apply_kernel_option(const char *verb, const struct kernel_option *ko,
			 struct scenario *scn)
{
	g_autoptr(GError) err = NULL;
	g_autofree char *cwd = g_get_current_dir();
	struct cb_kernel_spec *k;

	if (!ko->kernel && ko->modules) {
		fprintf(stderr, "cxlbed %s: --kernel-modules goes with --kernel BZIMAGE\n", verb);
		return false;
	}
	if (!ko->kernel)
		return true;
	k = cb_kernel_spec_parse(ko->kernel, ko->modules, cwd, NULL, 0, 0, &err);
	if (!k) {
		fprintf(stderr, "cxlbed %s: %s\n", verb, err->message);
		return false;
	}
	cb_kernel_spec_free(scn->kernel);
	scn->kernel = k;
	return true;
}

/* Input first, kernel and image second: nothing starts unless all are right. */
int run_prepare(const char *verb, const char *path, const struct kernel_option *ko,
		struct scenario **scn,
		struct cb_topology **topo, struct guest_kernel **kernel)
{
	g_autoptr(GError) err = NULL;

	*kernel = NULL;
	if (!run_input_load(path, scn, topo, &err)) {
		fprintf(stderr, "%s\n", err->message);
		return err->domain == CXLBED_ERROR ? err->code : 2;
	}
	if (ko && !apply_kernel_option(verb, ko, *scn))
		return 2;
	*kernel = guest_kernel_prepare(scenario_kernel(*scn, *topo), *topo, &err);
	if (!*kernel) {
		fprintf(stderr, "%s\n", err->message);
		return err->domain == CXLBED_ERROR ? err->code : 1;
	}
	return 0;
}

bool choose_qemu(const char *verb, const char *path)
{
	g_autoptr(GError) err = NULL;

	if (qemu_binary_choose(path, &err))
		return true;
	fprintf(stderr, "cxlbed %s: %s\n", verb, err->message);
	return false;
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
	g_autofree char *qemu = NULL;
	g_auto(kernel_option) ko = { 0 };
	g_autoptr(guest_kernel) kernel = NULL;
	gboolean boot_only = FALSE, timing = FALSE, no_timing = FALSE;
	gint64 fault_seed = -1;
	GOptionEntry entries[] = {
		{ "out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
		  "write results to DIR instead of results/RUN_ID: a new or empty "
		  "folder, refused (exit 2) before anything starts otherwise", "DIR" },
		{ "boot-only", 0, 0, G_OPTION_ARG_NONE, &boot_only,
		  "boot, bring regions online and check enumeration; run no workload", NULL },
		{ "no-timing", 0, 0, G_OPTION_ARG_NONE, &no_timing,
		  "without the timing model: figures are the guest's clock under "
		  "emulation (a functional check; less wall time: make bench)", NULL },
		{ "timing", 't', 0, G_OPTION_ARG_NONE, &timing,
		  "with the timing model (the default; overrides a scenario's "
		  "timing = off)", NULL },
		{ "guest-clock", 0, 0, G_OPTION_ARG_STRING, &clock,
		  GUEST_CLOCK_HELP, "modeled|host" },
		{ "fault-seed", 0, 0, G_OPTION_ARG_INT64, &fault_seed,
		  "the seed of the scenario's randomised faults (replays a run: "
		  "summary.json and every failure print it; docs/faults.md)", "N" },
		QEMU_OPTION_ENTRY(qemu),
		KERNEL_OPTION_ENTRIES(ko),
		{ NULL }
	};
	g_autoptr(GError) err = NULL;
	g_autoptr(scenario) scn = NULL;
	g_autoptr(cb_topology) topo = NULL;
	struct run_opts opts = { 0 };
	const char *path;
	int rc;

	if (!verb_options(&argc, &argv, "[SCENARIO|TOPOLOGY]",
			  "Boot every host of the topology in QEMU, bring its CXL regions online\n"
			  "through the guest agent, check the guest's enumeration against the\n"
			  "topology, run the scenario's workloads, tear everything down, and write\n"
			  "report.html, summary.json, report.md, console-HOST.log and qmp-HOST.log.\n"
			  "A topology file runs the default workloads (idle latency and sequential\n"
			  "bandwidth on every NUMA node). With no argument: " CXLBED_DEFAULT_SCENARIO ".\n"
			  "Figures are modeled virtual time from the timing model (clock `modeled`,\n"
			  "docs/timing-model.md); --no-timing or a scenario's `timing = off` runs\n"
			  "without it, and then latency and bandwidth are the guest's clock under\n"
			  "emulation (clock `guest`): proof that each path works, not hardware figures.\n"
			  "RUN_ID is unique (UTC time, cxlbed's pid, topology name); the folder's\n"
			  "state.json says at every stage how far the run got, and what a killed\n"
			  "run left behind is cleaned by the next run or `cxlbed clean`.\n"
			  "Exit status: 0 every check passed, 1 a check failed, 2 bad input,\n"
			  "128+N interrupted by signal N.", entries))
		return 2;
	if (timing && no_timing)
		return verb_usage("run", "--timing and --no-timing contradict each other; give one");
	if (argc > 2)
		return verb_usage("run", "one scenario or topology at most");
	if (!parse_guest_clock("run", clock, &opts.host_clock) ||
	    !choose_qemu("run", qemu))
		return 2;
	path = argc == 2 ? argv[1] : cxlbed_path(CXLBED_DEFAULT_SCENARIO);
	rc = run_prepare("run", path, &ko, &scn, &topo, &kernel);
	if (rc)
		return rc;
	opts.kernel = kernel;
	if (boot_only)
		g_ptr_array_set_size(scn->workloads, 0);
	opts.out_dir = out;
	opts.timing = timing || (scn->timing && !no_timing);
	if (fault_seed >= 0 && !scn->faults)
		return verb_usage("run", "--fault-seed: %s has no [fault] to randomise",
			path);
	if (fault_seed >= 0) {
		scn->faults->seed = (uint64_t)fault_seed;
		scn->faults->seed_given = true;
	}
	/* the faults and the model's limits, for the run as the options make it */
	if (!run_input_check_timing(scn, topo, opts.timing, &err)) {
		fprintf(stderr, "%s\n", err->message);
		return 2;
	}
	if (!opts.timing)
		fprintf(stderr, "cxlbed run: timing model off (%s): latency and bandwidth will be "
			"the guest's clock under emulation, a functional check, not hardware "
			"figures\n", no_timing ? "--no-timing" : "timing = off in the scenario");
	return runner_run(scn, topo, &opts, NULL);
}
