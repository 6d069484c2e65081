/* SPDX-License-Identifier: MIT */
/*
 * Command workloads: what unmodified programs print (real outputs of
 * Debian 12's sysbench 1.0.20 and redis-benchmark 7.0, in
 * tests/data/program-output/), placeholders, and the path from the
 * agent's reply through the plugin's ROI report to modeled figures and
 * CXL/local ratios.
 */
#include "tap.h"
#include "run/command_workload.h"
#include "run/program_output.h"
#include "run/timing_run.h"

#include <glib/gstdio.h>
#include <math.h>

static char *sample(const char *name)
{
	g_autofree char *path = g_build_filename(SRCDIR, "tests/data/program-output", name, NULL);
	char *text = NULL;

	g_file_get_contents(path, &text, NULL, NULL);
	return text;
}

static double num(JsonObject *o, const char *key)
{
	return o && json_object_has_member(o, key) ? json_object_get_double_member(o, key) : -1;
}

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-6 * fabs(b);
}

static void parsers(void)
{
	g_autofree char *mem = sample("sysbench-memory.txt");
	g_autofree char *cpu = sample("sysbench-cpu.txt");
	g_autofree char *thr = sample("sysbench-threads.txt");
	g_autofree char *rb = sample("redis-benchmark.txt");
	g_autofree char *rbq = sample("redis-benchmark-q.txt");
	JsonObject *f;

	f = program_figures(mem);
	ok(f && !strcmp(json_object_get_string_member(f, "parser"), "sysbench-memory") &&
	   num(f, "count") == 256 && num(f, "per_s") == 4737.18 &&
	   near(num(f, "seconds"), 256 / 4737.18),
	   "sysbench memory: MiB transferred and MiB/sec");
	if (f)
		json_object_unref(f);
	f = program_figures(cpu);
	ok(f && !strcmp(json_object_get_string_member(f, "unit"), "events") &&
	   num(f, "count") == 100 && num(f, "per_s") == 12824.47,
	   "sysbench cpu: events and events per second");
	if (f)
		json_object_unref(f);
	f = program_figures(thr);
	ok(f && num(f, "count") == 100 && num(f, "per_s") > 0 &&
	   near(num(f, "per_s") * num(f, "seconds"), 100),
	   "sysbench threads: events over its total time");
	if (f)
		json_object_unref(f);
	f = program_figures(rb);
	/* SET 2000 at 8368.20/s, GET 2000 at 10152.28/s */
	ok(f && !strcmp(json_object_get_string_member(f, "parser"), "redis-benchmark") &&
	   num(f, "count") == 4000 && json_object_get_int_member(f, "tests") == 2 &&
	   near(num(f, "seconds"), 2000 / 8368.20 + 2000 / 10152.28),
	   "redis-benchmark: requests of every test over the sum of their times");
	if (f)
		json_object_unref(f);
	ok(program_figures(rbq) == NULL, "redis-benchmark -q: no request counts, no figures");
	ok(program_figures("hello\n") == NULL && program_figures(NULL) == NULL,
	   "other output: no figures");
}

static void placeholders(void)
{
	struct res_host h = { .name = "h0", .nodes = g_ptr_array_new() };
	struct res_node n0 = { .node = 0, .kind = "local" }, n1 = { .node = 1, .kind = "cxl" };
	struct cmd_place p = { .host = &h, .node = 1, .dax = NULL };
	g_autoptr(GError) err = NULL;
	g_autofree char *a = NULL, *b = NULL, *c = NULL;

	g_ptr_array_add(h.nodes, &n0);
	g_ptr_array_add(h.nodes, &n1);
	a = workload_expand("numactl --membind={node} x ${HOME} {local-node},{cxl-node} { a; }", &p, &err);
	is_str(a, "numactl --membind=1 x ${HOME} 0,1 { a; }",
	       "{node} {local-node} {cxl-node} filled in; ${HOME} and { a; } left alone");
	b = workload_expand("cat /dev/{dax}", &p, &err);
	ok(!b && err && strstr(err->message, "no devdax"), "{dax} without a devdax region: an error");
	g_clear_error(&err);
	g_ptr_array_remove_index(h.nodes, 1);
	c = workload_expand("numactl -m {cxl-node}", &p, &err);
	ok(!c && err && strstr(err->message, "{cxl-node}"), "{cxl-node} on a host without one: an error");
	g_ptr_array_unref(h.nodes);
}

/* The agent's reply -> output; the plugin's report -> modeled figures. */
static JsonObject *command_run(const char *report, guint first, const char *stdout_text,
			       double roi_ns)
{
	g_autofree char *json = g_strdup_printf(
		"{\"rois\":[{\"id\":7,\"modeled_ns\":1},"
		"{\"id\":2000,\"modeled_ns\":%.1f,\"begin_ns\":0,\"end_ns\":%.1f}]}",
		roi_ns, roi_ns);
	g_autoptr(JsonObject) reply = json_object_new();
	g_autoptr(GError) err = NULL;
	JsonObject *out;

	g_file_set_contents(report, json, -1, NULL);
	json_object_set_int_member(reply, "exit", 0);
	json_object_set_int_member(reply, "roi", 2000);
	json_object_set_string_member(reply, "stdout", stdout_text);
	json_object_set_string_member(reply, "stderr", "");
	out = command_output(reply, "sysbench memory run", "workload-h0-sb-node0.log");
	if (!timing_merge(out, report, first, &err))
		diag("timing_merge: %s", err->message);
	return out;
}

static void modeled(void)
{
	g_autofree char *dir = g_dir_make_tmp("cxlbed-cw-XXXXXX", NULL);
	g_autofree char *report = g_build_filename(dir, "timing-h0.json", NULL);
	g_autofree char *mem = sample("sysbench-memory.txt");
	g_autoptr(run_result) r = result_new();
	struct res_host *h = result_add_host(r, "h0");
	struct res_workload *w0, *w1;
	JsonObject *out, *m, *v;
	/* its own 256 MiB took 256/4737.18 s; the ROI 4% longer */
	double own_s = 256 / 4737.18, roi = own_s * 1.04e9, agree;

	out = command_run(report, 1, mem, roi);
	m = json_object_has_member(out, "modeled") ? json_object_get_object_member(out, "modeled") : NULL;
	ok(m && json_object_has_member(out, "figures") &&
	   !strcmp(json_object_get_string_member(out, "log"), "workload-h0-sb-node0.log"),
	   "output: figures, log name, modeled from the agent's ROI (not the earlier one)");
	agree = command_add_modeled(out);
	ok(near(num(m, "seconds"), roi / 1e9) && near(num(m, "per_s"), 256 / (roi / 1e9)),
	   "modeled: ROI seconds, MiB over them");
	ok(near(agree, 1.04) && near(num(out, "clock_agreement"), 1.04),
	   "own rate / modeled rate = ROI time / its own time (1.04)");
	ok(!json_object_has_member(m, "command_gbps"), "a command's ROI is no bandwidth phase");

	result_host_add_node(h, 0)->kind = g_strdup("local");
	result_host_add_node(h, 1)->kind = g_strdup("cxl");
	w0 = result_add_workload(r, "h0", "sb", "command", 0);
	w0->output = out;
	w1 = result_add_workload(r, "h0", "sb", "command", 1);
	w1->output = command_run(report, 1, mem, roi * 2);
	command_add_modeled(w1->output);
	command_compare_nodes(r, "h0", "sb");
	v = json_object_has_member(w1->output, "vs_local") ?
		json_object_get_object_member(w1->output, "vs_local") : NULL;
	ok(v && json_object_get_int_member(v, "node") == 0 && near(num(v, "modeled_per_s"), 0.5) &&
	   near(num(v, "per_s"), 1.0) && !json_object_has_member(w0->output, "vs_local"),
	   "CXL/local: the CXL node's rates over the local node's (own 1.0, modeled 0.5)");
	g_unlink(report);
	g_rmdir(dir);
}

int main(void)
{
	plan(14);
	parsers();
	placeholders();
	modeled();
	return tap_failed ? 1 : 0;
}
