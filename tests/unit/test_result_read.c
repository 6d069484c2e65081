/* SPDX-License-Identifier: MIT */
/*
 * summary.json and table.json read back (what compare, report and sweep
 * --collect read): every committed result reads; each way a file can be
 * wrong is refused with the file and the member, never a crash, never a
 * value made up or silently dropped.
 */
#include "tap.h"
#include "common/error.h"
#include "common/json_read.h"
#include "common/json_write.h"
#include "results/result_read.h"

#define BASELINE SRCDIR "/results/baseline/default/summary.json"
#define TABLE SRCDIR "/results/reference/table/table.json"

static JsonNode *read_tree(const char *path)
{
	return json_read_file(path, NULL);
}

/* @root edited by @edit, then read back as a run (or a table): the error, or NULL. */
static char *refusal(const char *path, void (*edit)(JsonObject *), bool is_table)
{
	g_autoptr(JsonNode) root = read_tree(path);
	g_autofree char *text = NULL;
	g_autoptr(GError) err = NULL;

	edit(json_node_get_object(root));
	text = json_write_text(root, false);
	if (is_table) {
		g_autoptr(table) t = table_parse("t.json", text, strlen(text), &err);

		if (t)
			return NULL;
	} else {
		g_autoptr(run_result) r = result_parse("s.json", text, strlen(text), &err);

		if (r)
			return NULL;
	}
	return err && err->code == CXLBED_ERROR_INPUT ? g_strdup(err->message) : g_strdup("?");
}

static void refused_as(const char *path, void (*edit)(JsonObject *), bool is_table,
		       const char *want, const char *what)
{
	g_autofree char *msg = refusal(path, edit, is_table);

	ok(msg && !strcmp(msg, want), "%s: refused naming the member", what);
	if (!msg || strcmp(msg, want))
		diag("  got '%s', want '%s'", msg ? msg : "(read)", want);
}

static JsonObject *node_1(JsonObject *o)
{
	JsonObject *h = json_array_get_object_element(json_object_get_array_member(o, "hosts"), 0);

	return json_array_get_object_element(json_object_get_array_member(h, "nodes"), 1);
}

static void schema_999(JsonObject *o)
{
	json_object_set_string_member(o, "schema", "cxlbed.result/999");
}

static void no_schema(JsonObject *o)
{
	json_object_remove_member(o, "schema");
}

static void latency_string(JsonObject *o)
{
	json_object_set_string_member(node_1(o), "latency_ns", "221");
}

static void node_twice(JsonObject *o)
{
	JsonObject *h = json_array_get_object_element(json_object_get_array_member(o, "hosts"), 0);

	json_array_add_object_element(json_object_get_array_member(h, "nodes"),
				      json_object_ref(node_1(o)));
}

static void check_no_pass(JsonObject *o)
{
	json_object_remove_member(json_array_get_object_element(
		json_object_get_array_member(o, "checks"), 2), "pass");
}

static void check_pass_string(JsonObject *o)
{
	json_object_set_string_member(json_array_get_object_element(
		json_object_get_array_member(o, "checks"), 0), "pass", "true");
}

static void workload_number(JsonObject *o)
{
	json_array_add_int_element(json_object_get_array_member(o, "workloads"), 5);
}

static void hosts_object(JsonObject *o)
{
	json_object_set_object_member(o, "hosts", json_object_new());
}

static void node_number_double(JsonObject *o)
{
	json_object_set_double_member(node_1(o), "node", 1.5);
}

static void table_999(JsonObject *o)
{
	json_object_set_string_member(o, "schema", "cxlbed.table/2");
}

static void table_row_string(JsonObject *o)
{
	json_object_set_string_member(json_array_get_object_element(
		json_object_get_array_member(o, "rows"), 3), "read_gbps", "fast");
}

static void table_point_bool(JsonObject *o)
{
	JsonObject *c = json_array_get_object_element(json_object_get_array_member(o, "curves"), 0);

	json_object_set_boolean_member(json_array_get_object_element(
		json_object_get_array_member(c, "points"), 0), "gbps", TRUE);
}

static void test_committed(void)
{
	static const char *const runs[] = {
		"results/baseline/default/summary.json",
		"results/reference/table/default/summary.json",
		"results/reference/table/shared-pool/summary.json",
		"tests/data/report-runs/faults-pool/summary.json",
		"tests/data/report-runs/pool-policies/summary.json",
	};
	g_autoptr(table) t = table_load(TABLE, NULL);

	for (guint i = 0; i < G_N_ELEMENTS(runs); i++) {
		g_autofree char *p = g_build_filename(SRCDIR, runs[i], NULL);
		g_autoptr(GError) err = NULL;
		g_autoptr(run_result) r = result_load(p, &err);

		ok(r && r->checks->len > 0, "%s reads (%s)", runs[i], err ? err->message : "ok");
	}
	ok(t && t->rows->len > 10, "the reference table reads");
	ok(t && ((struct table_row *)g_ptr_array_index(t->rows, 0))->cores_read_gbps > 0,
	   "and its cores_read_gbps is read back (the 'bound' column needs it)");
}

/* Each edit refused: the file, the edit, a table or a run, the message, what it is. */
static const struct {
	const char *path;
	void (*edit)(JsonObject *);
	bool is_table;
	const char *want, *what;
} refusals[] = {
	{ BASELINE, schema_999, false,
	  "s.json: schema 'cxlbed.result/999': this cxlbed reads cxlbed.result/1",
	  "schema cxlbed.result/999" },
	{ BASELINE, no_schema, false,
	  "s.json: schema '(none)': this cxlbed reads cxlbed.result/1",
	  "no schema" },
	{ BASELINE, latency_string, false,
	  "s.json: hosts[0].nodes[1].latency_ns: want a number or null, found a string",
	  "a node's figure given as a string (was dropped)" },
	{ BASELINE, node_twice, false,
	  "s.json: hosts[0].nodes[2]: host h0's node 1 is listed twice",
	  "a node listed twice (the second replaced the first)" },
	{ BASELINE, check_no_pass, false,
	  "s.json: checks[2].pass: want true or false, found nothing",
	  "a check without pass (read as failed)" },
	{ BASELINE, check_pass_string, false,
	  "s.json: checks[0].pass: want true or false, found a string",
	  "a check's pass as a string" },
	{ BASELINE, workload_number, false,
	  "s.json: workloads[4]: want an object, found an integer",
	  "a workload that is a number (was skipped)" },
	{ BASELINE, hosts_object, false,
	  "s.json: hosts: want an array, found an object",
	  "hosts as an object" },
	{ BASELINE, node_number_double, false,
	  "s.json: hosts[0].nodes[1].node: want an integer, found a number",
	  "a node number 1.5" },
	{ TABLE, table_999, true,
	  "t.json: schema 'cxlbed.table/2': this cxlbed reads cxlbed.table/1",
	  "schema cxlbed.table/2" },
	{ TABLE, table_row_string, true,
	  "t.json: rows[3].read_gbps: want a number or null, found a string",
	  "a table figure as a string" },
	{ TABLE, table_point_bool, true,
	  "t.json: curves[0].points[0].gbps: want a number or null, found true or false",
	  "a curve point as true" },
};

static void test_refused(void)
{
	for (guint i = 0; i < G_N_ELEMENTS(refusals); i++)
		refused_as(refusals[i].path, refusals[i].edit, refusals[i].is_table,
			   refusals[i].want, refusals[i].what);
}

/* Issue 34 #1: 100,000 nested '[' overflowed the stack of compare, report, collect. */
static void test_hostile_text(void)
{
	GString *deep = g_string_new(NULL);
	g_autoptr(GError) err = NULL, err2 = NULL, err3 = NULL;
	g_autoptr(run_result) r = NULL, inf = NULL;
	g_autoptr(table) t = NULL;
	const char *big = "{\"schema\":\"cxlbed.result/1\",\"hosts\":[{\"name\":\"h0\",\"nodes\":"
			  "[{\"node\":0,\"latency_ns\":1e400}]}]}";

	for (int i = 0; i < 100000; i++)
		g_string_append_c(deep, '[');
	g_string_prepend(deep, "{\"schema\":\"cxlbed.result/1\",\"hosts\":");
	r = result_parse("deep.json", deep->str, deep->len, &err);
	ok(!r && err && strstr(err->message, "deep.json:1: column 100: nested deeper than 64"),
	   "100,000 nested '[': refused, no stack overflow (%s)", err ? err->message : "read");
	g_string_erase(deep, 0, strlen("{\"schema\":\"cxlbed.result/1\",\"hosts\":"));
	g_string_prepend(deep, "{\"schema\":\"cxlbed.table/1\",\"rows\":");
	t = table_parse("deep.json", deep->str, deep->len, &err2);
	ok(!t && err2 && strstr(err2->message, "nested deeper"), "the same as a table");
	g_string_free(deep, TRUE);
	inf = result_parse("inf.json", big, strlen(big), &err3);
	ok(!inf && err3 && strstr(err3->message, "inf.json:1: column 83: the number 1e400 is beyond"),
	   "a figure of 1e400 (read as infinity, written as inf.0) is refused (%s)",
	   err3 ? err3->message : "read");
}

#define FOUND SRCDIR "/tests/fuzz/results"
#define REFUSED SRCDIR "/tests/fuzz/results-refused"

static int by_name(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files of @dir (tests/fuzz/results: what fuzz-results found, and seeds of it). */
static GPtrArray *found_files(const char *dir)
{
	GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
	GDir *d = g_dir_open(dir, 0, NULL);
	const char *name;

	while (d && (name = g_dir_read_name(d)))
		g_ptr_array_add(files, g_strdup(name));
	if (d)
		g_dir_close(d);
	g_ptr_array_sort(files, by_name);
	return files;
}

/*
 * Each found file reads, and written back as summary.json is, reads again
 * (json-glib wrote 1e20 as "1e+20.0", which no reader takes).
 */
static void test_found(const GPtrArray *files)
{
	for (guint i = 0; i < files->len; i++) {
		const char *name = g_ptr_array_index(files, i);
		g_autofree char *path = g_build_filename(FOUND, name, NULL);
		g_autoptr(GError) err = NULL, again_err = NULL;
		g_autoptr(run_result) r = result_load(path, &err);
		g_autoptr(JsonNode) back = r ? result_to_json(r) : NULL;
		g_autofree char *text = back ? json_write_text(back, true) : NULL;
		g_autoptr(run_result) again = text ? result_parse("again", text, strlen(text),
								  &again_err) : NULL;

		ok(r && again, "tests/fuzz/results/%s reads, and again as written (%s)", name,
		   err ? err->message : again_err ? again_err->message : "ok");
	}
}

/*
 * Each file of tests/fuzz/results-refused (inputs fuzz-results crashed on)
 * is refused with an error that names it and could reach a terminal:
 * UTF-8, no control characters.
 */
static void test_crashers(const GPtrArray *files)
{
	for (guint i = 0; i < files->len; i++) {
		const char *name = g_ptr_array_index(files, i);
		g_autofree char *path = g_build_filename(REFUSED, name, NULL);
		g_autoptr(GError) err = NULL;
		g_autoptr(run_result) r = result_load(path, &err);
		bool clean = err && g_str_has_prefix(err->message, path) &&
			     g_utf8_validate(err->message, -1, NULL);

		for (const char *p = clean ? err->message : ""; *p; p = g_utf8_next_char(p))
			clean = clean && !g_unichar_iscntrl(g_utf8_get_char(p));
		ok(!r && clean, "tests/fuzz/results-refused/%s is refused, its error printable (%s)",
		   name, err ? err->message : "read");
	}
}

int main(void)
{
	g_autoptr(GPtrArray) found = found_files(FOUND);
	g_autoptr(GPtrArray) refused = found_files(REFUSED);

	plan(22 + found->len + refused->len);
	test_committed();
	test_refused();
	test_hostile_text();
	test_found(found);
	test_crashers(refused);
	return done_testing();
}
