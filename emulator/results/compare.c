/* SPDX-License-Identifier: MIT */
/* Matching and judging two results (see compare.h). */
#include "results/compare.h"
#include "common/error.h"
#include "common/json_read.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_THRESHOLD 0.05
/* The node table's "workload": no scenario workload id has brackets. */
#define NODES "nodes[]"

static void fact_free(gpointer p)
{
	struct cmp_fact *f = p;

	g_free(f->topology);
	g_free(f->host);
	g_free(f->where);
	g_free(f->workload);
	g_free(f->figure);
	g_free(f->row);
	g_free(f->clock);
	g_free(f);
}

static void check_free(gpointer p)
{
	struct cmp_check *c = p;

	g_free(c->name);
	g_free(c->scope);
	g_free(c);
}

static void dup_free(gpointer p)
{
	struct cmp_dup *d = p;

	g_free(d->what);
	g_free(d->name);
	g_free(d);
}

static struct cmp_side *side_new(const char *label, const char *schema)
{
	struct cmp_side *s = g_new0(struct cmp_side, 1);

	s->label = g_strdup(label);
	s->schema = g_strdup(schema);
	s->facts = g_ptr_array_new_with_free_func(fact_free);
	s->checks = g_ptr_array_new_with_free_func(check_free);
	s->seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	s->duplicates = g_ptr_array_new_with_free_func(dup_free);
	return s;
}

void cmp_side_free(struct cmp_side *s)
{
	if (!s)
		return;
	g_free(s->label);
	g_free(s->schema);
	g_free(s->kernel);
	g_ptr_array_unref(s->facts);
	g_ptr_array_unref(s->checks);
	g_hash_table_unref(s->seen);
	g_ptr_array_unref(s->duplicates);
	g_free(s);
}

/* One more copy of check or row @name in @s; a second one makes it a duplicate. */
static void count_copy(struct cmp_side *s, const char *what, const char *name)
{
	g_autofree char *key = g_strdup_printf("%s %s", what, name);
	guint n = GPOINTER_TO_UINT(g_hash_table_lookup(s->seen, key)) + 1;

	g_hash_table_replace(s->seen, g_strdup(key), GUINT_TO_POINTER(n));
	if (n == 2) {
		struct cmp_dup *d = g_new0(struct cmp_dup, 1);

		d->what = g_strdup(what);
		d->name = g_strdup(name);
		g_ptr_array_add(s->duplicates, d);
	}
	for (guint i = 0; n >= 2 && i < s->duplicates->len; i++) {
		struct cmp_dup *d = g_ptr_array_index(s->duplicates, i);

		if (!strcmp(d->what, what) && !strcmp(d->name, name))
			d->copies = n;
	}
}

static bool given_twice(const struct cmp_side *s, const char *what, const char *name)
{
	g_autofree char *key = g_strdup_printf("%s %s", what, name);

	return GPOINTER_TO_UINT(g_hash_table_lookup(s->seen, key)) > 1;
}

static void add_fact(struct cmp_side *s, const char *row, const char *topology, const char *host,
		     const char *where, const char *workload, const char *figure,
		     enum cmp_kind kind, double value, const char *clock)
{
	struct cmp_fact *f = g_new0(struct cmp_fact, 1);

	f->topology = g_strdup(topology ? topology : "?");
	f->host = g_strdup(host ? host : "?");
	f->where = g_strdup(where);
	f->workload = g_strdup(workload ? workload : "?");
	f->figure = g_strdup(figure);
	f->row = g_strdup(row);
	f->kind = kind;
	f->value = value;
	f->clock = g_strdup(clock ? clock : "-");
	g_ptr_array_add(s->facts, f);
	/* a figure twice in one row (a table curve's load given twice) */
	if (!given_twice(s, "row", row)) {
		g_autofree char *name = g_strdup_printf("%s %s", row, figure);

		count_copy(s, "figure", name);
	}
}

/* Is @f one of several copies in @s (its row or itself given twice)? */
static bool fact_given_twice(const struct cmp_side *s, const struct cmp_fact *f)
{
	g_autofree char *name = g_strdup_printf("%s %s", f->row, f->figure);

	return given_twice(s, "row", f->row) || given_twice(s, "figure", name);
}

/* As a side holds them: a check's name and whether it passed. */
static void add_check(struct cmp_side *s, const char *name, const char *scope, bool pass)
{
	struct cmp_check *c = g_new0(struct cmp_check, 1);

	c->name = g_strdup(name);
	c->scope = g_strdup(scope);
	c->base_pass = c->cand_pass = pass;
	g_ptr_array_add(s->checks, c);
	count_copy(s, "check", name);
}

static char *where_of(const char *region, int node)
{
	if (region)
		return g_strdup_printf("region %s", region);
	if (node >= 0)
		return g_strdup_printf("node %d", node);
	return g_strdup("host");
}

/* A row of a side, for people and for duplicates: "direct h0 node 1 chase". */
static char *row_of(struct cmp_side *s, const char *topology, const char *host,
		    const char *where, const char *workload)
{
	char *row = g_strdup_printf("%s %s %s%s%s", topology ? topology : "?", host ? host : "?",
				    where, workload ? " " : "", workload ? workload : "");

	count_copy(s, "row", row);
	return row;
}

/* A workload output's member by name: latency (ns) or bandwidth (GB/s). */
static bool kind_of(const char *name, enum cmp_kind *kind)
{
	if (g_str_has_suffix(name, "_gbps") || !strcmp(name, "gbps")) {
		*kind = CMP_BANDWIDTH;
		return true;
	}
	if (g_str_has_suffix(name, "_ns") || strstr(name, "ns_per_access")) {
		*kind = CMP_LATENCY;
		return true;
	}
	return false;
}

/* The figures of workload @i's output (its modeled ones when the model ran). */
static bool add_output(struct cmp_side *s, const char *file, const char *topo, guint i,
		       const struct res_workload *w, GError **error)
{
	g_autofree char *where = where_of(w->region, w->node);
	g_autofree char *row = row_of(s, topo, w->host, where, w->name ? w->name : "?");
	g_autoptr(GList) members = NULL;
	JsonObject *figs = w->output;
	JsonNode *modeled = json_object_get_member(figs, "modeled");
	const char *clock = "guest", *at = "output";

	if (modeled && !JSON_NODE_HOLDS_NULL(modeled)) {
		if (!JSON_NODE_HOLDS_OBJECT(modeled)) {
			g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT,
				    "%s: workloads[%u].output.modeled: want an object, found %s",
				    file, i, json_read_type_name(modeled));
			return false;
		}
		figs = json_node_get_object(modeled);
		clock = "modeled";
		at = "output.modeled";
	}
	members = json_object_get_members(figs);
	for (GList *l = members; l; l = l->next) {
		JsonNode *v = json_object_get_member(figs, l->data);
		enum cmp_kind kind;
		bool number = JSON_NODE_HOLDS_VALUE(v) &&
			(json_node_get_value_type(v) == G_TYPE_DOUBLE ||
			 json_node_get_value_type(v) == G_TYPE_INT64);

		if (!kind_of(l->data, &kind))
			continue;
		if (!number && !JSON_NODE_HOLDS_NULL(v)) {
			g_autofree char *name = cxlbed_printable(l->data);

			g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT,
				    "%s: workloads[%u].%s.%s: a figure, want a number or null, "
				    "found %s", file, i, at, name, json_read_type_name(v));
			return false;
		}
		add_fact(s, row, topo, w->host, where, w->name, l->data, kind,
			 number ? json_node_get_double(v) : -1, clock);
	}
	return true;
}

struct cmp_side *cmp_side_from_run(const char *label, const char *file,
				   const struct run_result *r, GError **error)
{
	struct cmp_side *s = side_new(label, RESULT_SCHEMA);
	const char *topo = r->topology_name ? r->topology_name : r->topology;

	s->kernel = result_kernel_words(r);
	static const struct {
		const char *name;
		enum cmp_kind kind;
	} node_figs[] = { { "latency_ns", CMP_LATENCY }, { "read_gbps", CMP_BANDWIDTH },
			  { "write_gbps", CMP_BANDWIDTH } };

	for (guint i = 0; i < r->workloads->len; i++) {
		const struct res_workload *w = g_ptr_array_index(r->workloads, i);

		if (w->output && !add_output(s, file, topo, i, w, error)) {
			cmp_side_free(s);
			return NULL;
		}
	}
	/* The node table: the figures report.html and the terminal show first. */
	for (guint i = 0; i < r->hosts->len; i++) {
		const struct res_host *h = g_ptr_array_index(r->hosts, i);

		for (guint j = 0; j < h->nodes->len; j++) {
			const struct res_node *n = g_ptr_array_index(h->nodes, j);
			g_autofree char *where = where_of(n->dax ? n->region : NULL, n->node);
			g_autofree char *row = row_of(s, topo, h->name, where, NODES);
			double v[] = { n->latency_ns, n->read_gbps, n->write_gbps };

			for (guint k = 0; k < G_N_ELEMENTS(node_figs); k++)
				add_fact(s, row, topo, h->name, where, NODES, node_figs[k].name,
					 node_figs[k].kind, v[k], n->clock);
		}
	}
	for (guint i = 0; i < r->checks->len; i++) {
		const struct res_check *c = g_ptr_array_index(r->checks, i);

		add_check(s, c->name, NULL, c->pass);
	}
	return s;
}

static const struct table_curve *curve_of(const struct table *t, const struct table_row *row)
{
	for (guint i = 0; i < t->curves->len; i++) {
		const struct table_curve *c = g_ptr_array_index(t->curves, i);

		if (!g_strcmp0(c->topology, row->topology) && !g_strcmp0(c->host, row->host) &&
		    (row->dax ? !g_strcmp0(c->dax, row->dax) : !c->dax && c->node == row->node))
			return c;
	}
	return NULL;
}

/*
 * A table row's figures under the program each comes from: chase (idle
 * latency), stream (one thread's read/write, every vCPU's read), loaded
 * (the chaser's latency and the streamers' bandwidth at each load).
 */
/* A table's kernels: each one its runs booted, once, in run order. */
static char *table_kernels(const struct table *t)
{
	g_autoptr(GString) k = g_string_new(NULL);

	for (guint i = 0; i < t->runs->len; i++) {
		const struct table_run *r = g_ptr_array_index(t->runs, i);
		g_autofree char *again = g_strdup_printf("; %s;", r->kernel ? r->kernel : "");
		g_autofree char *padded = g_strdup_printf("; %s;", k->str);

		if (r->kernel && !strstr(padded, again))
			g_string_append_printf(k, "%s%s", k->len ? "; " : "", r->kernel);
	}
	return k->len ? g_strdup(k->str) : NULL;
}

struct cmp_side *cmp_side_from_table(const char *label, const struct table *t)
{
	struct cmp_side *s = side_new(label, TABLE_SCHEMA);

	s->kernel = table_kernels(t);

	for (guint i = 0; i < t->rows->len; i++) {
		const struct table_row *r = g_ptr_array_index(t->rows, i);
		g_autofree char *where = where_of(r->dax ? r->region : NULL, r->node);
		g_autofree char *row = row_of(s, r->topology, r->host, where, NULL);
		const struct table_curve *c = curve_of(t, r);

		add_fact(s, row, r->topology, r->host, where, "chase", "latency_ns", CMP_LATENCY,
			 r->latency_ns, r->clock);
		add_fact(s, row, r->topology, r->host, where, "stream", "read_gbps", CMP_BANDWIDTH,
			 r->read_gbps, r->clock);
		add_fact(s, row, r->topology, r->host, where, "stream", "write_gbps", CMP_BANDWIDTH,
			 r->write_gbps, r->clock);
		add_fact(s, row, r->topology, r->host, where, "stream", "sustained_read_gbps",
			 CMP_BANDWIDTH, r->sustained_read_gbps, r->clock);
		for (guint j = 0; c && j < c->points->len; j++) {
			const struct table_point *p = &g_array_index(c->points, struct table_point, j);
			g_autofree char *lat = NULL, *bw = NULL;

			if (p->load_threads < 0)
				continue;	/* the idle chase: already "chase" */
			lat = g_strdup_printf("latency_ns@%d", p->load_threads);
			add_fact(s, row, r->topology, r->host, where, "loaded", lat, CMP_LATENCY,
				 p->latency_ns, r->clock);
			if (p->load_threads > 0) {
				bw = g_strdup_printf("load_gbps@%d", p->load_threads);
				add_fact(s, row, r->topology, r->host, where, "loaded", bw,
					 CMP_BANDWIDTH, p->gbps, r->clock);
			}
		}
	}
	for (guint i = 0; i < t->runs->len; i++) {
		const struct table_run *r = g_ptr_array_index(t->runs, i);
		g_autofree char *name = g_strdup_printf("run:%s", r->topology);

		add_check(s, name, r->topology ? r->topology : "?", r->passed);
	}
	return s;
}

void cmp_thresholds_init(struct cmp_thresholds *th)
{
	th->latency = th->bandwidth = DEFAULT_THRESHOLD;
	th->by_figure = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
}

void cmp_thresholds_clear(struct cmp_thresholds *th)
{
	g_clear_pointer(&th->by_figure, g_hash_table_unref);
}

bool cmp_thresholds_parse(struct cmp_thresholds *th, const char *spec, GError **error)
{
	const char *eq = strchr(spec, '=');
	g_autofree char *name = eq ? g_strndup(spec, eq - spec) : NULL;
	const char *num = eq ? eq + 1 : spec;
	char *end;
	double pct = g_ascii_strtod(num, &end);

	if (end == num || (*end && strcmp(end, "%")) || !(pct >= 0) || pct > 1000 ||
	    (name && !*name)) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT,
			    "--threshold '%s': want PERCENT, KIND=PERCENT (latency, bandwidth) "
			    "or FIGURE=PERCENT, e.g. --threshold latency=3%% "
			    "--threshold read_gbps=10%%", spec);
		return false;
	}
	if (!name) {
		th->latency = th->bandwidth = pct / 100;
	} else if (!strcmp(name, "latency")) {
		th->latency = pct / 100;
	} else if (!strcmp(name, "bandwidth")) {
		th->bandwidth = pct / 100;
	} else {
		double *v = g_new(double, 1);

		*v = pct / 100;
		g_hash_table_replace(th->by_figure, g_steal_pointer(&name), v);
	}
	return true;
}

double cmp_threshold_for(const struct cmp_thresholds *th, const struct cmp_fact *f)
{
	const double *v = th->by_figure ? g_hash_table_lookup(th->by_figure, f->figure) : NULL;
	g_autofree char *stem = NULL;

	/* latency_ns@2 takes latency_ns's threshold unless it has its own. */
	if (!v && strchr(f->figure, '@') && th->by_figure) {
		stem = g_strndup(f->figure, strchr(f->figure, '@') - f->figure);
		v = g_hash_table_lookup(th->by_figure, stem);
	}
	if (v)
		return *v;
	return f->kind == CMP_LATENCY ? th->latency : th->bandwidth;
}

static char *row_key(const struct cmp_fact *f)
{
	return g_strdup_printf("%s\x1f%s\x1f%s\x1f%s", f->topology, f->host, f->where, f->workload);
}

static char *figure_key(const struct cmp_fact *f)
{
	return g_strdup_printf("%s\x1f%s\x1f%s\x1f%s\x1f%s", f->topology, f->host, f->where,
			       f->workload, f->figure);
}

char *cmp_row_name(const struct cmp_fact *f)
{
	return g_strdup_printf("%s %s %s %s", f->topology, f->host, f->where, f->workload);
}

const char *cmp_status_word(enum cmp_status s)
{
	static const char *const words[] = { "within", "improved", "REGRESSED", "LOST", "new" };

	return words[s];
}

/* Upper case: the gate fails, as for figures. */
const char *cmp_check_word(enum cmp_check_status s)
{
	static const char *const words[] = { "pass", "fixed", "fails in both", "new",
					     "REGRESSED", "NEW FAILURE", "LOST" };

	return words[s];
}

static void judge(struct cmp_figure *g)
{
	double b = g->base ? g->base->value : -1, c = g->cand ? g->cand->value : -1;
	double bad, good;

	g->change = NAN;
	if (b < 0 && c < 0) {
		g->status = CMP_WITHIN;
		return;
	}
	if (b < 0) {
		g->status = CMP_NEW;
		return;
	}
	if (c < 0) {
		g->status = CMP_LOST;	/* measured before, not now */
		return;
	}
	g->change = b > 0 ? (c - b) / b : (c > 0 ? INFINITY : 0);
	bad = g->base->kind == CMP_LATENCY ? g->change : -g->change;
	good = -bad;
	/* A hair of slack so that exactly the threshold passes. */
	g->status = bad > g->threshold + 1e-9 ? CMP_REGRESSED :
		good > g->threshold + 1e-9 ? CMP_IMPROVED : CMP_WITHIN;
}

static void add_unique(GPtrArray *a, GHashTable *seen, const struct cmp_fact *f)
{
	char *name = cmp_row_name(f);

	if (g_hash_table_contains(seen, name)) {
		g_free(name);
		return;
	}
	g_hash_table_add(seen, name);
	g_ptr_array_add(a, g_strdup(name));
}

/* Does side @s have a figure of topology @topo? */
static bool has_topology(const struct cmp_side *s, const char *topo)
{
	for (guint i = 0; i < s->facts->len; i++)
		if (!strcmp(((struct cmp_fact *)g_ptr_array_index(s->facts, i))->topology, topo))
			return true;
	return false;
}

static void judge_check(struct cmp_check *m)
{
	if (!m->in_cand)
		m->status = CHK_LOST;
	else if (!m->in_base)
		m->status = m->cand_pass ? CHK_NEW : CHK_NEW_FAILS;
	else if (m->base_pass)
		m->status = m->cand_pass ? CHK_PASS : CHK_REGRESSED;
	else
		m->status = m->cand_pass ? CHK_FIXED : CHK_STILL_FAILS;
	m->regressed = m->status == CHK_REGRESSED || m->status == CHK_NEW_FAILS ||
		       m->status == CHK_LOST;
}

/*
 * Checks by name, the baseline's first, then those new in the candidate.
 * A name either side gives twice is a duplicate (compare_sides), not
 * judged here. A table's run check whose topology the candidate has no
 * row of is one of the rows only the baseline has: listed there.
 */
static void match_checks(struct compare *c)
{
	g_autoptr(GHashTable) base = g_hash_table_new(g_str_hash, g_str_equal);
	g_autoptr(GHashTable) cand = g_hash_table_new(g_str_hash, g_str_equal);

	for (guint i = 0; i < c->base->checks->len; i++) {
		struct cmp_check *k = g_ptr_array_index(c->base->checks, i);

		g_hash_table_insert(base, k->name, k);
	}
	for (guint i = 0; i < c->cand->checks->len; i++) {
		struct cmp_check *k = g_ptr_array_index(c->cand->checks, i);

		g_hash_table_insert(cand, k->name, k);
	}
	for (guint side = 0; side < 2; side++) {
		GPtrArray *list = side ? c->cand->checks : c->base->checks;

		for (guint i = 0; i < list->len; i++) {
			const struct cmp_check *k = g_ptr_array_index(list, i);
			const struct cmp_check *b = g_hash_table_lookup(base, k->name);
			const struct cmp_check *n = g_hash_table_lookup(cand, k->name);
			struct cmp_check *m;

			if ((side && b) || given_twice(c->base, "check", k->name) ||
			    given_twice(c->cand, "check", k->name))
				continue;	/* matched already, or a duplicate */
			if (!n && k->scope && !has_topology(c->cand, k->scope))
				continue;	/* a topology the candidate did not run */
			m = g_new0(struct cmp_check, 1);
			m->name = g_strdup(k->name);
			m->scope = g_strdup(k->scope);
			m->in_base = b != NULL;
			m->in_cand = n != NULL;
			m->base_pass = b && b->base_pass;
			m->cand_pass = n && n->cand_pass;
			judge_check(m);
			c->regressions += m->regressed;
			g_ptr_array_add(c->checks, m);
		}
	}
}

/* Both sides' duplicates into @c: each fails the gate. */
static void take_duplicates(struct compare *c)
{
	for (guint side = 0; side < 2; side++) {
		struct cmp_side *s = side ? c->cand : c->base;

		for (guint i = 0; i < s->duplicates->len; i++) {
			struct cmp_dup *d = g_ptr_array_index(s->duplicates, i);

			d->side = side ? "candidate" : "baseline";
		}
		c->regressions += s->duplicates->len;
		g_ptr_array_extend(c->duplicates, s->duplicates, NULL, NULL);
	}
}

struct compare *compare_sides(struct cmp_side *base, struct cmp_side *cand,
			      const struct cmp_thresholds *th, GError **error)
{
	g_autoptr(compare) c = g_new0(struct compare, 1);
	g_autoptr(GHashTable) cand_figs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(GHashTable) cand_rows = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(GHashTable) base_figs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(GHashTable) base_rows = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(GHashTable) seen_b = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autoptr(GHashTable) seen_c = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	guint matched = 0;

	c->base = base;
	c->cand = cand;
	c->figures = g_ptr_array_new_with_free_func(g_free);
	c->checks = g_ptr_array_new_with_free_func(check_free);
	c->duplicates = g_ptr_array_new();	/* the sides own them */
	c->only_base = g_ptr_array_new_with_free_func(g_free);
	c->only_cand = g_ptr_array_new_with_free_func(g_free);
	c->kernels_differ = base->kernel && cand->kernel && strcmp(base->kernel, cand->kernel);
	if (strcmp(base->schema, cand->schema)) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT,
			    "%s is %s but %s is %s: compare a run with a run "
			    "(summary.json) or a table with a table (table.json)",
			    base->label, base->schema, cand->label, cand->schema);
		return NULL;
	}
	for (guint i = 0; i < cand->facts->len; i++) {
		struct cmp_fact *f = g_ptr_array_index(cand->facts, i);

		if (fact_given_twice(cand, f))
			continue;
		g_hash_table_insert(cand_figs, figure_key(f), f);
		g_hash_table_insert(cand_rows, row_key(f), f);
	}
	for (guint i = 0; i < base->facts->len; i++) {
		struct cmp_fact *f = g_ptr_array_index(base->facts, i);
		g_autofree char *fk = figure_key(f), *rk = row_key(f);
		struct cmp_fact *k = g_hash_table_lookup(cand_figs, fk);
		struct cmp_figure *g;

		if (fact_given_twice(base, f))
			continue;
		g_hash_table_insert(base_figs, g_steal_pointer(&fk), f);
		g_hash_table_insert(base_rows, g_strdup(rk), f);
		if (!g_hash_table_contains(cand_rows, rk)) {
			/* a row the candidate gives twice is named as such, not here */
			if (!given_twice(cand, "row", f->row))
				add_unique(c->only_base, seen_b, f);
			continue;
		}
		if (k && f->value >= 0 && k->value >= 0 && g_strcmp0(f->clock, k->clock)) {
			g_autofree char *row = cmp_row_name(f);

			g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT,
				    "%s %s: baseline clock %s, candidate clock %s: compare "
				    "results obtained the same way (both with the timing "
				    "model, or both --no-timing)", row, f->figure, f->clock,
				    k->clock);
			return NULL;
		}
		g = g_new0(struct cmp_figure, 1);
		g->base = f;
		g->cand = k;
		g->threshold = cmp_threshold_for(th, f);
		judge(g);
		matched += k != NULL;
		c->regressions += g->status == CMP_REGRESSED || g->status == CMP_LOST;
		c->improvements += g->status == CMP_IMPROVED;
		if (!c->clock && f->value >= 0)
			c->clock = g_strdup(f->clock);
		g_ptr_array_add(c->figures, g);
	}
	for (guint i = 0; i < cand->facts->len; i++) {
		struct cmp_fact *f = g_ptr_array_index(cand->facts, i);
		g_autofree char *fk = figure_key(f), *rk = row_key(f);
		struct cmp_figure *g;

		if (fact_given_twice(cand, f))
			continue;
		if (!g_hash_table_contains(base_rows, rk)) {
			if (!given_twice(base, "row", f->row))
				add_unique(c->only_cand, seen_c, f);
			continue;
		}
		if (g_hash_table_contains(base_figs, fk))
			continue;
		g = g_new0(struct cmp_figure, 1);	/* a figure the baseline lacks */
		g->cand = f;
		g->threshold = cmp_threshold_for(th, f);
		judge(g);
		g_ptr_array_add(c->figures, g);
	}
	take_duplicates(c);
	if (!matched && !c->duplicates->len) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT,
			    "nothing to compare: no figure of %s matches one of %s by "
			    "(topology, host, node/region, workload); baseline rows e.g. "
			    "'%s', candidate rows e.g. '%s'", base->label, cand->label,
			    c->only_base->len ? (char *)g_ptr_array_index(c->only_base, 0) : "none",
			    c->only_cand->len ? (char *)g_ptr_array_index(c->only_cand, 0) : "none");
		return NULL;
	}
	match_checks(c);
	return g_steal_pointer(&c);
}

void compare_free(struct compare *c)
{
	if (!c)
		return;
	cmp_side_free(c->base);
	cmp_side_free(c->cand);
	g_clear_pointer(&c->figures, g_ptr_array_unref);
	g_clear_pointer(&c->checks, g_ptr_array_unref);
	g_clear_pointer(&c->duplicates, g_ptr_array_unref);
	g_clear_pointer(&c->only_base, g_ptr_array_unref);
	g_clear_pointer(&c->only_cand, g_ptr_array_unref);
	g_free(c->clock);
	g_free(c);
}
