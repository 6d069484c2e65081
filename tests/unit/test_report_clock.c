/* SPDX-License-Identifier: MIT */
/*
 * What clock each figure was read on, said the same way everywhere: a
 * pool or fault run (the timing model loaded, the guest's clock modeled,
 * no node measured) never reads "no timing model", and its unmeasured
 * nodes have no clock; a node row is one thread's stream where one ran;
 * a workload's progress line names its clock; a command workload's own
 * figures, modeled figures and log are in report.md and report.html.
 */
#include "tap.h"
#include <glib/gstdio.h>

#include "results/figures.h"
#include "results/html.h"
#include "results/program_report.h"
#include "report_test.h"

/* A faults run as the runner records it: one local node never measured,
 * cxlpool-protect on no node with its guest-clock figures. */
static const char faults_run[] =
	"{\"timing_model\": true, \"guest_clock\": \"modeled\","
	" \"hosts\": [{\"name\": \"h0\", \"nodes\": [{\"node\": 0, \"kind\": \"local\","
	"  \"latency_ns\": null, \"read_gbps\": null, \"write_gbps\": null, \"clock\": \"guest\"}]}],"
	" \"workloads\": [{\"host\": \"h0\", \"name\": \"kv\", \"program\": \"cxlbed-protect\","
	"  \"node\": -1, \"ok\": true, \"output\": {\"workload\": \"protect\", \"clock\": \"guest\","
	"  \"ops\": 3000, \"guest_s\": 48.9}}]}";

/* @json (an object without its schema) read as compare and report read it */
static struct run_result *load(const char *json)
{
	g_autofree char *text = g_strdup_printf("{\"schema\": \"" RESULT_SCHEMA "\", %s",
						json + 1);
	struct run_result *r = result_parse("test.json", text, strlen(text), NULL);

	return r ? r : result_new();
}

/* report.md as the runner writes it, in a scratch folder removed after. */
static void report_md(GString *s, const struct run_result *r)
{
	g_autofree char *dir = g_dir_make_tmp("cxlbed-test-XXXXXX", NULL);
	g_autofree char *path = dir ? g_build_filename(dir, "report.md", NULL) : NULL;
	g_autofree char *text = NULL;

	if (path && result_write_report(r, path, NULL) &&
	    g_file_get_contents(path, &text, NULL, NULL))
		g_string_append(s, text);
	if (path)
		g_unlink(path);
	if (dir)
		g_rmdir(dir);
}

static void test_fault_run(void)
{
	g_autoptr(run_result) r = load(faults_run);
	g_autoptr(GString) md = render_section(faults_run, report_md);
	g_autofree char *page = html_run_report(r, NULL);
	const struct res_node *n = g_ptr_array_index(
		((struct res_host *)g_ptr_array_index(r->hosts, 0))->nodes, 0);

	ok(!strstr(result_measured_with(r), "no timing model"),
	   "measured_with of a timing run says no 'no timing model' (%s)", result_measured_with(r));
	ok(strstr(result_measured_with(r), "modeled virtual time") != NULL,
	   "it says the guest's clock ran on modeled time");
	ok(n->clock == NULL, "a node with no figure has no clock (an older summary's \"guest\" dropped)");
	ok(!strstr(md->str, "no timing model") && !strstr(page, "no timing model"),
	   "report.md and report.html agree: no 'no timing model' beside the loaded model");
	ok(strstr(md->str, "| h0 | 0 | local | 0 | - | - | - | - |") != NULL,
	   "report.md's node row: no figure, clock -");
	r->timing_model = false;
	ok(strstr(result_measured_with(r), "no timing model") != NULL,
	   "without the model the same figures do say so");
	r->timing_model = true;
	r->guest_clock = "host";
	ok(strstr(result_measured_with(r), "host wall time") != NULL,
	   "with --guest-clock=host they say host wall time");
}

static JsonObject *obj(const char *text)
{
	g_autoptr(JsonParser) p = json_parser_new();

	json_parser_load_from_data(p, text, -1, NULL);
	return json_object_ref(json_node_get_object(json_parser_get_root(p)));
}

/* The run page's read column is one thread's, as the table page's is. */
static void test_node_row(void)
{
	g_autoptr(run_result) r = result_new();
	struct res_host *h = result_add_host(r, "h0");
	struct res_node *a = result_host_add_node(h, 0), *b = result_host_add_node(h, 1);
	g_autoptr(JsonObject) one = obj("{\"threads\": 1, \"modeled\": {\"read_gbps\": 2.9, \"write_gbps\": 2.9}}");
	g_autoptr(JsonObject) two = obj("{\"threads\": 2, \"modeled\": {\"read_gbps\": 5.7, \"write_gbps\": 5.7}}");

	result_node_take(a, one);
	result_node_take(a, two);
	result_node_take(b, two);
	result_node_take(b, one);
	ok(a->read_gbps == 2.9 && b->read_gbps == 2.9 && a->threads == 1 && b->threads == 1,
	   "one thread's read stays the node's, whichever stream ran last");
	is_str(a->clock, "modeled", "and its clock is the modeled one");
}

static void test_progress_line(void)
{
	g_autoptr(JsonObject) rois = obj("{\"ops\": 3000, \"modeled\": {\"rois\": [{\"id\": 1}]}}");
	g_autoptr(JsonObject) fig = obj("{\"modeled\": {\"ns_per_access\": 220.9}}");
	g_autoptr(JsonObject) none = obj("{\"program\": \"x\"}");
	g_autofree char *a = fig_summary(rois), *b = fig_summary(fig), *c = fig_summary(none);

	is_str(a, "guest clock: ops 3000", "ROIs only: the program's own figures, named by their clock");
	is_str(b, "modeled: ns_per_access 220.9", "modeled figures named modeled");
	ok(c == NULL, "nothing to say: NULL, never a bare 'modeled:'");
}

/* sysbench under numactl as userprog.t runs it, on the CXL node. */
static const char userprog[] =
	"{\"timing_model\": true, \"guest_clock\": \"modeled\", \"workloads\": ["
	" {\"host\": \"h0\", \"name\": \"sysbench\", \"program\": \"command\", \"node\": 1,"
	"  \"ok\": true, \"output\": {\"command\": \"sysbench memory run\", \"exit\": 0,"
	"  \"log\": \"workload-h0-sysbench-node1.log\", \"clock\": \"guest\","
	"  \"figures\": {\"parser\": \"sysbench-memory\", \"unit\": \"MiB\", \"count\": 1024,"
	"   \"per_s\": 1234.5}, \"modeled\": {\"rois\": [], \"clock\": \"modeled\","
	"   \"seconds\": 0.84, \"per_s\": 1219.0}, \"clock_agreement\": 1.013,"
	"  \"vs_local\": {\"node\": 0, \"per_s\": 0.512, \"modeled_per_s\": 0.498}}}]}";

static void test_programs(void)
{
	g_autoptr(GString) md = render_section(userprog, report_md);
	g_autoptr(run_result) r = load(userprog);
	g_autofree char *page = html_run_report(r, NULL);

	ok(strstr(md->str, "## Programs") && strstr(md->str, "| h0 | sysbench | node 1 | 0 | "
		  "1024 MiB at 1234.5 MiB/s (sysbench-memory) | 1219 MiB/s over 0.84 s | 1.013 | "
		  "0.512, 0.498 |") != NULL,
	   "report.md: its own figure, over the modeled time, own/modeled, CXL/local");
	ok(strstr(md->str, "[workload-h0-sysbench-node1.log](workload-h0-sysbench-node1.log)") != NULL,
	   "report.md links its log");
	ok(strstr(page, "<h2>Programs</h2>") &&
	   strstr(page, "<a href=\"workload-h0-sysbench-node1.log\">") != NULL,
	   "report.html: the same table, its log linked");
	ok(!strstr(md->str, "no timing model") && !strstr(page, "no timing model"),
	   "a run of user programs says no 'no timing model' beside the loaded model");
}

int main(void)
{
	plan(16);
	test_fault_run();
	test_node_row();
	test_progress_line();
	test_programs();
	return tap_failed ? 1 : 0;
}
