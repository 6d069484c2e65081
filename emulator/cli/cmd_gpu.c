/* SPDX-License-Identifier: MIT */
/*
 * cxlbed gpu WORKLOAD: GPU mode (run/gpu_run.c). --from-json renders a
 * gpu.json captured elsewhere (the GPU machine needs only the static
 * cxlbed-gpu binary).
 */
#include "common/cfgfile.h"
#include "cli/commands.h"
#include "run/gpu_run.h"

#include <string.h>

static const char *const workloads[] = { "layers", "kv", "adam", "bandwidth", "all" };

/* The binary takes sizes as cxlbed files write them (512M, 2G). */
static bool budget_ok(const char *s)
{
	uint64_t bytes;

	return cfg_parse_size(s, &bytes) && bytes > 0;
}

int cmd_gpu(int argc, char **argv)
{
	struct gpu_opts c = { .far_latency = -1 };
	GOptionEntry entries[] = {
		{ "far-latency", 0, 0, G_OPTION_ARG_INT64, &c.far_latency,
		  "Added latency per far-tier transfer (custom far tier)", "NS" },
		{ "far-bw", 0, 0, G_OPTION_ARG_DOUBLE, &c.far_bw,
		  "Far-tier bandwidth cap (custom far tier)", "GBPS" },
		{ "hbm-budget", 0, 0, G_OPTION_ARG_STRING, &c.budget,
		  "HBM for staging slots (default: half the offloaded data)", "SIZE" },
		{ "window", 0, 0, G_OPTION_ARG_INT, &c.window,
		  "Lookahead depth in blocks (default: slots - 1)", "N" },
		{ "slots", 0, 0, G_OPTION_ARG_INT, &c.slots,
		  "Staging slots (default: from the budget)", "N" },
		{ "device", 0, 0, G_OPTION_ARG_INT, &c.device, "CUDA device", "N" },
		{ "quick", 0, 0, G_OPTION_ARG_NONE, &c.quick,
		  "Small sizes, for a smoke test", NULL },
		{ "no-um", 0, 0, G_OPTION_ARG_NONE, &c.no_um,
		  "Skip the Unified Memory baseline", NULL },
		{ "out", 'o', 0, G_OPTION_ARG_FILENAME, &c.out,
		  "Write results to DIR instead of results/RUN_ID", "DIR" },
		{ "from-json", 0, 0, G_OPTION_ARG_FILENAME, &c.from_json,
		  "Render a cxlbed-gpu JSON output captured elsewhere; run nothing", "FILE" },
		{ "gpu-bin", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &c.bin,
		  "GPU binary (default " GPU_BIN ")", "PATH" },
		{ NULL }
	};
	const char *wl;
	bool known = false;

	if (!verb_options(&argc, &argv, "WORKLOAD",
			  "GPU mode: run the tiering runtime on a real GPU with HBM, pinned host\n"
			  "memory and an emulated far tier (CXL- or RDMA-like), against all-HBM,\n"
			  "demand-fetch and CUDA Unified Memory baselines, and write summary.json,\n"
			  "report.md, overlap.svg and gpu.json.\n"
			  "WORKLOAD: layers (GEMM per layer, weights 2x the HBM budget), kv (paged\n"
			  "KV attention, several sessions), adam (offloaded optimizer state),\n"
			  "bandwidth (pinned H2D/D2H), or all.\n"
			  "Needs build/gpu/cxlbed-gpu (built when ./configure finds nvcc) and a GPU.\n"
			  "Exit status: 0 every check passed, 1 a check or the run failed (or no\n"
			  "GPU), 2 bad input.", entries))
		return 2;
	if (argc != 2)
		return verb_usage("gpu", "one WORKLOAD expected (layers, kv, adam, "
			"bandwidth, all); see cxlbed gpu --help");
	wl = argv[1];
	for (size_t i = 0; i < G_N_ELEMENTS(workloads); i++)
		known |= !strcmp(wl, workloads[i]);
	if (!known)
		return verb_usage("gpu", "unknown workload '%s': use layers, kv, "
			"adam, bandwidth or all", wl);
	if ((c.far_latency < -1) || c.far_bw < 0 || (c.budget && !budget_ok(c.budget)) ||
	    c.window < 0 || c.slots < 0 || c.slots == 1)
		return verb_usage("gpu", "bad option value: --far-latency and --far-bw "
			"must be positive, --hbm-budget a size like 512M or 2G, "
			"--slots at least 2");
	return gpu_run(&c, wl);
}
