/* SPDX-License-Identifier: MIT */
/*
 * Reading results back: summary.json into a run_result and table.json
 * into a table, so that reports can be redrawn and runs compared after
 * the fact (cxlbed report, cxlbed compare, cxlbed sweep --collect).
 */
#include "results/result_read.h"
#include "common/error.h"
#include "common/json_read.h"
#include "common/paths.h"

#include <string.h>

/*
 * Reading one file: its name for errors and the first error. Every member
 * read is checked for its type; absent and null both mean "not given".
 */
struct rd {
	const char *file;
	GError *err;
};

static JsonNode *given(JsonObject *o, const char *key)
{
	JsonNode *n = o ? json_object_get_member(o, key) : NULL;

	return n && !JSON_NODE_HOLDS_NULL(n) ? n : NULL;
}

static void wrong(struct rd *rd, const char *at, const char *key, const char *want, JsonNode *n)
{
	if (!rd->err)
		g_set_error(&rd->err, CXLBED_ERROR, CXLBED_ERROR_INPUT, "%s: %s%s%s: want %s, found %s",
			    rd->file, at, *at && *key ? "." : "", key, want,
			    n ? json_read_type_name(n) : "nothing");
}

static bool is_type(JsonNode *n, GType t)
{
	return JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == t;
}

static bool is_string(JsonNode *n) { return is_type(n, G_TYPE_STRING); }
static bool is_number(JsonNode *n) { return is_type(n, G_TYPE_DOUBLE) || is_type(n, G_TYPE_INT64); }
static bool is_int(JsonNode *n) { return is_type(n, G_TYPE_INT64); }
static bool is_bool(JsonNode *n) { return is_type(n, G_TYPE_BOOLEAN); }
static bool is_array(JsonNode *n) { return JSON_NODE_HOLDS_ARRAY(n); }
static bool is_object(JsonNode *n) { return JSON_NODE_HOLDS_OBJECT(n); }

/* Member @key when given and @is says it is what it should be (@want); NULL otherwise. */
static JsonNode *typed(struct rd *rd, JsonObject *o, const char *at, const char *key,
		       bool (*is)(JsonNode *), const char *want)
{
	JsonNode *n = given(o, key);

	if (n && !is(n)) {
		wrong(rd, at, key, want, n);
		return NULL;
	}
	return n;
}

static const char *str_of(struct rd *rd, JsonObject *o, const char *at, const char *key)
{
	JsonNode *n = typed(rd, o, at, key, is_string, "a string");

	return n ? json_node_get_string(n) : NULL;
}

/* A figure: its number, or -1 when null or absent (never measured). */
static double figure_of(struct rd *rd, JsonObject *o, const char *at, const char *key)
{
	JsonNode *n = typed(rd, o, at, key, is_number, "a number or null");

	return n ? json_node_get_double(n) : -1;
}

static gint64 int_of(struct rd *rd, JsonObject *o, const char *at, const char *key, gint64 def)
{
	JsonNode *n = typed(rd, o, at, key, is_int, "an integer");

	return n ? json_node_get_int(n) : def;
}

static bool bool_of(struct rd *rd, JsonObject *o, const char *at, const char *key, bool def)
{
	JsonNode *n = typed(rd, o, at, key, is_bool, "true or false");

	return n ? json_node_get_boolean(n) : def;
}

static JsonArray *array_of(struct rd *rd, JsonObject *o, const char *at, const char *key)
{
	JsonNode *n = typed(rd, o, at, key, is_array, "an array");

	return n ? json_node_get_array(n) : NULL;
}

static JsonObject *object_of(struct rd *rd, JsonObject *o, const char *at, const char *key)
{
	JsonNode *n = typed(rd, o, at, key, is_object, "an object");

	return n ? json_node_get_object(n) : NULL;
}

/* The strings of array @key into @into; anything else in it is an error. */
static void strings_of(struct rd *rd, JsonObject *o, const char *at, const char *key,
		       GPtrArray *into)
{
	JsonArray *a = array_of(rd, o, at, key);

	for (guint i = 0; a && i < json_array_get_length(a) && !rd->err; i++) {
		JsonNode *n = json_array_get_element(a, i);
		g_autofree char *where = g_strdup_printf("%s%s%s[%u]", at, *at ? "." : "",
							 key, i);

		if (!is_string(n))
			wrong(rd, where, "", "a string", n);
		else
			g_ptr_array_add(into, g_strdup(json_node_get_string(n)));
	}
}

/* Element @i of array @key: an object, whose place is returned in *@where. */
static JsonObject *element_of(struct rd *rd, JsonArray *a, guint i, const char *at,
			      const char *key, char **where)
{
	JsonNode *n = json_array_get_element(a, i);

	g_free(*where);
	*where = g_strdup_printf("%s%s%s[%u]", at, *at ? "." : "", key, i);
	if (!JSON_NODE_HOLDS_OBJECT(n)) {
		wrong(rd, *where, "", "an object", n);
		return NULL;
	}
	return json_node_get_object(n);
}

/* Each element of array @key of @o, an object, through @fn into @into. */
static void read_each(struct rd *rd, void *into, JsonObject *o, const char *key,
		      void (*fn)(struct rd *, void *, JsonObject *, const char *))
{
	JsonArray *a = array_of(rd, o, "", key);
	g_autofree char *where = NULL;

	for (guint i = 0; a && i < json_array_get_length(a) && !rd->err; i++) {
		JsonObject *e = element_of(rd, a, i, "", key, &where);

		if (e)
			fn(rd, into, e, where);
	}
}

/*
 * @text (named @name in errors) as a JSON object whose "schema" is
 * @schema exactly (NULL: any); its root node, or NULL and *error.
 */
static JsonNode *parse_root(const char *name, const char *text, gsize len, const char *schema,
			    GError **error)
{
	g_autoptr(JsonNode) root = json_read_text(name, text, len, error);
	struct rd rd = { .file = name };
	const char *got;

	if (!root)
		return NULL;
	if (!JSON_NODE_HOLDS_OBJECT(root)) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT, "%s: want a JSON object, found %s",
			    name, json_read_type_name(root));
		return NULL;
	}
	got = str_of(&rd, json_node_get_object(root), "", "schema");
	if (!rd.err && schema && g_strcmp0(got, schema)) {
		/* the file's own text, as it may reach a terminal */
		g_autofree char *shown = cxlbed_printable(got ? got : "(none)");

		g_set_error(&rd.err, CXLBED_ERROR, CXLBED_ERROR_INPUT,
			    "%s: schema '%s': this cxlbed reads %s", name, shown, schema);
	}
	if (rd.err) {
		g_propagate_error(error, rd.err);
		return NULL;
	}
	return g_steal_pointer(&root);
}

/* PATH's whole text; NULL and an input error naming PATH when unreadable. */
static char *slurp(const char *path, gsize *len, GError **error)
{
	g_autoptr(GError) err = NULL;
	char *text = NULL;

	if (!g_file_get_contents(path, &text, len, &err))
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT, "%s: %s", path, err->message);
	return text;
}

static void read_node(struct rd *rd, struct res_host *h, JsonObject *o, const char *at)
{
	const char *dax = str_of(rd, o, at, "dax"), *region = str_of(rd, o, at, "region");
	gint64 num = int_of(rd, o, at, "node", -1);
	struct res_node *n;

	/* The host's nodes are a set: a second copy would silently replace the first. */
	if (dax && result_host_find_dax(h, region)) {
		if (!rd->err)
			g_set_error(&rd->err, CXLBED_ERROR, CXLBED_ERROR_INPUT,
				    "%s: %s: host %s's region %s is listed twice", rd->file, at,
				    h->name, region ? region : "(none)");
		return;
	}
	if (!dax && result_host_find_node(h, (int)num)) {
		if (!rd->err)
			g_set_error(&rd->err, CXLBED_ERROR, CXLBED_ERROR_INPUT,
				    "%s: %s: host %s's node %d is listed twice", rd->file, at,
				    h->name, (int)num);
		return;
	}
	n = dax ? result_host_add_dax(h, region, dax) : result_host_add_node(h, (int)num);
	if (!dax) {
		g_free(n->region);
		n->region = g_strdup(region);
	}
	g_free(n->kind);
	n->kind = g_strdup(str_of(rd, o, at, "kind"));
	n->path = g_strdup(str_of(rd, o, at, "path"));
	n->mem_bytes = (uint64_t)int_of(rd, o, at, "mem_bytes", 0);
	n->latency_ns = figure_of(rd, o, at, "latency_ns");
	n->read_gbps = figure_of(rd, o, at, "read_gbps");
	n->write_gbps = figure_of(rd, o, at, "write_gbps");
	n->threads = (int)int_of(rd, o, at, "threads", 0);
	g_free(n->clock);
	n->clock = g_strdup(str_of(rd, o, at, "clock"));
}

static void read_host(struct rd *rd, void *into, JsonObject *o, const char *at)
{
	struct run_result *r = into;
	const char *name = str_of(rd, o, at, "name");
	struct res_host *h = result_add_host(r, name ? name : "?");
	JsonArray *nodes = array_of(rd, o, at, "nodes");
	JsonObject *en = object_of(rd, o, at, "enumeration");
	g_autofree char *where = NULL;

	h->memdevs = (int)int_of(rd, o, at, "memdevs", 0);
	h->boot_ready_s = figure_of(rd, o, at, "boot_ready_s");
	h->kernel = g_strdup(str_of(rd, o, at, "kernel"));
	h->exit = g_strdup(str_of(rd, o, at, "qemu_exit"));
	for (guint i = 0; nodes && i < json_array_get_length(nodes) && !rd->err; i++) {
		JsonObject *no = element_of(rd, nodes, i, at, "nodes", &where);

		if (no)
			read_node(rd, h, no, where);
	}
	if (en)
		h->enumeration = json_object_ref(en);
}

static void read_workload(struct rd *rd, void *into, JsonObject *o, const char *at)
{
	struct run_result *r = into;
	struct res_workload *w = result_add_workload(r, str_of(rd, o, at, "host"),
						     str_of(rd, o, at, "name"),
						     str_of(rd, o, at, "program"),
						     (int)int_of(rd, o, at, "node", -1));
	JsonObject *out = object_of(rd, o, at, "output");

	w->region = g_strdup(str_of(rd, o, at, "region"));
	w->ok = bool_of(rd, o, at, "ok", false);
	w->wall_s = figure_of(rd, o, at, "host_wall_s");
	w->error = g_strdup(str_of(rd, o, at, "error"));
	strings_of(rd, o, at, "warnings", w->warnings);
	if (out)
		w->output = json_object_ref(out);
}

/*
 * A check must say what it is and whether it passed: compare matches on
 * both. Kept as written, a name given twice too: compare says so.
 */
static void read_check(struct rd *rd, void *into, JsonObject *o, const char *at)
{
	struct run_result *r = into;
	const char *name = str_of(rd, o, at, "name"), *detail = str_of(rd, o, at, "detail");
	JsonNode *pass = given(o, "pass");
	struct res_check *c;

	if (!name)
		wrong(rd, at, "name", "a string", NULL);
	if (!pass || !is_bool(pass))
		wrong(rd, at, "pass", "true or false", pass);
	if (rd->err)
		return;
	c = g_new0(struct res_check, 1);
	c->name = g_strdup(name);
	c->pass = json_node_get_boolean(pass);
	c->detail = g_strdup(detail ? detail : "");
	g_ptr_array_add(r->checks, c);
}

static void read_fault(struct rd *rd, void *into, JsonObject *o, const char *at)
{
	struct run_result *r = into;

	(void)rd;
	(void)at;
	g_ptr_array_add(r->faults, json_object_ref(o));
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
		bool ran = false;

		/* a host no workload names keeps its rows: nothing to make them from */
		for (guint k = 0; k < r->workloads->len && !ran; k++)
			ran = !g_strcmp0(((struct res_workload *)
					  g_ptr_array_index(r->workloads, k))->host, h->name);
		for (guint j = 0; ran && j < h->nodes->len; j++) {
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

static struct run_result *result_from_json(const char *file, JsonObject *o, GError **error)
{
	struct rd rd = { .file = file };
	g_autoptr(run_result) r = result_new();
	JsonObject *pool, *kernel;

	r->run_id = g_strdup(str_of(&rd, o, "", "run_id"));
	r->topology = g_strdup(str_of(&rd, o, "", "topology"));
	r->topology_name = g_strdup(str_of(&rd, o, "", "topology_name"));
	r->scenario = g_strdup(str_of(&rd, o, "", "scenario"));
	r->timing_model = bool_of(&rd, o, "", "timing_model", false);
	/* result.h keeps it as one of two words (NULL: not recorded) */
	r->guest_clock = !g_strcmp0(str_of(&rd, o, "", "guest_clock"), "modeled") ? "modeled" :
			 !g_strcmp0(str_of(&rd, o, "", "guest_clock"), "host") ? "host" : NULL;
	r->boot_ready_s = figure_of(&rd, o, "", "boot_ready_s");
	r->wall_s = figure_of(&rd, o, "", "wall_s");
	r->started_at = g_strdup(str_of(&rd, o, "", "started_at"));
	r->qemu_version = g_strdup(str_of(&rd, o, "", "qemu_version"));
	r->interrupted = g_strdup(str_of(&rd, o, "", "interrupted"));
	r->qemu_path = g_strdup(str_of(&rd, o, "", "qemu_path"));
	r->qemu_package = g_strdup(str_of(&rd, o, "", "qemu_package"));
	r->cxlbed_version = g_strdup(str_of(&rd, o, "", "cxlbed_version"));
	r->cxlbed_commit = g_strdup(str_of(&rd, o, "", "cxlbed_commit"));
	strings_of(&rd, o, "", "boot_retries", r->boot_retries);
	if ((kernel = object_of(&rd, o, "", "guest_kernel")))
		r->guest_kernel = json_object_ref(kernel);
	read_each(&rd, r, o, "hosts", read_host);
	read_each(&rd, r, o, "workloads", read_workload);
	node_rows_again(r);
	if ((pool = object_of(&rd, o, "", "pool")))
		r->pool = json_object_ref(pool);
	r->fault_seed = int_of(&rd, o, "", "fault_seed", -1);
	read_each(&rd, r, o, "faults", read_fault);
	read_each(&rd, r, o, "checks", read_check);
	if (rd.err) {
		g_propagate_error(error, rd.err);
		return NULL;
	}
	return g_steal_pointer(&r);
}

struct run_result *result_parse(const char *name, const char *text, gsize len, GError **error)
{
	g_autoptr(JsonNode) root = parse_root(name, text, len, RESULT_SCHEMA, error);

	return root ? result_from_json(name, json_node_get_object(root), error) : NULL;
}

struct run_result *result_load(const char *path, GError **error)
{
	gsize len;
	g_autofree char *text = slurp(path, &len, error);
	struct run_result *r = text ? result_parse(path, text, len, error) : NULL;

	if (r) {
		/* Where it lies now, not where it was written. */
		g_free(r->out_dir);
		r->out_dir = g_path_get_dirname(path);
	}
	return r;
}

static void read_table_run(struct rd *rd, void *into, JsonObject *o, const char *at)
{
	struct table *t = into;
	struct table_run *r = g_new0(struct table_run, 1);

	g_ptr_array_add(t->runs, r);
	r->topology = g_strdup(str_of(rd, o, at, "topology"));
	r->run_id = g_strdup(str_of(rd, o, at, "run_id"));
	r->out_dir = g_strdup(str_of(rd, o, at, "out_dir"));
	r->timing_model = bool_of(rd, o, at, "timing_model", false);
	r->passed = !g_strcmp0(str_of(rd, o, at, "verdict"), "pass");
	r->kernel = g_strdup(str_of(rd, o, at, "kernel"));
}

static void read_table_row(struct rd *rd, void *into, JsonObject *o, const char *at)
{
	struct table *t = into;
	struct table_row *r = g_new0(struct table_row, 1);
	const char *kind = str_of(rd, o, at, "kind"), *path = str_of(rd, o, at, "path");
	const char *clock = str_of(rd, o, at, "clock");

	g_ptr_array_add(t->rows, r);
	r->topology = g_strdup(str_of(rd, o, at, "topology"));
	r->run_id = g_strdup(str_of(rd, o, at, "run_id"));
	r->host = g_strdup(str_of(rd, o, at, "host"));
	r->node = (int)int_of(rd, o, at, "node", -1);
	r->dax = g_strdup(str_of(rd, o, at, "dax"));
	r->region = g_strdup(str_of(rd, o, at, "region"));
	r->kind = g_strdup(kind ? kind : "?");
	r->path = g_strdup(path ? path : "");
	r->via = g_strdup(str_of(rd, o, at, "via"));
	r->latency_ns = figure_of(rd, o, at, "latency_ns");
	r->read_gbps = figure_of(rd, o, at, "read_gbps");
	r->write_gbps = figure_of(rd, o, at, "write_gbps");
	r->sustained_read_gbps = figure_of(rd, o, at, "sustained_read_gbps");
	r->path_read_gbps = figure_of(rd, o, at, "path_read_gbps");
	r->cores_read_gbps = figure_of(rd, o, at, "cores_read_gbps");
	r->config_latency_ns = figure_of(rd, o, at, "configured_latency_ns");
	r->latency_ratio = figure_of(rd, o, at, "latency_ratio");
	r->clock = g_strdup(clock ? clock : "-");
}

static void read_table_curve(struct rd *rd, void *into, JsonObject *o, const char *at)
{
	struct table *t = into;
	struct table_curve *c = g_new0(struct table_curve, 1);
	const char *label = str_of(rd, o, at, "label");
	JsonArray *pts = array_of(rd, o, at, "points");
	g_autofree char *where = NULL;

	g_ptr_array_add(t->curves, c);
	c->label = g_strdup(label ? label : "");
	c->topology = g_strdup(str_of(rd, o, at, "topology"));
	c->host = g_strdup(str_of(rd, o, at, "host"));
	c->node = (int)int_of(rd, o, at, "node", -1);
	c->dax = g_strdup(str_of(rd, o, at, "dax"));
	c->points = g_array_new(FALSE, FALSE, sizeof(struct table_point));
	for (guint j = 0; pts && j < json_array_get_length(pts) && !rd->err; j++) {
		JsonObject *po = element_of(rd, pts, j, at, "points", &where);
		struct table_point p;

		if (!po)
			break;
		p.gbps = figure_of(rd, po, where, "gbps");
		p.latency_ns = figure_of(rd, po, where, "latency_ns");
		p.load_threads = (int)int_of(rd, po, where, "load_threads", 0);
		g_array_append_val(c->points, p);
	}
}

struct table *table_parse(const char *name, const char *text, gsize len, GError **error)
{
	g_autoptr(JsonNode) root = parse_root(name, text, len, TABLE_SCHEMA, error);
	struct rd rd = { .file = name };
	g_autoptr(table) t = NULL;
	JsonObject *o;

	if (!root)
		return NULL;
	o = json_node_get_object(root);
	t = table_build(NULL, NULL, 0);
	t->run_id = g_strdup(str_of(&rd, o, "", "run_id"));
	read_each(&rd, t, o, "runs", read_table_run);
	read_each(&rd, t, o, "rows", read_table_row);
	read_each(&rd, t, o, "curves", read_table_curve);
	if (rd.err) {
		g_propagate_error(error, rd.err);
		return NULL;
	}
	return g_steal_pointer(&t);
}

struct table *table_load(const char *path, GError **error)
{
	gsize len;
	g_autofree char *text = slurp(path, &len, error);

	return text ? table_parse(path, text, len, error) : NULL;
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
		gsize len;
		g_autofree char *text = slurp(path, &len, error);
		g_autoptr(JsonNode) root = text ? parse_root(path, text, len, NULL, error) : NULL;
		struct rd rd = { .file = path };
		const char *schema;

		if (!root)
			return NULL;
		schema = str_of(&rd, json_node_get_object(root), "", "schema");
		if (schema && g_str_has_prefix(schema, "cxlbed.result/"))
			*kind = RESULT_RUN;
		else if (schema && g_str_has_prefix(schema, "cxlbed.table/"))
			*kind = RESULT_TABLE;
		else {
			g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT,
				    "%s: schema '%s' is neither " RESULT_SCHEMA " (summary.json) "
				    "nor " TABLE_SCHEMA " (table.json)", path,
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
