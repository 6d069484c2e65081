/* SPDX-License-Identifier: MIT */
/*
 * cxlbed layer [SCENARIO] [--packages LIST] [--files SPEC]: build (or
 * reuse) the guest's extra layer, without booting; print its path. Fetches
 * the packages ahead of a run, and shows what the cache holds.
 */
#include "cli/commands.h"
#include "common/error.h"
#include "run/guest_layer.h"
#include "common/progress.h"
#include "run/scenario.h"

#include <stdio.h>

int cmd_layer(int argc, char **argv)
{
	g_auto(GStrv) packages = NULL;
	g_auto(GStrv) files = NULL;
	GOptionEntry entries[] = {
		LAYER_OPTION_ENTRIES(packages, files),
		{ NULL }
	};
	g_autoptr(GError) err = NULL;
	g_autoptr(scenario) scn = NULL;
	g_autofree char *initrd = NULL;
	bool built;

	if (!verb_options(&argc, &argv, "[SCENARIO]",
			  "Build the guest layer a scenario's packages and files (and those given\n"
			  "here) make, or find it in " GUEST_LAYER_DIR "/, and print the -initrd a\n"
			  "run boots (base image + layer). It is rebuilt only when the package\n"
			  "list, a carried file, the base image's contents or the builder change.", entries))
		return 2;
	if (argc > 2)
		return verb_usage("layer", "one scenario at most");
	scn = argc == 2 ? scenario_load(argv[1], &err) : scenario_default_for(NULL);
	if (scn && !guest_layer_check_packages(scn->packages, &scn->packages_src, &err))
		g_clear_pointer(&scn, scenario_free);
	if (scn && !guest_layer_add_cli(scn, packages, files, &err))
		g_clear_pointer(&scn, scenario_free);
	if (!scn) {
		fprintf(stderr, "cxlbed layer: %s\n", err->message);
		return err->domain == CXLBED_ERROR ? err->code : 2;
	}
	if (!guest_layer_wanted(scn))
		return verb_usage("layer", "no packages or files named (see --help)");
	progress_start();
	initrd = guest_layer_prepare(scn, NULL, NULL, &built, &err);
	if (!initrd) {
		fprintf(stderr, "cxlbed layer: %s\n", err->message);
		return 1;
	}
	printf("%s\n", initrd);
	return 0;
}
