/* SPDX-License-Identifier: MIT */
/* summary.json keeps product.md's contract; verdicts follow the checks. */
#include "tap.h"
#include "result.h"

static JsonObject *host0(JsonObject *root)
{
	return json_array_get_object_element(json_object_get_array_member(root, "hosts"), 0);
}

int main(void)
{
	struct run_result *r = result_new();
	struct res_host *h;
	struct res_node *n;
	JsonNode *root;
	JsonObject *o, *node;
	const char *keys[] = { "schema", "run_id", "topology", "scenario", "timing_model",
			       "boot_ready_s", "hosts", "workloads", "faults", "checks", "verdict" };
	bool all = true;

	plan(10);
	r->run_id = g_strdup("20261122-000000-t");
	r->topology = g_strdup("t.topo");
	r->scenario = g_strdup("default");
	r->boot_ready_s = 6.5;
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
