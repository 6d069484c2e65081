/* SPDX-License-Identifier: MIT */
/*
 * GPU mode's run (gpu_run.h): build/gpu/cxlbed-gpu (the tiering runtime on
 * a real GPU; see guest/runtime/cuda/) run, its JSON kept as gpu.json, and
 * summary.json, report.md and overlap.svg written into results/RUN_ID/ or
 * --out DIR; or a gpu.json captured elsewhere rendered (--from-json).
 */
#include "run/gpu_run.h"
#include "results/gpu_report.h"
#include "common/paths.h"
#include "run/run_dir.h"

#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

static GPtrArray *gpu_argv(const struct gpu_opts *c, const char *bin, const char *wl)
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

int gpu_run(const struct gpu_opts *c, const char *wl)
{
	g_autoptr(GError) err = NULL;
	g_autoptr(JsonParser) parser = json_parser_new();
	g_autoptr(GPtrArray) gargv = NULL;
	g_autofree char *run_id = NULL, *dir = NULL, *output = NULL, *cmdline = NULL;
	g_autofree char *source = NULL, *summary = NULL, *report = NULL, *svg = NULL;
	g_autoptr(JsonNode) sum = NULL;
	bool created;
	g_autoptr(JsonGenerator) gen = json_generator_new();
	const char *bin;
	JsonObject *g;
	int rc = 0;

	run_id = run_id_new("gpu");
	if (c->out && !run_out_acceptable(c->out, "--out", &err)) {
		fprintf(stderr, "cxlbed gpu: %s\n", err->message);
		return 2;
	}
	if (c->from_json) {
		if (!g_file_get_contents(c->from_json, &output, NULL, &err))
			{
		fprintf(stderr, "cxlbed gpu: %s\n", err->message);
		return 2;
	}
		source = g_strdup_printf("rendered from %s", c->from_json);
		cmdline = g_strdup_printf("cxlbed gpu %s --from-json %s", wl, c->from_json);
	} else {
		bin = c->bin ? c->bin : cxlbed_path(GPU_BIN);
		if (!g_file_test(bin, G_FILE_TEST_IS_EXECUTABLE)) {
			fprintf(stderr, "cxlbed gpu: GPU mode was not built (%s missing): it "
				"needs nvcc; install the CUDA toolkit, re-run ./configure and make\n",
				bin);
			return 1;
		}
		gargv = gpu_argv(c, bin, wl);
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
		return c->from_json ? 2 : 1;
	}
	g = json_node_get_object(json_parser_get_root(parser));
	if (c->from_json && json_object_has_member(g, "workload"))
		wl = gpu_str_of(g, "workload");

	dir = c->out ? g_strdup(c->out) :
	      g_build_filename(cxlbed_path(CXLBED_RESULTS), run_id, NULL);
	if (!run_dir_make(dir, !c->out, &created, &err)) {
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
