/* SPDX-License-Identifier: MIT */
/* summary.json keeps product.md's contract; verdicts follow the checks. */
#include "tap.h"
#include "results/result.h"
#include "results/result_read.h"

static JsonObject *host0(JsonObject *root)
{
	return json_array_get_object_element(json_object_get_array_member(root, "hosts"), 0);
}

/*
 * A workload's warnings (a working set that fits in the modeled LLC):
 * in its summary.json entry, read back from it, and in report.md.
 */
static void warnings(void)
{
	g_autoptr(run_result) r = result_new();
	g_autoptr(run_result) back = NULL;
	g_autoptr(JsonNode) root = NULL;
	g_autofree char *dir = g_dir_make_tmp("cxlbed-res-XXXXXX", NULL);
	g_autofree char *md_path = g_build_filename(dir, "report.md", NULL);
	g_autofree char *md = NULL;
	g_autofree char *text = NULL;
	struct res_workload *w;
	JsonArray *ws;

	r->run_id = g_strdup("w");
	r->cxlbed_version = g_strdup("0.1.0");
	r->cxlbed_commit = g_strdup("abc1234");
	result_add_workload(r, "h0", "sb", "command", 0);
	w = result_add_workload(r, "h0", "sb", "command", 1);
	g_ptr_array_add(w->warnings, g_strdup("its working set (1 MiB) fits"));
	root = result_to_json(r);
	ws = json_object_get_array_member(json_array_get_object_element(
		json_object_get_array_member(json_node_get_object(root), "workloads"), 1),
		"warnings");
	ok(ws && json_array_get_length(ws) == 1 &&
	   !strcmp(json_array_get_string_element(ws, 0), "its working set (1 MiB) fits") &&
	   json_array_get_length(json_object_get_array_member(json_array_get_object_element(
		json_object_get_array_member(json_node_get_object(root), "workloads"), 0),
		"warnings")) == 0,
	   "summary.json: the warned workload's entry has it, the other an empty list");
	text = json_to_string(root, FALSE);
	back = result_parse("summary.json", text, strlen(text), NULL);
	w = g_ptr_array_index(back->workloads, 1);
	ok(w->warnings->len == 1 && !g_strcmp0(back->cxlbed_commit, "abc1234") &&
	   !g_strcmp0(back->cxlbed_version, "0.1.0"),
	   "read back: the warning, cxlbed's version and commit");
	ok(result_write_report(r, md_path, NULL) && g_file_get_contents(md_path, &md, NULL, NULL) &&
	   strstr(md, "- **warning**: workload sb on h0 node 1: its working set (1 MiB) fits\n"),
	   "report.md says it, naming the workload, host and node");
	unlink(md_path);
	rmdir(dir);
}

int main(void)
{
	struct run_result *r = result_new();
	struct res_host *h;
	struct res_node *n;
	JsonNode *root;
	JsonObject *o, *node;
	const char *keys[] = { "schema", "run_id", "topology", "scenario", "timing_model",
			       "boot_ready_s", "qemu_version", "cxlbed_version", "cxlbed_commit",
			       "hosts", "workloads", "faults", "checks", "verdict" };
	bool all = true;

	plan(14);
	r->run_id = g_strdup("20261122-000000-t");
	r->topology = g_strdup("t.topo");
	r->scenario = g_strdup("default");
	r->boot_ready_s = 6.5;
	r->cxlbed_version = g_strdup("0.1.0");
	r->cxlbed_commit = g_strdup("d0c8f9b-dirty");
	h = result_add_host(r, "h0");
	h->memdevs = 4;
	n = result_host_add_node(h, 0);
	n->kind = g_strdup("local");
	n->path = g_strdup("local DRAM");
	n->latency_ns = 280.4;
	n = result_host_add_node(h, 1);
	n->kind = g_strdup("cxl");
	n->path = g_strdup("hb0/rp0/sw0/{mem0,mem1}");
	result_check(r, "boot:h0", true, "ok");

	root = result_to_json(r);
	o = json_node_get_object(root);
	for (size_t i = 0; i < G_N_ELEMENTS(keys); i++)
		if (!json_object_has_member(o, keys[i])) {
			diag("missing key %s", keys[i]);
			all = false;
		}
	ok(all, "every contract key is present");
	is_str(json_object_get_string_member(o, "schema"), "cxlbed.result/1", "schema name");
	ok(!g_strcmp0(json_object_get_string_member_with_default(o, "cxlbed_version", NULL), "0.1.0") &&
	   !g_strcmp0(json_object_get_string_member_with_default(o, "cxlbed_commit", NULL), "d0c8f9b-dirty"),
	   "the cxlbed that ran it: its version and commit");
	is_str(json_object_get_string_member(o, "verdict"), "pass", "all checks pass: verdict pass");
	is_int(json_object_get_int_member(host0(o), "memdevs"), 4, "host memdevs");
	node = json_array_get_object_element(json_object_get_array_member(host0(o), "nodes"), 1);
	ok(json_object_has_member(node, "latency_ns") &&
	   JSON_NODE_HOLDS_NULL(json_object_get_member(node, "latency_ns")),
	   "an unmeasured figure is null, not zero");
	node = json_array_get_object_element(json_object_get_array_member(host0(o), "nodes"), 0);
	ok(json_object_get_double_member(node, "latency_ns") > 280.3 &&
	   !strcmp(json_object_get_string_member(node, "kind"), "local"), "node kind and latency");
	json_node_unref(root);

	result_check(r, "workload:chase:h0:node1", false, "exit 1");
	root = result_to_json(r);
	is_str(json_object_get_string_member(json_node_get_object(root), "verdict"), "fail",
	       "one failed check: verdict fail");
	json_node_unref(root);
	result_free(r);

	r = result_new();
	ok(!result_passed(r), "no checks at all is not a pass");
	{
		g_autofree char *dir = g_dir_make_tmp("cxlbed-res-XXXXXX", NULL);
		g_autofree char *p = g_build_filename(dir, "summary.json", NULL);
		g_autoptr(JsonParser) parser = json_parser_new();

		r->run_id = g_strdup("x");
		ok(result_write_summary(r, p, NULL) && json_parser_load_from_file(parser, p, NULL),
		   "summary.json written and parses back");
		unlink(p);
		rmdir(dir);
	}
	result_free(r);
	warnings();

	/* compare fails the gate on a check name given twice: a run never writes one */
	r = result_new();
	result_check(r, "fm:refused:p0.ld1:h1", true, "refused");
	result_check(r, "fm:refused:p0.ld1:h1", true, "refused again");
	result_check(r, "fm:refused:p0.ld1:h1", false, "and again");
	result_check(r, "fm:refused:p0.ld1:h10", true, "another host");
	ok(!strcmp(((struct res_check *)g_ptr_array_index(r->checks, 1))->name,
		   "fm:refused:p0.ld1:h1#2") &&
	   !strcmp(((struct res_check *)g_ptr_array_index(r->checks, 2))->name,
		   "fm:refused:p0.ld1:h1#3") &&
	   !strcmp(((struct res_check *)g_ptr_array_index(r->checks, 3))->name,
		   "fm:refused:p0.ld1:h10"),
	   "a check name recorded again is numbered: NAME#2, NAME#3");
	result_free(r);
	return done_testing();
}
