/* SPDX-License-Identifier: MIT */
/*
 * cxlbed gpu WORKLOAD: GPU mode. Runs build/gpu/cxlbed-gpu (the tiering
 * runtime on a real GPU; see guest/runtime/cuda/), keeps its JSON as
 * gpu.json and writes summary.json, report.md and overlap.svg into
 * results/RUN_ID/ or --out DIR. --from-json renders a gpu.json captured
 * elsewhere (the GPU machine needs only the static cxlbed-gpu binary).
 */
#include "cfgfile.h"
#include "commands.h"
#include "gpu_report.h"
#include "paths.h"
#include "run_dir.h"

#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#define GPU_BIN "build/gpu/cxlbed-gpu"

static const char *const workloads[] = { "layers", "kv", "adam", "bandwidth", "all" };

struct gpu_cli {
	gint64 far_latency;	/* -1: not given */
	double far_bw;		/* 0: not given */
	char *budget, *out, *from_json, *bin;
	int window, slots, device;
	gboolean quick, no_um;
};

/* ---- running the GPU binary ---- */
static GPtrArray *gpu_argv(const struct gpu_cli *c, const char *bin, const char *wl)
{
	GPtrArray *a = g_ptr_array_new_with_free_func(g_free);

	g_ptr_array_add(a, g_strdup(bin));
	g_ptr_array_add(a, g_strdup(wl));
	if (c->far_latency >= 0)
		g_ptr_array_add(a, g_strdup_printf("--far-latency=%" G_GINT64_FORMAT,
						   c->far_latency));
	if (c->far_bw > 0)
		g_ptr_array_add(a, g_strdup_printf("--far-bw=%g", c->far_bw));
	if (c->budget)
		g_ptr_array_add(a, g_strdup_printf("--hbm-budget=%s", c->budget));
	if (c->window)
		g_ptr_array_add(a, g_strdup_printf("--window=%d", c->window));
	if (c->slots)
		g_ptr_array_add(a, g_strdup_printf("--slots=%d", c->slots));
	if (c->device)
		g_ptr_array_add(a, g_strdup_printf("--device=%d", c->device));
	if (c->quick)
		g_ptr_array_add(a, g_strdup("--quick"));
	if (c->no_um)
		g_ptr_array_add(a, g_strdup("--no-um"));
	g_ptr_array_add(a, NULL);
	return a;
}

/* Runs the binary with stderr passed through; returns its exit status or
 * -1 when it could not start. */
static int run_gpu(GPtrArray *argv, char **out)
{
	g_autoptr(GError) err = NULL;
	int status = 0;

	if (!g_spawn_sync(NULL, (char **)argv->pdata, NULL,
			  G_SPAWN_CHILD_INHERITS_STDIN,
			  NULL, NULL, out, NULL, &status, &err)) {
		fprintf(stderr, "cxlbed gpu: cannot run %s: %s\n",
			(char *)argv->pdata[0], err->message);
		return -1;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	fprintf(stderr, "cxlbed gpu: %s killed by signal %d\n",
		(char *)argv->pdata[0], WTERMSIG(status));
	return -1;
}

static bool write_file(const char *dir, const char *name, const char *text)
{
	g_autofree char *path = g_build_filename(dir, name, NULL);
	g_autoptr(GError) err = NULL;

	if (g_file_set_contents(path, text, -1, &err))
		return true;
	fprintf(stderr, "cxlbed gpu: %s\n", err->message);
	return false;
}

/* The binary takes sizes as cxlbed files write them (512M, 2G). */
static bool budget_ok(const char *s)
{
	uint64_t bytes;

	return cfg_parse_size(s, &bytes) && bytes > 0;
}

int cmd_gpu(int argc, char **argv)
{
	struct gpu_cli c = { .far_latency = -1 };
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
	g_autoptr(GError) err = NULL;
	g_autoptr(JsonParser) parser = json_parser_new();
	g_autoptr(GPtrArray) gargv = NULL;
	g_autofree char *run_id = NULL, *dir = NULL, *output = NULL, *cmdline = NULL;
	g_autofree char *source = NULL, *summary = NULL, *report = NULL, *svg = NULL;
	g_autoptr(JsonNode) sum = NULL;
	bool created;
	g_autoptr(JsonGenerator) gen = json_generator_new();
	const char *wl, *bin;
	JsonObject *g;
	bool known = false;
	int rc = 0;

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

	run_id = run_id_new("gpu");
	if (c.out && !run_out_acceptable(c.out, "--out", &err))
		return verb_usage("gpu", "%s", err->message);
	if (c.from_json) {
		if (!g_file_get_contents(c.from_json, &output, NULL, &err))
			return verb_usage("gpu", "%s", err->message);
		source = g_strdup_printf("rendered from %s", c.from_json);
		cmdline = g_strdup_printf("cxlbed gpu %s --from-json %s", wl, c.from_json);
	} else {
		bin = c.bin ? c.bin : cxlbed_path(GPU_BIN);
		if (!g_file_test(bin, G_FILE_TEST_IS_EXECUTABLE)) {
			fprintf(stderr, "cxlbed gpu: GPU mode was not built (%s missing): it "
				"needs nvcc; install the CUDA toolkit, re-run ./configure and make\n",
				bin);
			return 1;
		}
		gargv = gpu_argv(&c, bin, wl);
		cmdline = g_strjoinv(" ", (char **)gargv->pdata);
		rc = run_gpu(gargv, &output);
		if (rc == 3) {
			fprintf(stderr, "cxlbed gpu: no usable CUDA GPU on this machine; "
				"nothing written\n");
			return 1;
		}
		if (rc == 2)
			return 2;	/* the binary said why */
		if (rc < 0)
			return 1;
		source = g_strdup("measured");
	}
	if (!output || !json_parser_load_from_data(parser, output, -1, &err) ||
	    !JSON_NODE_HOLDS_OBJECT(json_parser_get_root(parser))) {
		fprintf(stderr, "cxlbed gpu: no JSON result from cxlbed-gpu%s%s\n",
			err ? ": " : "", err ? err->message : "");
		return c.from_json ? 2 : 1;
	}
	g = json_node_get_object(json_parser_get_root(parser));
	if (c.from_json && json_object_has_member(g, "workload"))
		wl = gpu_str_of(g, "workload");

	dir = c.out ? g_strdup(c.out) :
	      g_build_filename(cxlbed_path(CXLBED_RESULTS), run_id, NULL);
	if (!run_dir_make(dir, !c.out, &created, &err)) {
		fprintf(stderr, "cxlbed gpu: %s\n", err->message);
		return 1;
	}
	sum = gpu_report_summary(g, run_id, wl, source, cmdline);
	json_generator_set_root(gen, sum);
	json_generator_set_pretty(gen, TRUE);
	summary = json_generator_to_data(gen, NULL);
	report = gpu_report_markdown(g, run_id, source);
	svg = gpu_report_overlap_svg(g);
	if (!write_file(dir, "gpu.json", output) || !write_file(dir, "summary.json", summary) ||
	    !write_file(dir, "report.md", report) || !write_file(dir, "overlap.svg", svg))
		return 1;
	gpu_report_print(g, dir);
	if (rc == 0 && strcmp(gpu_str_of(g, "verdict"), "pass"))
		rc = 1;
	return rc ? 1 : 0;
}
