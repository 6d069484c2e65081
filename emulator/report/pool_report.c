/* SPDX-License-Identifier: MIT */
/* The pool section of report.md and its plot (pool_report.h). */
#include "pool_report.h"
#include "svg.h"

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

/* One line of the plot: @key of every sample of @pool (of @host if given). */
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

static struct line *line_get(GPtrArray *lines, const char *label)
{
	struct line *l;

	for (guint i = 0; i < lines->len; i++) {
		l = g_ptr_array_index(lines, i);
		if (!strcmp(l->label, label))
			return l;
	}
	l = g_new0(struct line, 1);
	l->label = g_strdup(label);
	l->x = g_array_new(FALSE, FALSE, sizeof(double));
	l->y = g_array_new(FALSE, FALSE, sizeof(double));
	g_ptr_array_add(lines, l);
	return l;
}

static void line_add(GPtrArray *lines, const char *label, double x, double y)
{
	struct line *l = line_get(lines, label);

	g_array_append_val(l->x, x);
	g_array_append_val(l->y, y);
}

char *pool_report_svg(JsonObject *pool)
{
	JsonArray *samples = member_array(pool, "samples");
	g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func(line_free);
	JsonObject *pools = member_object(pool, "pools");
	bool many = pools && json_object_get_size(pools) > 1;
	g_autofree struct svg_series *series = NULL;
	static const char *const keys[] = { "lent", "used", "free", "stranded" };

	for (guint i = 0; samples && i < json_array_get_length(samples); i++) {
		JsonObject *s = json_array_get_object_element(samples, i);
		const char *p = json_object_get_string_member_with_default(s, "pool", "?");
		double t = json_object_get_double_member_with_default(s, "t_s", 0);
		JsonObject *hosts = member_object(s, "hosts");
		g_autoptr(GList) names = hosts ? json_object_get_members(hosts) : NULL;

		for (size_t k = 0; k < G_N_ELEMENTS(keys); k++) {
			g_autofree char *label = many ? g_strdup_printf("%s %s", p, keys[k]) :
				g_strdup(keys[k]);

			line_add(lines, label, t, json_object_get_int_member_with_default(
					 s, keys[k], 0) / MIB);
		}
		for (GList *l = names; l; l = l->next) {
			JsonObject *h = json_object_get_object_member(hosts, l->data);
			g_autofree char *label = many ?
				g_strdup_printf("%s lent to %s", p, (char *)l->data) :
				g_strdup_printf("lent to %s", (char *)l->data);

			line_add(lines, label, t, json_object_get_int_member_with_default(
					 h, "lent", 0) / MIB);
		}
	}
	series = g_new0(struct svg_series, lines->len);
	for (guint i = 0; i < lines->len; i++) {
		struct line *l = g_ptr_array_index(lines, i);

		series[i] = (struct svg_series){ l->label, (double *)l->x->data,
						 (double *)l->y->data, l->x->len };
	}
	return svg_line_plot(&(struct svg_plot){
		.title = "Pool utilisation over time",
		.subtitle = "capacity lent to hosts, used by them, free in the pool, "
			    "stranded (lent, unused); host wall time",
		.x_label = "seconds since the fabric manager started",
		.y_label = "MiB",
		.series = series, .nseries = lines->len });
}

bool pool_report_write_svg(JsonObject *pool, const char *dir, GError **error)
{
	g_autofree char *svg = pool_report_svg(pool);
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
		g_string_append_printf(s, "| %s | 0x%" G_GINT64_MODIFIER "x | %s | %s | %s | %s | %s |\n",
				       str(o, "ld"),
				       json_object_get_int_member_with_default(o, "serial", 0),
				       str(o, "state"), str(o, "host"), str(o, "port"),
				       str(o, "region"), node);
	}
	g_string_append(s, "\n| t s | action | LD | host | result | wall s | source | detail |\n"
			   "|---|---|---|---|---|---|---|---|\n");
	for (guint i = 0; events && i < json_array_get_length(events); i++) {
		JsonObject *o = json_array_get_object_element(events, i);
		const char *action = str(o, "action");

		if (!strcmp(action, "phase")) {
			g_string_append_printf(s, "| %.2f | phase | | | %s starts | | | |\n",
					       json_object_get_double_member_with_default(o, "t_s", 0),
					       str(o, "phase"));
			continue;
		}
		if (!strcmp(action, "demand")) {
			g_string_append_printf(s, "| %.2f | demand | | %s | %+.0f MiB | | %s | |\n",
					       json_object_get_double_member_with_default(o, "t_s", 0),
					       str(o, "host"),
					       json_object_get_int_member_with_default(o, "bytes", 0) / MIB,
					       str(o, "source"));
			continue;
		}
		g_string_append_printf(s, "| %.2f | %s | %s | %s | %s | %.2f | %s | %s |\n",
				       json_object_get_double_member_with_default(o, "t_s", 0),
				       action, str(o, "ld"), str(o, "host"), str(o, "result"),
				       json_object_get_double_member_with_default(o, "wall_s", 0),
				       str(o, "source"), str(o, "detail"));
	}
}
