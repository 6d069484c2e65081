/* SPDX-License-Identifier: MIT */
/* cxlbed: the command line. One verb per file; this only dispatches. */
#include "cli/commands.h"
#include "qemu/jsonline.h"
#include "common/version.h"

#include <glib.h>
#include <locale.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>

int cxlbed_verbose;

struct verb {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct verb verbs[] = {
	{ "plan", cmd_plan, "validate a topology and print each host's QEMU command line" },
	{ "run", cmd_run, "boot, run a scenario, tear down, write results/RUN_ID/" },
	{ "boot", cmd_boot, "boot one host to an interactive console, regions online" },
	{ "table", cmd_table, "latency/bandwidth table and loaded-latency plot of topologies" },
	{ "sweep", cmd_sweep, "run a scenario over a parameter matrix, here or as a Slurm array" },
	{ "compare", cmd_compare, "compare two runs or tables; exit 1 on a regression (CI gate)" },
	{ "export", cmd_export, "write libvirt domain XML that boots a topology's hosts" },
	{ "report", cmd_report, "write report.html of run and table folders" },
	{ "gpu", cmd_gpu, "run the tiering runtime on a real GPU (GPU mode)" },
	{ "layer", cmd_layer, "build or reuse the guest layer of your packages and files" },
	{ "fm", cmd_fm, "a running run's fabric manager: list, status, bind, unbind" },
	{ "clean", cmd_clean, "clean up after killed runs (sockets, pid files, shm, QEMU)" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: cxlbed [--verbose] VERB [ARGS...] | --version\n\n"
		"A CXL fabric testbed: topology files become QEMU CXL machines with\n"
		"real Linux guests, their CXL memory online, and measured results.\n\nverbs:\n");
	for (size_t i = 0; i < G_N_ELEMENTS(verbs); i++)
		fprintf(out, "  %-8s %s\n", verbs[i].name, verbs[i].summary);
	fprintf(out, "\n`cxlbed VERB --help` describes a verb. With no argument, "
		"`cxlbed run` runs the default scenario\non the default topology "
		"(one switch, four Type-3 devices). Docs: docs/.\n");
}

int main(int argc, char **argv)
{
	int i = 1;

	setlocale(LC_ALL, "");
	/*
	 * A reader that goes away (`cxlbed run | head`, a closed QMP or agent
	 * socket) must not kill a run mid-teardown: writes fail with EPIPE
	 * instead, and the run still stops its QEMU and records its state.
	 */
	signal(SIGPIPE, SIG_IGN);

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-v")) {
			cxlbed_verbose = 1;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--version")) {
			printf("cxlbed %s (commit %s)\n", cxlbed_version(), cxlbed_commit());
			return 0;
		} else {
			fprintf(stderr, "cxlbed: unknown option '%s'\n\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return 2;
	}
	jsonline_echo = cxlbed_verbose;
	for (size_t v = 0; v < G_N_ELEMENTS(verbs); v++)
		if (!strcmp(argv[i], verbs[v].name)) {
			g_autofree char *prg = g_strdup_printf("cxlbed %s", verbs[v].name);

			g_set_prgname(prg);	/* GOption's "Usage:" line */
			return verbs[v].fn(argc - i, argv + i);
		}
	if (!strcmp(argv[i], "help")) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "cxlbed: unknown verb '%s'\n\n", argv[i]);
	usage(stderr);
	return 2;
}
