/* SPDX-License-Identifier: MIT */
/*
 * cxlbed boot TOPOLOGY|SCENARIO [--host NAME] [--packages LIST] [--files SPEC]:
 * a console on a booted CXL guest, with the user's programs in it.
 */
#include "cli/commands.h"
#include "run/guest_kernel.h"
#include "run/guest_layer.h"
#include "run/runner.h"

#include <stdio.h>

int cmd_boot(int argc, char **argv)
{
	g_autofree char *host = NULL;
	g_autofree char *out = NULL;
	g_autofree char *qemu = NULL;
	g_auto(GStrv) packages = NULL;
	g_auto(GStrv) files = NULL;
	g_auto(kernel_option) ko = { 0 };
	g_autoptr(guest_kernel) kernel = NULL;
	GOptionEntry entries[] = {
		{ "host", 'H', 0, G_OPTION_ARG_STRING, &host,
		  "which host to boot (default: the first)", "NAME" },
		{ "out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
		  "run directory, new or empty (default results/RUN_ID)", "DIR" },
		LAYER_OPTION_ENTRIES(packages, files),
		QEMU_OPTION_ENTRY(qemu),
		KERNEL_OPTION_ENTRIES(ko),
		{ NULL }
	};
	g_autoptr(GError) err = NULL;
	g_autoptr(scenario) scn = NULL;
	g_autoptr(cb_topology) topo = NULL;
	struct run_opts opts = { .interactive = true };
	int rc;

	if (!verb_options(&argc, &argv, "TOPOLOGY|SCENARIO",
			  "Boot one host of TOPOLOGY with its serial console on this terminal.\n"
			  "cxlbed creates the topology's regions through the guest agent and\n"
			  "brings them online, then hands you a shell. `poweroff` (or Ctrl-A X)\n"
			  "ends it; QEMU never outlives the command. --out takes a new or empty\n"
			  "folder, as in `cxlbed run`. A scenario's packages and files come\n"
			  "along; --packages and --files add more. They go into an extra image\n"
			  "layer, cached under " GUEST_LAYER_DIR "/ (docs/guest-image.md).\n"
			  "Exit status: 0 booted with regions online and ended by poweroff, 1 it\n"
			  "did not, 2 bad input, 128+N interrupted by signal N.", entries))
		return 2;
	if (argc != 2)
		return verb_usage("boot", "give one topology or scenario file (see --help)");
	if (!choose_qemu("boot", qemu))
		return 2;
	rc = run_prepare("boot", argv[1], &ko, &scn, &topo, &kernel);
	if (rc)
		return rc;
	opts.kernel = kernel;
	if (!guest_layer_add_cli(scn, packages, files, &err))
		return verb_usage("boot", "%s", err->message);
	if (!host)
		host = g_strdup(((struct cb_host *)g_ptr_array_index(topo->hosts, 0))->id);
	else if (!topology_find_host(topo, host))
		return verb_usage("boot", "%s has no host '%s'", topo->file, host);
	opts.only_host = host;
	opts.out_dir = out;
	return runner_run(scn, topo, &opts, NULL);
}
