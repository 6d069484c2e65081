/* SPDX-License-Identifier: MIT */
/* The pool section of report.md and its plot (pool_report.h). */
#include "results/pool_report.h"
#include "results/escape.h"
#include "results/svg.h"

#include <math.h>
#include <string.h>

#define MIB (1024.0 * 1024.0)

static JsonArray *member_array(JsonObject *o, const char *key)
{
	return o && json_object_has_member(o, key) &&
	       JSON_NODE_HOLDS_ARRAY(json_object_get_member(o, key)) ?
	       json_object_get_array_member(o, key) : NULL;
}

static JsonObject *member_object(JsonObject *o, const char *key)
{
	return o && json_object_has_member(o, key) &&
	       JSON_NODE_HOLDS_OBJECT(json_object_get_member(o, key)) ?
	       json_object_get_object_member(o, key) : NULL;
}

/*
 * The plot's data: one point per sampling pass (the fabric manager
 * samples every pool in turn; a pass ends where a pool comes round
 * again), summed over the pools, with a killed pool node's capacity
 * counted as failed from its injection on, not as lent.
 */
struct pass {
	double t;
	double lent, used, free, stranded, failed;
	GHashTable *hosts;	/* host name -> double * MiB lent */
};

/* The pool nodes a kill-pool-node fault killed: pool id -> double * t_s
 * (on the fabric manager's clock, as the samples). */
static GHashTable *deaths_of(GPtrArray *faults)
{
	GHashTable *d = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);

	for (guint i = 0; faults && i < faults->len; i++) {
		JsonObject *f = g_ptr_array_index(faults, i);
		JsonObject *inj = member_object(f, "injected");
		double t;

		if (g_strcmp0(json_object_get_string_member_with_default(f, "kind", ""),
			      "kill-pool-node") ||
		    !json_object_get_boolean_member_with_default(f, "fired", FALSE) || !inj ||
		    (t = json_object_get_double_member_with_default(inj, "t_s", -1)) < 0)
			continue;
		g_hash_table_insert(d, g_strdup(json_object_get_string_member_with_default(
						f, "target", "?")), g_memdup2(&t, sizeof(t)));
	}
	return d;
}

static void pass_free(gpointer p)
{
	struct pass *ps = p;

	g_hash_table_unref(ps->hosts);
	g_free(ps);
}

static GPtrArray *passes_of(JsonArray *samples, GHashTable *deaths)
{
	GPtrArray *passes = g_ptr_array_new_with_free_func(pass_free);
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
	struct pass *cur = NULL;

	for (guint i = 0; samples && i < json_array_get_length(samples); i++) {
		JsonObject *s = json_array_get_object_element(samples, i);
		const char *p = json_object_get_string_member_with_default(s, "pool", "?");
		double t = json_object_get_double_member_with_default(s, "t_s", 0);
		const double *died = g_hash_table_lookup(deaths, p);
		bool dead = died && t >= *died;
		JsonObject *hosts = member_object(s, "hosts");
		g_autoptr(GList) names = hosts ? json_object_get_members(hosts) : NULL;

		if (!cur || g_hash_table_contains(seen, p)) {
			cur = g_new0(struct pass, 1);
			cur->t = t;
			cur->hosts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
			g_ptr_array_add(passes, cur);
			g_hash_table_remove_all(seen);
		}
		g_hash_table_add(seen, (gpointer)p);
		cur->failed += json_object_get_int_member_with_default(s, "failed", 0) / MIB;
		if (dead) {
			cur->failed += json_object_get_int_member_with_default(s, "size", 0) / MIB;
		} else {
			cur->lent += json_object_get_int_member_with_default(s, "lent", 0) / MIB;
			cur->used += json_object_get_int_member_with_default(s, "used", 0) / MIB;
			cur->free += json_object_get_int_member_with_default(s, "free", 0) / MIB;
			cur->stranded += json_object_get_int_member_with_default(s, "stranded", 0) / MIB;
		}
		for (GList *l = names; l; l = l->next) {
			JsonObject *h = member_object(hosts, l->data);
			double *v = g_hash_table_lookup(cur->hosts, l->data);

			if (!v) {
				v = g_new0(double, 1);
				g_hash_table_insert(cur->hosts, g_strdup(l->data), v);
			}
			if (!dead)
				*v += json_object_get_int_member_with_default(h, "lent", 0) / MIB;
		}
	}
	return passes;
}

static int cmp_double(gconstpointer a, gconstpointer b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A wait between passes this much longer than the usual one is a gap:
 * the fabric manager was busy (a bind or release) and sampled nothing. */
#define GAP_FACTOR 3
#define GAP_MIN_S 2.0

static double usual_interval(const GPtrArray *passes)
{
	g_autoptr(GArray) d = g_array_new(FALSE, FALSE, sizeof(double));

	for (guint i = 1; i < passes->len; i++) {
		double v = ((struct pass *)g_ptr_array_index(passes, i))->t -
			   ((struct pass *)g_ptr_array_index(passes, i - 1))->t;

		g_array_append_val(d, v);
	}
	if (!d->len)
		return 0;
	g_array_sort(d, cmp_double);
	return g_array_index(d, double, d->len / 2);
}

static bool is_gap(const GPtrArray *passes, guint i, double usual)
{
	double dt;

	if (!i)
		return false;
	dt = ((struct pass *)g_ptr_array_index(passes, i))->t -
	     ((struct pass *)g_ptr_array_index(passes, i - 1))->t;
	return dt > GAP_MIN_S && dt > GAP_FACTOR * usual;
}

/* "no samples for 17.0 s: unbind p0.ld1" — the operation that kept the
 * fabric manager busy, from its events. */
static char *gap_label(JsonObject *pool, double t0, double t1)
{
	JsonArray *events = member_array(pool, "events");
	GString *s = g_string_new(NULL);

	g_string_printf(s, "no samples for %.1f s", t1 - t0);
	for (guint i = 0; events && i < json_array_get_length(events); i++) {
		JsonObject *e = json_array_get_object_element(events, i);
		double t = json_object_get_double_member_with_default(e, "t_s", -1);
		double w = json_object_get_double_member_with_default(e, "wall_s", 0);

		if (t < t1 && t + w > t0 && w > 0)
			g_string_append_printf(s, ": %s %s (%.1f s)",
					       json_object_get_string_member_with_default(e, "action", "?"),
					       json_object_get_string_member_with_default(e, "ld", ""), w);
	}
	return g_string_free(s, FALSE);
}

static void point(GArray *x, GArray *y, double t, double v)
{
	g_array_append_val(x, t);
	g_array_append_val(y, v);
}

struct line {
	char *label;
	GArray *x, *y;
};

static void line_free(gpointer p)
{
	struct line *l = p;

	g_free(l->label);
	g_array_unref(l->x);
	g_array_unref(l->y);
	g_free(l);
}

static struct line *line_new(GPtrArray *lines, char *label)
{
	struct line *l = g_new0(struct line, 1);

	l->label = label;
	l->x = g_array_new(FALSE, FALSE, sizeof(double));
	l->y = g_array_new(FALSE, FALSE, sizeof(double));
	g_ptr_array_add(lines, l);
	return l;
}

enum { L_LENT, L_USED, L_FREE, L_STRANDED, L_FAILED, L_TOTALS };

static double total_of(const struct pass *p, int k)
{
	const double v[] = { p->lent, p->used, p->free, p->stranded, p->failed };

	return v[k];
}

char *pool_report_svg(JsonObject *pool, GPtrArray *faults)
{
	static const char *const names[] = { "lent", "used", "free", "stranded",
					     "failed (killed pool nodes)" };
	JsonObject *pools = member_object(pool, "pools");
	guint npools = pools ? json_object_get_size(pools) : 0;
	g_autoptr(GHashTable) deaths = deaths_of(faults);
	g_autoptr(GPtrArray) passes = passes_of(member_array(pool, "samples"), deaths);
	g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func(line_free);
	g_autoptr(GArray) bands = g_array_new(FALSE, FALSE, sizeof(struct svg_band));
	g_autoptr(GArray) marks = g_array_new(FALSE, FALSE, sizeof(struct svg_vmark));
	g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GList) hosts = NULL;
	g_autofree struct svg_series *series = NULL;
	g_autofree char *sub = NULL;
	double usual = usual_interval(passes);
	GHashTableIter it;
	gpointer key, val;

	for (int k = 0; k < L_TOTALS; k++)
		if (k != L_FAILED || g_hash_table_size(deaths))
			line_new(lines, npools > 1 ? g_strdup_printf("%s, all %u pools", names[k],
								     npools) :
				 g_strdup(names[k]));
	if (passes->len)
		hosts = g_list_sort(g_hash_table_get_keys(
			((struct pass *)g_ptr_array_index(passes, 0))->hosts), (GCompareFunc)strcmp);
	for (GList *h = hosts; h; h = h->next)
		line_new(lines, g_strdup_printf("lent to %s", (char *)h->data));
	for (guint i = 0; i < passes->len; i++) {
		const struct pass *p = g_ptr_array_index(passes, i);
		guint li = 0;

		if (is_gap(passes, i, usual)) {
			const struct pass *q = g_ptr_array_index(passes, i - 1);
			char *label = gap_label(pool, q->t, p->t);

			g_ptr_array_add(keep, label);
			g_array_append_val(bands, ((struct svg_band){ q->t, p->t, label }));
			for (guint k = 0; k < lines->len; k++) {
				struct line *l = g_ptr_array_index(lines, k);

				point(l->x, l->y, NAN, NAN);	/* no line across it */
			}
		}
		for (int k = 0; k < L_TOTALS; k++) {
			struct line *l;

			if (k == L_FAILED && !g_hash_table_size(deaths))
				continue;
			l = g_ptr_array_index(lines, li++);
			point(l->x, l->y, p->t, total_of(p, k));
		}
		for (GList *h = hosts; h; h = h->next) {
			struct line *l = g_ptr_array_index(lines, li++);
			const double *v = g_hash_table_lookup(p->hosts, h->data);

			point(l->x, l->y, p->t, v ? *v : 0);
		}
	}
	g_hash_table_iter_init(&it, deaths);
	while (g_hash_table_iter_next(&it, &key, &val)) {
		char *label = g_strdup_printf("%s killed", (char *)key);

		g_ptr_array_add(keep, label);
		g_array_append_val(marks, ((struct svg_vmark){ *(double *)val, label, "#d55e00" }));
	}
	series = g_new0(struct svg_series, lines->len ? lines->len : 1);
	for (guint i = 0; i < lines->len; i++) {
		struct line *l = g_ptr_array_index(lines, i);

		series[i] = (struct svg_series){ l->label, (double *)l->x->data,
						 (double *)l->y->data, l->x->len };
	}
	sub = npools > 1 ?
		g_strdup_printf("summed over the %u pools; each sample held until the next%s",
				npools, g_hash_table_size(deaths) ? "; a killed node's capacity "
				"counts as failed" : "") :
		g_strdup_printf("each sample held until the next%s", g_hash_table_size(deaths) ?
				"; a killed node's capacity counts as failed" : "");
	return svg_line_plot(&(struct svg_plot){
		.title = "Pool utilisation over time",
		.subtitle = sub,
		.x_label = "seconds since the fabric manager started (host wall time)",
		.y_label = "MiB",
		.series = series, .nseries = lines->len,
		.marks = (struct svg_vmark *)marks->data, .nmarks = marks->len,
		.bands = (struct svg_band *)bands->data, .nbands = bands->len,
		.steps = true, .end_labels = true });
}

bool pool_report_write_svg(JsonObject *pool, GPtrArray *faults, const char *dir,
			   GError **error)
{
	g_autofree char *svg = pool_report_svg(pool, faults);
	g_autofree char *path = g_build_filename(dir, POOL_SVG_FILE, NULL);

	return g_file_set_contents(path, svg, -1, error);
}

static const char *str(JsonObject *o, const char *k)
{
	return json_object_get_string_member_with_default(o, k, "");
}

void pool_report_md(GString *s, JsonObject *pool)
{
	JsonArray *lds = member_array(pool, "lds");
	JsonArray *events = member_array(pool, "events");
	JsonArray *samples = member_array(pool, "samples");
	double peak_lent = 0, sum_stranded = 0;
	guint n = samples ? json_array_get_length(samples) : 0;

	g_string_append(s, "\n## Pool (fabric manager)\n\n"
			"Logical devices (LDs) of the lending pools, bound to hosts and "
			"released by them while they ran (docs/pooling.md). Times are "
			"host wall time since the fabric manager started; *lent* is what "
			"hosts hold, *used* what their kernel (or pool runtime) reports "
			"allocated on it, *free* what the pool still has, *stranded* "
			"what is lent but unused. Plot: "
			"[" POOL_SVG_FILE "](" POOL_SVG_FILE ").\n\n");
	for (guint i = 0; i < n; i++) {
		JsonObject *o = json_array_get_object_element(samples, i);

		peak_lent = MAX(peak_lent, json_object_get_int_member_with_default(o, "lent", 0) / MIB);
		sum_stranded += json_object_get_int_member_with_default(o, "stranded", 0) / MIB;
	}
	if (n)
		g_string_append_printf(s, "%u samples: peak lent %.0f MiB, mean "
				       "stranded %.0f MiB.\n\n", n, peak_lent,
				       sum_stranded / n);
	g_string_append(s, "| LD | serial | state at the end | host | port | region | node |\n"
			   "|---|---|---|---|---|---|---|\n");
	for (guint i = 0; lds && i < json_array_get_length(lds); i++) {
		JsonObject *o = json_array_get_object_element(lds, i);
		char node[16] = "";

		if (json_object_has_member(o, "node"))
			g_snprintf(node, sizeof(node), "%" G_GINT64_FORMAT,
				   json_object_get_int_member(o, "node"));
		g_string_append_c(s, '|');
		md_cell(s, str(o, "ld"));
		g_string_append_printf(s, " 0x%" G_GINT64_MODIFIER "x |",
				       json_object_get_int_member_with_default(o, "serial", 0));
		md_cell(s, str(o, "state"));
		md_cell(s, str(o, "host"));
		md_cell(s, str(o, "port"));
		md_cell(s, str(o, "region"));
		md_cell(s, node);
		g_string_append_c(s, '\n');
	}
	g_string_append(s, "\n| t s | action | LD | host | result | wall s | source | detail |\n"
			   "|---|---|---|---|---|---|---|---|\n");
	for (guint i = 0; events && i < json_array_get_length(events); i++) {
		JsonObject *o = json_array_get_object_element(events, i);
		const char *action = str(o, "action");

		g_string_append_printf(s, "| %.2f |",
				       json_object_get_double_member_with_default(o, "t_s", 0));
		if (!strcmp(action, "phase")) {
			g_autofree char *starts = g_strdup_printf("%s starts", str(o, "phase"));

			g_string_append(s, " phase | | |");
			md_cell(s, starts);
			g_string_append(s, " | | |\n");
			continue;
		}
		if (!strcmp(action, "demand")) {
			g_string_append(s, " demand | |");
			md_cell(s, str(o, "host"));
			g_string_append_printf(s, " %+.0f MiB | |",
					       json_object_get_int_member_with_default(o, "bytes", 0) / MIB);
			md_cell(s, str(o, "source"));
			g_string_append(s, " |\n");
			continue;
		}
		md_cell(s, action);
		md_cell(s, str(o, "ld"));
		md_cell(s, str(o, "host"));
		md_cell(s, str(o, "result"));
		g_string_append_printf(s, " %.2f |",
				       json_object_get_double_member_with_default(o, "wall_s", 0));
		md_cell(s, str(o, "source"));
		md_cell(s, str(o, "detail"));
		g_string_append_c(s, '\n');
	}
}
