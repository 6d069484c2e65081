/* SPDX-License-Identifier: MIT */
/*
 * A sweep's results (sweep_report.h): one row per point (its parameters,
 * verdict, clock, each place's latency and bandwidth, and a KV-share run's
 * TTFT and throughput per path), written as sweep.csv, sweep-results.json,
 * sweep.md, sweep.svg (latency against the first axis) and report.html.
 */
#include "results/sweep_report.h"
#include "results/escape.h"
#include "results/figures.h"
#include "results/html_parts.h"
#include "results/kv_figures.h"
#include "common/json_write.h"
#include "results/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const figures[] = { "latency_ns", "read_gbps", "write_gbps" };

/* A place a point measured: "h0.node1" or "h0.dax0.0". */
struct place {
	char *name;
	char *kind;
	bool has[G_N_ELEMENTS(figures)];
};

struct row {
	const struct sweep_point *p;
	struct run_result *r;	/* NULL: the point has no results */
};

static double figure_of(const struct res_node *n, guint f)
{
	return f == 0 ? n->latency_ns : f == 1 ? n->read_gbps : n->write_gbps;
}

static char *place_name(const struct res_host *h, const struct res_node *n)
{
	return n->dax ? g_strdup_printf("%s.%s", h->name, n->dax) :
		g_strdup_printf("%s.node%d", h->name, n->node);
}

static const struct res_node *find_node(const struct run_result *r, const char *name)
{
	for (guint i = 0; r && i < r->hosts->len; i++) {
		const struct res_host *h = g_ptr_array_index(r->hosts, i);

		for (guint j = 0; j < h->nodes->len; j++) {
			const struct res_node *n = g_ptr_array_index(h->nodes, j);
			g_autofree char *pn = place_name(h, n);

			if (!strcmp(pn, name))
				return n;
		}
	}
	return NULL;
}

static void place_free(gpointer p)
{
	struct place *pl = p;

	g_free(pl->name);
	g_free(pl->kind);
	g_free(pl);
}

/* Every place any point measured, in first-seen order. */
static GPtrArray *places_of(const struct row *rows, guint n)
{
	GPtrArray *places = g_ptr_array_new_with_free_func(place_free);

	for (guint i = 0; i < n; i++)
		for (guint j = 0; rows[i].r && j < rows[i].r->hosts->len; j++) {
			const struct res_host *h = g_ptr_array_index(rows[i].r->hosts, j);

			for (guint k = 0; k < h->nodes->len; k++) {
				const struct res_node *nd = g_ptr_array_index(h->nodes, k);
				g_autofree char *name = place_name(h, nd);
				struct place *pl = NULL;

				for (guint m = 0; m < places->len && !pl; m++)
					if (!strcmp(((struct place *)g_ptr_array_index(places, m))->name, name))
						pl = g_ptr_array_index(places, m);
				if (!pl) {
					pl = g_new0(struct place, 1);
					pl->name = g_steal_pointer(&name);
					pl->kind = g_strdup(nd->kind ? nd->kind : "?");
					g_ptr_array_add(places, pl);
				}
				for (guint f = 0; f < G_N_ELEMENTS(figures); f++)
					pl->has[f] |= figure_of(nd, f) >= 0;
			}
		}
	return places;
}

static const char *verdict_of(const struct row *w)
{
	return !w->r ? "missing" : result_passed(w->r) ? "pass" : "fail";
}

/* The figures' clock over the whole point: modeled, guest or mixed. */
static const char *clock_of(const struct row *w)
{
	struct fig_clocks c = { 0 };

	for (guint j = 0; w->r && j < w->r->hosts->len; j++) {
		const struct res_host *h = g_ptr_array_index(w->r->hosts, j);

		for (guint k = 0; k < h->nodes->len; k++) {
			const struct res_node *n = g_ptr_array_index(h->nodes, k);

			if (n->latency_ns < 0 && n->read_gbps < 0 && n->write_gbps < 0)
				continue;
			c.modeled |= !g_strcmp0(n->clock, "modeled");
			c.guest |= g_strcmp0(n->clock, "modeled") != 0;
		}
	}
	if (w->r) {
		/* KV-share figures are the guest clock's: modeled time when
		 * that clock ran on the timing model */
		g_autoptr(GPtrArray) kv = g_ptr_array_new_with_free_func(g_free);
		bool m = w->r->timing_model && !g_strcmp0(w->r->guest_clock, "modeled");

		kv_columns(w->r, kv);
		c.modeled |= kv->len && m;
		c.guest |= kv->len && !m;
	}
	return fig_clock_word(&c) ? fig_clock_word(&c) : "-";
}

static void csv_field(GString *s, const char *v)
{
	if (strpbrk(v, ",\"\n")) {
		g_string_append_c(s, '"');
		for (const char *c = v; *c; c++) {
			if (*c == '"')
				g_string_append_c(s, '"');
			g_string_append_c(s, *c);
		}
		g_string_append_c(s, '"');
	} else {
		g_string_append(s, v);
	}
}

/* The KV-share columns any point has (kv_figures.h), in first-seen order. */
static GPtrArray *kv_columns_of(const struct row *rows, guint n)
{
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);

	for (guint i = 0; i < n; i++)
		kv_columns(rows[i].r, names);
	return names;
}

/* The cells of one row, header first when @w is NULL: CSV and Markdown share them. */
static GPtrArray *cells(const struct sweep_matrix *s, const GPtrArray *places,
			const GPtrArray *kv, const struct row *w)
{
	GPtrArray *c = g_ptr_array_new_with_free_func(g_free);

	g_ptr_array_add(c, g_strdup(w ? w->p->id : "point"));
	for (guint i = 0; i < s->axes->len; i++)
		g_ptr_array_add(c, g_strdup(w ? w->p->values[i] :
					    ((struct sweep_axis *)g_ptr_array_index(s->axes, i))->name));
	g_ptr_array_add(c, g_strdup(w ? verdict_of(w) : "verdict"));
	g_ptr_array_add(c, g_strdup(w ? clock_of(w) : "clock"));
	for (guint i = 0; i < places->len; i++) {
		const struct place *pl = g_ptr_array_index(places, i);
		const struct res_node *n = w ? find_node(w->r, pl->name) : NULL;

		for (guint f = 0; f < G_N_ELEMENTS(figures); f++) {
			char buf[32];

			if (!pl->has[f])
				continue;
			if (!w)
				g_ptr_array_add(c, g_strdup_printf("%s.%s", pl->name, figures[f]));
			else
				g_ptr_array_add(c, g_strdup(n && figure_of(n, f) >= 0 ?
					fig_format(buf, sizeof(buf), figure_of(n, f), f ? "%.3f" : "%.1f") : ""));
		}
	}
	for (guint i = 0; i < kv->len; i++) {
		double v;

		if (!w)
			g_ptr_array_add(c, g_strdup(g_ptr_array_index(kv, i)));
		else if (kv_column(w->r, g_ptr_array_index(kv, i), &v))
			g_ptr_array_add(c, g_strdup_printf("%.3f", v));
		else
			g_ptr_array_add(c, g_strdup(""));
	}
	return c;
}

static char *to_csv(const struct sweep_matrix *s, const GPtrArray *places, const GPtrArray *kv,
		    const struct row *rows)
{
	GString *out = g_string_new(NULL);

	for (gint i = -1; i < (gint)s->points->len; i++) {
		g_autoptr(GPtrArray) c = cells(s, places, kv, i < 0 ? NULL : &rows[i]);

		for (guint j = 0; j < c->len; j++) {
			if (j)
				g_string_append_c(out, ',');
			csv_field(out, g_ptr_array_index(c, j));
		}
		g_string_append_c(out, '\n');
	}
	return g_string_free(out, FALSE);
}

static char *to_markdown(const struct sweep_matrix *s, const GPtrArray *places,
			 const GPtrArray *kv, const struct row *rows)
{
	GString *out = g_string_new(NULL);

	/* names, values and host names are the sweep's and the runs' data */
	g_string_append(out, "# Sweep ");
	md_text(out, s->name);
	g_string_append_printf(out, "\n\n%u points of ", s->points->len);
	md_code(out, s->base);
	g_string_append(out, "; figures as each point's clock says (`modeled`: the timing "
			"model's virtual time). Each point's results: `points/pN/run/`.\n\n");
	for (gint i = -1; i < (gint)s->points->len; i++) {
		g_autoptr(GPtrArray) c = cells(s, places, kv, i < 0 ? NULL : &rows[i]);

		g_string_append(out, "|");
		for (guint j = 0; j < c->len; j++) {
			g_string_append_c(out, ' ');
			md_text(out, g_ptr_array_index(c, j));
			g_string_append(out, " |");
		}
		g_string_append_c(out, '\n');
		if (i < 0) {
			g_string_append(out, "|");
			for (guint j = 0; j < c->len; j++)
				g_string_append(out, "---|");
			g_string_append_c(out, '\n');
		}
	}
	return g_string_free(out, FALSE);
}

static JsonNode *to_json(const struct sweep_matrix *s, const struct row *rows)
{
	g_autoptr(JsonBuilder) b = json_builder_new();

	json_builder_begin_object(b);
	json_builder_set_member_name(b, "schema");
	json_builder_add_string_value(b, "cxlbed.sweep-results/1");
	json_builder_set_member_name(b, "name");
	json_builder_add_string_value(b, s->name);
	json_builder_set_member_name(b, "points");
	json_builder_begin_array(b);
	for (guint i = 0; i < s->points->len; i++) {
		const struct row *w = &rows[i];

		json_builder_begin_object(b);
		json_builder_set_member_name(b, "id");
		json_builder_add_string_value(b, w->p->id);
		json_builder_set_member_name(b, "params");
		json_builder_begin_object(b);
		for (guint a = 0; a < s->axes->len; a++) {
			json_builder_set_member_name(b, ((struct sweep_axis *)g_ptr_array_index(s->axes, a))->name);
			json_builder_add_string_value(b, w->p->values[a]);
		}
		json_builder_end_object(b);
		json_builder_set_member_name(b, "verdict");
		json_builder_add_string_value(b, verdict_of(w));
		json_builder_set_member_name(b, "clock");
		json_builder_add_string_value(b, clock_of(w));
		json_builder_set_member_name(b, "summary");
		if (w->r) {
			JsonNode *sum = result_to_json(w->r);

			json_builder_add_value(b, sum);
		} else {
			json_builder_add_null_value(b);
		}
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	json_builder_end_object(b);
	return json_builder_get_root(b);
}

/* The first axis as numbers, or NULL when one value is not a number. */
static double *numeric_axis(const struct sweep_matrix *s)
{
	const struct sweep_axis *a = g_ptr_array_index(s->axes, 0);
	double *x = g_new(double, a->values->len);

	for (guint i = 0; i < a->values->len; i++) {
		char *end;

		x[i] = g_ascii_strtod(g_ptr_array_index(a->values, i), &end);
		if (*end || end == g_ptr_array_index(a->values, i)) {
			g_free(x);
			return NULL;
		}
	}
	return x;
}

/*
 * One figure of the non-local places against the first axis: a series
 * per place and combination of the other axes. NULL when none has it.
 */
static char *plot(const struct sweep_matrix *s, const GPtrArray *places, const struct row *rows,
		  guint f)
{
	const struct sweep_axis *first = g_ptr_array_index(s->axes, 0);
	guint per = s->points->len / first->values->len;	/* points per first-axis value */
	g_autofree double *xs = numeric_axis(s);
	g_autoptr(GPtrArray) series = g_ptr_array_new();
	g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func(g_free);
	g_autofree char *sub = g_strdup_printf("cxlbed sweep %s: %u points", s->name, s->points->len);
	g_autofree char *xl = g_strdup_printf("%s (%s%s%s %s)", first->name, first->kind,
					      first->id ? " " : "", first->id ? first->id : "",
					      first->key);
	g_autofree struct svg_series *arr = NULL;
	struct svg_plot p = { .title = f ? "Bandwidth across the sweep" : "Latency across the sweep",
			      .subtitle = sub, .x_label = xl,
			      .y_label = f ? "read bandwidth (GB/s)" : "latency (ns per access)" };

	for (guint pi = 0; pi < places->len; pi++) {
		const struct place *pl = g_ptr_array_index(places, pi);

		if (!strcmp(pl->kind, "local") || !pl->has[f])
			continue;
		for (guint o = 0; o < per; o++) {
			struct svg_series *se = g_new0(struct svg_series, 1);
			double *x = g_new(double, first->values->len), *y = g_new(double, first->values->len);
			g_autoptr(GString) label = g_string_new(pl->name);
			const struct sweep_point *p0 = rows[o].p;

			for (guint a = 1; a < s->axes->len; a++)
				g_string_append_printf(label, "%s%s=%s", a == 1 ? ", " : " ",
						       ((struct sweep_axis *)g_ptr_array_index(s->axes, a))->name,
						       p0->values[a]);
			for (guint v = 0; v < first->values->len; v++) {
				const struct row *w = &rows[v * per + o];
				const struct res_node *n = find_node(w->r, pl->name);
				double val = n ? figure_of(n, f == 1 ? 1 : 0) : -1;

				if (val < 0)
					continue;
				x[se->n] = xs ? xs[v] : v;
				y[se->n++] = val;
			}
			se->x = x;
			se->y = y;
			se->label = g_strdup(label->str);
			g_ptr_array_add(keep, x);
			g_ptr_array_add(keep, y);
			g_ptr_array_add(keep, (char *)se->label);
			g_ptr_array_add(series, se);
		}
	}
	if (!series->len)
		return NULL;	/* nothing of this figure to draw */
	arr = g_new0(struct svg_series, series->len + 1);
	for (guint i = 0; i < series->len; i++) {
		arr[i] = *(struct svg_series *)g_ptr_array_index(series, i);
		g_free(g_ptr_array_index(series, i));
	}
	p.series = arr;
	p.nseries = series->len;
	return svg_line_plot(&p);
}

static char *to_html(const struct sweep_matrix *s, const GPtrArray *places, const GPtrArray *kv,
		     const struct row *rows, const char *lat_svg, const char *bw_svg)
{
	GString *h = g_string_new(NULL);
	g_autofree char *title = g_strdup_printf("cxlbed sweep %s", s->name);

	html_page_start(h, title);
	g_string_append(h, "<p>");
	html_esc(h, s->base);
	g_string_append_printf(h, ", %u points. Files: <a href=\"sweep.csv\">sweep.csv</a>, "
			       "<a href=\"sweep-results.json\">sweep-results.json</a>, "
			       "<a href=\"sweep.md\">sweep.md</a>.</p>\n<h2>Points</h2>\n",
			       s->points->len);
	for (gint i = -1; i < (gint)s->points->len; i++) {
		g_autoptr(GPtrArray) c = cells(s, places, kv, i < 0 ? NULL : &rows[i]);

		if (i < 0) {
			g_ptr_array_add(c, NULL);
			html_table_head(h, (const char *const *)c->pdata);
			continue;
		}
		{
			g_autofree char *page = g_strdup_printf("points/%s/run/report.html",
								rows[i].p->id);

			g_string_append(h, "<tr><td>");
			html_link(h, page, rows[i].p->id);
			g_string_append(h, "</td>");
		}
		for (guint j = 1; j < c->len; j++)
			html_cell(h, g_ptr_array_index(c, j));
		g_string_append(h, "</tr>\n");
	}
	g_string_append(h, "</table>\n");
	if (lat_svg || bw_svg)
		g_string_append(h, "<h2>Plots</h2>\n");
	if (lat_svg)
		g_string_append_printf(h, "<div class=\"figure\">\n%s</div>\n", svg_element(lat_svg));
	if (bw_svg)
		g_string_append_printf(h, "<div class=\"figure\">\n%s</div>\n", svg_element(bw_svg));
	g_string_append(h, "</body>\n</html>\n");
	return g_string_free(h, FALSE);
}

int sweep_report_write(const struct sweep_matrix *s, struct run_result **runs,
		       const char *dir, FILE *out)
{
	g_autofree struct row *rows = g_new0(struct row, s->points->len + 1);
	g_autoptr(GPtrArray) places = NULL, kv = NULL;
	g_autofree char *csv = NULL, *md = NULL, *lat = NULL, *bw = NULL, *html = NULL;
	g_autoptr(JsonNode) json = NULL;
	g_autoptr(GError) err = NULL;
	guint bad = 0;
	struct {
		const char *name;
		const char *text;
	} files[5];

	for (guint i = 0; i < s->points->len; i++) {
		rows[i].p = g_ptr_array_index(s->points, i);
		rows[i].r = runs[i];
		bad += !rows[i].r || !result_passed(rows[i].r);
	}
	places = places_of(rows, s->points->len);
	kv = kv_columns_of(rows, s->points->len);
	csv = to_csv(s, places, kv, rows);
	md = to_markdown(s, places, kv, rows);
	lat = plot(s, places, rows, 0);
	bw = plot(s, places, rows, 1);
	html = to_html(s, places, kv, rows, lat, bw);
	json = to_json(s, rows);
	{
		g_autofree char *jtext = json_write_text(json, true);

		files[0].name = "sweep.csv", files[0].text = csv;
		files[1].name = "sweep.md", files[1].text = md;
		files[2].name = "sweep.svg", files[2].text = lat ? lat : bw;
		files[3].name = "report.html", files[3].text = html;
		files[4].name = "sweep-results.json", files[4].text = jtext;
		for (guint i = 0; i < G_N_ELEMENTS(files); i++) {
			g_autofree char *path = g_build_filename(dir, files[i].name, NULL);

			if (!files[i].text)
				continue;	/* no figure to plot */
			if (!g_file_set_contents(path, files[i].text, -1, &err)) {
				fprintf(stderr, "cxlbed sweep: %s: %s\n", path, err->message);
				return 1;
			}
		}
	}
	fputs(csv, out);
	fprintf(out, "\nsweep %s: %u points, %u passed (%s: report.html, sweep.csv, "
		"sweep-results.json, sweep.md, sweep.svg)\n", s->name, s->points->len,
		s->points->len - bad, dir);
	for (guint i = 0; i < s->points->len; i++)
		if (!rows[i].r || !result_passed(rows[i].r))
			fprintf(out, "point %s: %s (see %s)\n", rows[i].p->id, verdict_of(&rows[i]),
				rows[i].p->run_dir);
	return bad ? 1 : 0;
}
