/* SPDX-License-Identifier: MIT */
/* cxlbed clean [--dry-run]: clean up after runs whose cxlbed was killed. */
#include "cli/commands.h"
#include "common/paths.h"
#include "run/run_registry.h"

#include <stdio.h>

int cmd_clean(int argc, char **argv)
{
	gboolean dry_run = FALSE;
	GOptionEntry entries[] = {
		{ "dry-run", 'n', 0, G_OPTION_ARG_NONE, &dry_run,
		  "say what would be cleaned; change nothing", NULL },
		{ NULL }
	};
	struct sweep_counts n = { 0 };
	g_autofree char *summary = g_strdup_printf(
		"Find runs whose cxlbed is gone without ending them (killed, e.g. by\n"
		"SIGKILL or a crash), kill any QEMU of theirs still alive, remove their\n"
		"QMP and agent sockets, QEMU pid files and /dev/shm/cxlbed-RUN_ID timing\n"
		"segment, and mark their state.json \"killed\" at the stage they reached.\n"
		"Runs are found in the register, %s/runs (CXLBED_STATE_DIR\n"
		"overrides the folder), wherever their own folder is, and in results/.\n"
		"A run whose cxlbed still runs is never touched (pid, start time and\n"
		"boot are compared, so a recycled pid is not mistaken for it).\n"
		"`cxlbed run`, `boot` and `table` do the same before they start.\n"
		"Exit status: 0 (also when there was nothing to clean), 2 bad usage.",
		cxlbed_state_dir());

	if (!verb_options(&argc, &argv, "", summary, entries))
		return 2;
	if (argc > 1)
		return verb_usage("clean", "takes no arguments (see --help)");
	run_sweep(stdout, dry_run, true, &n);
	run_sweep_folders(cxlbed_path(CXLBED_RESULTS), stdout, dry_run, &n);
	printf("%s %u dead run%s, %u live run%s left alone\n",
	       dry_run ? "would clean" : "cleaned", n.dead, n.dead == 1 ? "" : "s",
	       n.live, n.live == 1 ? "" : "s");
	return 0;
}
