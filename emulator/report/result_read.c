/* SPDX-License-Identifier: MIT */
/*
 * Reading results back: summary.json into a run_result and table.json
 * into a table, so that reports can be redrawn and runs compared after
 * the fact (cxlbed report, cxlbed compare, cxlbed sweep --collect).
 */
#include "result_read.h"
#include "error.h"
#include "paths.h"

#include <string.h>

static const char *str_of(JsonObject *o, const char *key)
{
	JsonNode *n = o ? json_object_get_member(o, key) : NULL;

	return n && JSON_NODE_HOLDS_VALUE(n) &&
		json_node_get_value_type(n) == G_TYPE_STRING ? json_node_get_string(n) : NULL;
}

/* A figure: its number, or -1 when null or absent (never measured). */
double read_figure(JsonObject *o, const char *key)
{
	JsonNode *n = o ? json_object_get_member(o, key) : NULL;

	if (!n || !JSON_NODE_HOLDS_VALUE(n))
		return -1;
	switch (json_node_get_value_type(n)) {
	case G_TYPE_DOUBLE:
	case G_TYPE_INT64:
		return json_node_get_double(n);
	default:
		return -1;
	}
}

static gint64 int_of(JsonObject *o, const char *key, gint64 def)
{
	JsonNode *n = o ? json_object_get_member(o, key) : NULL;

	if (!n || !JSON_NODE_HOLDS_VALUE(n) ||
	    json_node_get_value_type(n) != G_TYPE_INT64)
		return def;
	return json_node_get_int(n);
}

static JsonArray *array_of(JsonObject *o, const char *key)
{
	JsonNode *n = o ? json_object_get_member(o, key) : NULL;

	return n && JSON_NODE_HOLDS_ARRAY(n) ? json_node_get_array(n) : NULL;
}

static JsonObject *object_at(JsonArray *a, guint i)
{
	JsonNode *n = json_array_get_element(a, i);

	return JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
}

JsonNode *read_json_file(const char *path, const char *schema_prefix,
			 GError **error)
{
	g_autoptr(JsonParser) p = json_parser_new();
	g_autoptr(GError) err = NULL;
	JsonNode *root;
	const char *schema;

	if (!json_parser_load_from_file(p, path, &err)) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT,
			    "%s: not readable JSON: %s", path, err->message);
		return NULL;
	}
	root = json_parser_get_root(p);
	if (!root || !JSON_NODE_HOLDS_OBJECT(root)) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT,
			    "%s: not a JSON object", path);
		return NULL;
	}
	schema = str_of(json_node_get_object(root), "schema");
	if (schema_prefix && (!schema || !g_str_has_prefix(schema, schema_prefix))) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT,
			    "%s: schema '%s', expected %s*", path,
			    schema ? schema : "(none)", schema_prefix);
		return NULL;
	}
	return json_node_copy(root);
}

static void read_node(struct res_host *h, JsonObject *o)
{
	const char *dax = str_of(o, "dax");
	struct res_node *n = dax ? result_host_add_dax(h, str_of(o, "region"), dax) :
		result_host_add_node(h, (int)int_of(o, "node", -1));

	if (!dax) {
		g_free(n->region);
		n->region = g_strdup(str_of(o, "region"));
	}
	g_free(n->kind);
	n->kind = g_strdup(str_of(o, "kind"));
	n->path = g_strdup(str_of(o, "path"));
	n->mem_bytes = (uint64_t)int_of(o, "mem_bytes", 0);
	n->latency_ns = read_figure(o, "latency_ns");
	n->read_gbps = read_figure(o, "read_gbps");
	n->write_gbps = read_figure(o, "write_gbps");
	n->threads = (int)int_of(o, "threads", 0);
	g_free(n->clock);
	n->clock = g_strdup(str_of(o, "clock"));
}

static void read_host(struct run_result *r, JsonObject *o)
{
	struct res_host *h = result_add_host(r, str_of(o, "name") ? str_of(o, "name") : "?");
	JsonArray *nodes = array_of(o, "nodes");
	JsonNode *en = json_object_get_member(o, "enumeration");

	h->memdevs = (int)int_of(o, "memdevs", 0);
	h->boot_ready_s = read_figure(o, "boot_ready_s");
	h->kernel = g_strdup(str_of(o, "kernel"));
	h->exit = g_strdup(str_of(o, "qemu_exit"));
	for (guint i = 0; nodes && i < json_array_get_length(nodes); i++)
		if (object_at(nodes, i))
			read_node(h, object_at(nodes, i));
	if (en && JSON_NODE_HOLDS_OBJECT(en))
		h->enumeration = json_object_ref(json_node_get_object(en));
}

static void read_workload(struct run_result *r, JsonObject *o)
{
	struct res_workload *w = result_add_workload(r, str_of(o, "host"), str_of(o, "name"),
						     str_of(o, "program"),
						     (int)int_of(o, "node", -1));
	JsonNode *out = json_object_get_member(o, "output");

	w->region = g_strdup(str_of(o, "region"));
	w->ok = json_object_get_boolean_member_with_default(o, "ok", false);
	w->wall_s = read_figure(o, "host_wall_s");
	w->error = g_strdup(str_of(o, "error"));
	if (out && JSON_NODE_HOLDS_OBJECT(out))
		w->output = json_object_ref(json_node_get_object(out));
}

/*
 * A summary written before a node's row was one thread's stream (it has
 * no node "threads"): its rows held whatever stream ran last, all vCPUs'
 * in a table run. They are made again from its workloads, as the runner
 * makes them now (result_node_take), so that a redrawn page's read
 * column means what a new run's does.
 */
static void node_rows_again(struct run_result *r)
{
	for (guint i = 0; i < r->hosts->len; i++) {
		struct res_host *h = g_ptr_array_index(r->hosts, i);

		for (guint j = 0; j < h->nodes->len; j++) {
			struct res_node *n = g_ptr_array_index(h->nodes, j);

			if (n->threads)
				return;	/* a summary that has them */
		}
	}
	for (guint i = 0; i < r->hosts->len; i++) {
		struct res_host *h = g_ptr_array_index(r->hosts, i);

		for (guint j = 0; j < h->nodes->len; j++) {
			struct res_node *n = g_ptr_array_index(h->nodes, j);

			n->latency_ns = n->read_gbps = n->write_gbps = -1;
			g_clear_pointer(&n->clock, g_free);
		}
	}
	for (guint i = 0; i < r->workloads->len; i++) {
		const struct res_workload *w = g_ptr_array_index(r->workloads, i);
		struct res_host *h = result_find_host(r, w->host);

		if (h && w->output)
			result_node_take(w->region ? result_host_find_dax(h, w->region) :
					 result_host_find_node(h, w->node), w->output);
	}
}

struct run_result *result_from_json(JsonObject *o)
{
	struct run_result *r = result_new();
	JsonArray *a;

	r->run_id = g_strdup(str_of(o, "run_id"));
	r->topology = g_strdup(str_of(o, "topology"));
	r->topology_name = g_strdup(str_of(o, "topology_name"));
	r->scenario = g_strdup(str_of(o, "scenario"));
	r->timing_model = json_object_get_boolean_member_with_default(o, "timing_model", false);
	/* result.h keeps it as one of two words (NULL: not recorded) */
	r->guest_clock = !g_strcmp0(str_of(o, "guest_clock"), "modeled") ? "modeled" :
			 !g_strcmp0(str_of(o, "guest_clock"), "host") ? "host" : NULL;
	r->boot_ready_s = read_figure(o, "boot_ready_s");
	r->wall_s = read_figure(o, "wall_s");
	r->started_at = g_strdup(str_of(o, "started_at"));
	r->qemu_version = g_strdup(str_of(o, "qemu_version"));
	r->interrupted = g_strdup(str_of(o, "interrupted"));
	if ((a = array_of(o, "boot_retries")))
		for (guint i = 0; i < json_array_get_length(a); i++)
			if (JSON_NODE_HOLDS_VALUE(json_array_get_element(a, i)) &&
			    json_node_get_value_type(json_array_get_element(a, i)) == G_TYPE_STRING)
				g_ptr_array_add(r->boot_retries,
						g_strdup(json_array_get_string_element(a, i)));
	if ((a = array_of(o, "hosts")))
		for (guint i = 0; i < json_array_get_length(a); i++)
			if (object_at(a, i))
				read_host(r, object_at(a, i));
	if ((a = array_of(o, "workloads")))
		for (guint i = 0; i < json_array_get_length(a); i++)
			if (object_at(a, i))
				read_workload(r, object_at(a, i));
	node_rows_again(r);
	if (json_object_has_member(o, "pool") &&
	    JSON_NODE_HOLDS_OBJECT(json_object_get_member(o, "pool")))
		r->pool = json_object_ref(json_object_get_object_member(o, "pool"));
	r->fault_seed = json_object_get_int_member_with_default(o, "fault_seed", -1);
	if ((a = array_of(o, "faults")))
		for (guint i = 0; i < json_array_get_length(a); i++)
			if (object_at(a, i))
				g_ptr_array_add(r->faults, json_object_ref(object_at(a, i)));
	if ((a = array_of(o, "checks")))
		for (guint i = 0; i < json_array_get_length(a); i++) {
			JsonObject *c = object_at(a, i);

			if (c)
				result_check(r, str_of(c, "name") ? str_of(c, "name") : "?",
					     json_object_get_boolean_member_with_default(c, "pass", false),
					     "%s", str_of(c, "detail") ? str_of(c, "detail") : "");
		}
	return r;
}

struct run_result *result_load(const char *path, GError **error)
{
	g_autoptr(JsonNode) root = read_json_file(path, "cxlbed.result/", error);
	struct run_result *r;
	g_autofree char *dir = NULL;

	if (!root)
		return NULL;
	r = result_from_json(json_node_get_object(root));
	/* Where it lies now, not where it was written. */
	dir = g_path_get_dirname(path);
	g_free(r->out_dir);
	r->out_dir = g_steal_pointer(&dir);
	return r;
}

struct table *table_from_json(JsonObject *o)
{
	struct table *t = table_build(NULL, NULL, 0);
	JsonArray *a;

	t->run_id = g_strdup(str_of(o, "run_id"));
	if ((a = array_of(o, "runs")))
		for (guint i = 0; i < json_array_get_length(a); i++) {
			JsonObject *ro = object_at(a, i);
			struct table_run *r;

			if (!ro)
				continue;
			r = g_new0(struct table_run, 1);
			r->topology = g_strdup(str_of(ro, "topology"));
			r->run_id = g_strdup(str_of(ro, "run_id"));
			r->out_dir = g_strdup(str_of(ro, "out_dir"));
			r->timing_model = json_object_get_boolean_member_with_default(ro, "timing_model", false);
			r->passed = !g_strcmp0(str_of(ro, "verdict"), "pass");
			g_ptr_array_add(t->runs, r);
		}
	if ((a = array_of(o, "rows")))
		for (guint i = 0; i < json_array_get_length(a); i++) {
			JsonObject *ro = object_at(a, i);
			struct table_row *r;

			if (!ro)
				continue;
			r = g_new0(struct table_row, 1);
			r->topology = g_strdup(str_of(ro, "topology"));
			r->run_id = g_strdup(str_of(ro, "run_id"));
			r->host = g_strdup(str_of(ro, "host"));
			r->node = (int)int_of(ro, "node", -1);
			r->dax = g_strdup(str_of(ro, "dax"));
			r->region = g_strdup(str_of(ro, "region"));
			r->kind = g_strdup(str_of(ro, "kind") ? str_of(ro, "kind") : "?");
			r->path = g_strdup(str_of(ro, "path") ? str_of(ro, "path") : "");
			r->via = g_strdup(str_of(ro, "via"));
			r->latency_ns = read_figure(ro, "latency_ns");
			r->read_gbps = read_figure(ro, "read_gbps");
			r->write_gbps = read_figure(ro, "write_gbps");
			r->sustained_read_gbps = read_figure(ro, "sustained_read_gbps");
			r->path_read_gbps = read_figure(ro, "path_read_gbps");
			r->config_latency_ns = read_figure(ro, "configured_latency_ns");
			r->cores_read_gbps = read_figure(ro, "cores_read_gbps");
			r->latency_ratio = read_figure(ro, "latency_ratio");
			r->clock = g_strdup(str_of(ro, "clock") ? str_of(ro, "clock") : "-");
			g_ptr_array_add(t->rows, r);
		}
	if ((a = array_of(o, "curves")))
		for (guint i = 0; i < json_array_get_length(a); i++) {
			JsonObject *co = object_at(a, i);
			JsonArray *pts;
			struct table_curve *c;

			if (!co)
				continue;
			c = g_new0(struct table_curve, 1);
			c->label = g_strdup(str_of(co, "label") ? str_of(co, "label") : "");
			c->topology = g_strdup(str_of(co, "topology"));
			c->host = g_strdup(str_of(co, "host"));
			c->node = (int)int_of(co, "node", -1);
			c->dax = g_strdup(str_of(co, "dax"));
			c->points = g_array_new(FALSE, FALSE, sizeof(struct table_point));
			pts = array_of(co, "points");
			for (guint j = 0; pts && j < json_array_get_length(pts); j++) {
				JsonObject *po = object_at(pts, j);
				struct table_point p;

				if (!po)
					continue;
				p.gbps = read_figure(po, "gbps");
				p.latency_ns = read_figure(po, "latency_ns");
				p.load_threads = (int)int_of(po, "load_threads", 0);
				g_array_append_val(c->points, p);
			}
			g_ptr_array_add(t->curves, c);
		}
	return t;
}

struct table *table_load(const char *path, GError **error)
{
	g_autoptr(JsonNode) root = read_json_file(path, "cxlbed.table/", error);

	return root ? table_from_json(json_node_get_object(root)) : NULL;
}

char *result_locate(const char *path, enum result_kind *kind, GError **error)
{
	static const struct {
		const char *name;
		enum result_kind kind;
	} files[] = { { "summary.json", RESULT_RUN }, { "table.json", RESULT_TABLE } };

	*kind = RESULT_NONE;
	if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
		for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
			g_autofree char *f = g_build_filename(path, files[i].name, NULL);

			if (g_file_test(f, G_FILE_TEST_IS_REGULAR)) {
				*kind = files[i].kind;
				return g_steal_pointer(&f);
			}
		}
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT,
			    "%s: no summary.json (a run) or table.json (a table) in "
			    "this folder; give a run or table folder", path);
		return NULL;
	}
	if (!g_file_test(path, G_FILE_TEST_IS_REGULAR)) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT,
			    "%s: no such file or folder", path);
		return NULL;
	}
	{
		g_autoptr(JsonNode) root = read_json_file(path, NULL, error);
		const char *schema;

		if (!root)
			return NULL;
		schema = str_of(json_node_get_object(root), "schema");
		if (schema && g_str_has_prefix(schema, "cxlbed.result/"))
			*kind = RESULT_RUN;
		else if (schema && g_str_has_prefix(schema, "cxlbed.table/"))
			*kind = RESULT_TABLE;
		else {
			g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT,
				    "%s: schema '%s' is neither cxlbed.result/1 (summary.json) "
				    "nor cxlbed.table/1 (table.json)", path,
				    schema ? schema : "(none)");
			return NULL;
		}
	}
	return g_strdup(path);
}

struct cb_topology *result_topology(const char *recorded)
{
	g_autofree char *under_root = NULL;

	if (!recorded)
		return NULL;
	if (!g_path_is_absolute(recorded) && !g_file_test(recorded, G_FILE_TEST_EXISTS))
		under_root = g_build_filename(cxlbed_root(), recorded, NULL);
	return topology_load(under_root ? under_root : recorded, NULL);
}

struct cb_topology *table_run_topology(const char *table_dir, const struct table_run *r)
{
	g_autofree char *base = g_path_get_basename(r->out_dir ? r->out_dir : "");
	g_autofree char *summary = g_build_filename(table_dir, base, "summary.json", NULL);
	g_autoptr(GError) err = NULL;
	g_autoptr(run_result) res = result_load(summary, &err);

	return res ? result_topology(res->topology) : NULL;
}
