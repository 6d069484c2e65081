/* SPDX-License-Identifier: MIT */
/* A line plot in plain SVG (see svg.h). */
#include "results/svg.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

/* The plot area's frame; the legend goes below it and the document grows
 * to hold it, so no label is ever cut off. */
#define W 900		/* at least: wider when a legend entry needs it */
#define PLOT_H 560	/* title, plot area and x axis label */
#define LEFT 80		/* room for y tick labels and the y axis label */
#define RIGHT 30
#define TOP 60
#define BOTTOM 60
#define LEGEND_ROW 20
#define LEGEND_PAD 10

/*
 * Colour-blind friendly palette (Okabe-Ito, its yellow left out: too pale
 * on white) and five marker shapes. Series i gets colour i mod 7 and
 * marker i mod 5: 7 and 5 share no factor, so the first 35 series each
 * have their own pair; past 7 the line is dashed as well.
 */
static const char *const colours[] = {
	"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
	"#000000",
};
enum marker { M_CIRCLE, M_SQUARE, M_TRIANGLE, M_DIAMOND, M_DOWN, M_COUNT };
static const char *const dashes[] = { NULL, "6 3", "2 2" };

struct style {
	const char *colour;
	enum marker marker;
	const char *dash;
};

static struct style series_style(guint i)
{
	/* i counts across the panels of one figure (svg_plot.style_base) */
	return (struct style){
		colours[i % G_N_ELEMENTS(colours)],
		(enum marker)(i % M_COUNT),
		dashes[(i / G_N_ELEMENTS(colours)) % G_N_ELEMENTS(dashes)],
	};
}

char *svg_escape(const char *s)
{
	GString *out = g_string_new(NULL);

	for (; s && *s; s++) {
		switch (*s) {
		case '&': g_string_append(out, "&amp;"); break;
		case '<': g_string_append(out, "&lt;"); break;
		case '>': g_string_append(out, "&gt;"); break;
		case '"': g_string_append(out, "&quot;"); break;
		default: g_string_append_c(out, *s);
		}
	}
	return g_string_free(out, FALSE);
}

double svg_tick_step(double span, int want)
{
	double raw, mag, f;

	if (!(span > 0) || want < 1)
		return 1;
	raw = span / want;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

/*
 * Advance width of @str at @px pixels in DejaVu Sans (the sans-serif of a
 * Debian desktop and of headless Chromium there), rounded up per class of
 * glyph so that an estimate never falls short of what a browser draws.
 */
double svg_text_width(const char *str, double px)
{
	double em = 0;

	for (const unsigned char *c = (const unsigned char *)str; c && *c; c++) {
		if ((*c & 0xc0) == 0x80)
			continue;	/* UTF-8 continuation byte */
		if (strchr("iljtf.,:;'|!()[]{} ", *c))
			em += 0.40;
		else if (strchr("mwMW@%", *c))
			em += 1.02;
		else if (g_ascii_isupper(*c) || strchr("&#~", *c))
			em += 0.80;
		else
			em += 0.66;
	}
	return em * px;
}

struct axis {
	double lo, hi, step;
};

/* Where things go: the plot frame, then the legend under it. */
struct layout {
	int w, h;		/* the whole document */
	int right;		/* right margin: room for end labels */
	int legend_top;		/* first legend row's top */
	int cols;		/* legend columns */
	double col_w;		/* one legend column */
};

/* From 0 (both quantities are >= 0) to a round value above the data. */
static struct axis make_axis(double max)
{
	struct axis a = { 0, max > 0 ? max * 1.05 : 1, 0 };

	a.step = svg_tick_step(a.hi, 6);
	a.hi = ceil(a.hi / a.step) * a.step;
	return a;
}

static double px(const struct layout *l, const struct axis *a, double v)
{
	return LEFT + (v - a->lo) / (a->hi - a->lo) * (l->w - LEFT - l->right);
}

static double py(const struct axis *a, double v)
{
	return PLOT_H - BOTTOM - (v - a->lo) / (a->hi - a->lo) * (PLOT_H - TOP - BOTTOM);
}

static void text(GString *s, double x, double y, const char *anchor,
		 const char *extra, const char *str)
{
	g_autofree char *e = svg_escape(str);

	g_string_append_printf(s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s>%s</text>\n",
			       x, y, anchor, extra ? extra : "", e);
}

static void draw_axes(GString *s, const struct svg_plot *p, const struct layout *l,
		      const struct axis *ax, const struct axis *ay)
{
	const int right = l->w - l->right, base = PLOT_H - BOTTOM;
	char buf[64];

	g_string_append(s, "<g font-size=\"12\" fill=\"#000\">\n");
	/* Half a step of slack so that rounding never drops the last tick. */
	for (double v = ax->lo; v <= ax->hi + ax->step / 2; v += ax->step) {
		double x = px(l, ax, v);

		g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
				       "stroke=\"#000\"/>\n", x, base, x, base + 5);
		g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
				       "stroke=\"#ddd\"/>\n", x, base, x, TOP);
		g_snprintf(buf, sizeof(buf), "%g", v);
		text(s, x, base + 19, "middle", NULL, buf);
	}
	for (double v = ay->lo; v <= ay->hi + ay->step / 2; v += ay->step) {
		double y = py(ay, v);

		g_string_append_printf(s, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
				       "stroke=\"#000\"/>\n", LEFT - 5, y, LEFT, y);
		g_string_append_printf(s, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
				       "stroke=\"#ddd\"/>\n", LEFT, y, right, y);
		g_snprintf(buf, sizeof(buf), "%g", v);
		text(s, LEFT - 8, y + 4, "end", NULL, buf);
	}
	g_string_append(s, "</g>\n");
	/* The axes last, over the grid. */
	g_string_append_printf(s, "<g stroke=\"#000\" stroke-width=\"1\">\n"
			       "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n"
			       "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n</g>\n",
			       LEFT, base, right, base, LEFT, base, LEFT, TOP);
	text(s, (LEFT + right) / 2.0, PLOT_H - 15, "middle", " font-size=\"14\"",
	     p->x_label ? p->x_label : "");
	{
		g_autofree char *rot = g_strdup_printf(" font-size=\"14\" transform=\"rotate(-90 %d %d)\"",
						       20, (TOP + base) / 2);

		text(s, 20, (TOP + base) / 2.0, "middle", rot,
		     p->y_label ? p->y_label : "");
	}
}

/* One point's marker, about 8 px across, centred on (x, y). */
static void draw_marker(GString *s, enum marker m, double x, double y,
			const char *colour)
{
	switch (m) {
	case M_CIRCLE:
		g_string_append_printf(s, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n",
				       x, y, colour);
		break;
	case M_SQUARE:
		g_string_append_printf(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" "
				       "fill=\"%s\"/>\n", x - 3.5, y - 3.5, colour);
		break;
	case M_TRIANGLE:
		g_string_append_printf(s, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" "
				       "fill=\"%s\"/>\n", x, y - 5, x + 4.5, y + 3.5,
				       x - 4.5, y + 3.5, colour);
		break;
	case M_DIAMOND:
		g_string_append_printf(s, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\" "
				       "fill=\"%s\"/>\n", x, y - 5, x + 5, y, x, y + 5,
				       x - 5, y, colour);
		break;
	default:
		g_string_append_printf(s, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" "
				       "fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
				       x, y + 5, x + 4.5, y - 3.5, x - 4.5, y - 3.5, colour);
	}
}

static void dash_attr(GString *s, const struct style *st)
{
	if (st->dash)
		g_string_append_printf(s, " stroke-dasharray=\"%s\"", st->dash);
}

static bool finite_point(const struct svg_series *se, guint i)
{
	return isfinite(se->x[i]) && isfinite(se->y[i]);
}

/* One polyline per run of finite points: no segment across a gap. */
static void draw_series(GString *s, const struct svg_series *se, const struct style *st,
			const struct layout *l, const struct axis *ax,
			const struct axis *ay, bool steps)
{
	for (guint i = 0; i < se->n;) {
		guint end = i;

		if (!finite_point(se, i)) {
			i++;
			continue;
		}
		while (end < se->n && finite_point(se, end))
			end++;
		g_string_append_printf(s, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"",
				       st->colour);
		dash_attr(s, st);
		g_string_append(s, " points=\"");
		for (guint k = i; k < end; k++) {
			if (steps && k > i)	/* the last level up to this sample */
				g_string_append_printf(s, " %.1f,%.1f", px(l, ax, se->x[k]),
						       py(ay, se->y[k - 1]));
			g_string_append_printf(s, "%s%.1f,%.1f", k > i ? " " : "",
					       px(l, ax, se->x[k]), py(ay, se->y[k]));
		}
		g_string_append(s, "\"/>\n");
		i = end;
	}
	for (guint i = 0; i < se->n; i++)
		if (finite_point(se, i))
			draw_marker(s, st->marker, px(l, ax, se->x[i]), py(ay, se->y[i]),
				    st->colour);
}

/* End labels: their size, their distance from the line's end, their rows. */
#define END_PX 11
#define END_GAP 8
#define END_ROW 13.0

static double svg_text_width_max(const struct svg_plot *p, double px_size)
{
	double w = 0;

	for (guint i = 0; i < p->nseries; i++)
		w = MAX(w, svg_text_width(p->series[i].label, px_size));
	return w;
}

/* A legend entry: a line sample with the series' marker, then its label. */
#define SWATCH 34
#define SWATCH_GAP 8
#define COL_GAP 24

static struct layout make_layout(const struct svg_plot *p)
{
	struct layout l = { .w = W, .cols = 1, .right = RIGHT };
	double widest = 0;
	int rows;

	for (guint i = 0; i < p->nseries; i++)
		widest = MAX(widest, svg_text_width(p->series[i].label, 12));
	if (p->end_labels)	/* a line ending at the right edge keeps its label */
		l.right = RIGHT + (int)ceil(END_GAP + svg_text_width_max(p, END_PX));
	l.col_w = SWATCH + SWATCH_GAP + widest + COL_GAP;
	/* A label wider than the plot widens the document, never overflows it. */
	if (l.col_w > l.w - LEFT - RIGHT)
		l.w = (int)ceil(l.col_w) + LEFT + RIGHT;
	l.cols = MAX(1, (int)((l.w - LEFT - RIGHT) / l.col_w));
	rows = p->nseries ? ((int)p->nseries + l.cols - 1) / l.cols : 0;
	l.legend_top = PLOT_H;
	l.h = PLOT_H + (rows ? rows * LEGEND_ROW + 2 * LEGEND_PAD : 0);
	return l;
}

static void draw_legend(GString *s, const struct svg_plot *p, const struct layout *l)
{
	int rows = ((int)p->nseries + l->cols - 1) / l->cols;

	if (!p->nseries)
		return;
	/* Column-major, so that the order reads down each column. */
	g_string_append_printf(s, "<g class=\"legend\" font-size=\"12\">\n"
			       "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
			       "fill=\"none\" stroke=\"#ccc\"/>\n", LEFT - 6, l->legend_top,
			       l->cols * l->col_w - COL_GAP + 12,
			       rows * LEGEND_ROW + LEGEND_PAD);
	for (guint i = 0; i < p->nseries; i++) {
		struct style st = series_style(p->style_base + i);
		double x = LEFT + (i / rows) * l->col_w;
		double y = l->legend_top + LEGEND_PAD + (i % rows) * LEGEND_ROW + 4;

		g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				       "stroke=\"%s\" stroke-width=\"2\"", x, y, x + SWATCH, y,
				       st.colour);
		dash_attr(s, &st);
		g_string_append(s, "/>\n");
		draw_marker(s, st.marker, x + SWATCH / 2.0, y, st.colour);
		text(s, x + SWATCH + SWATCH_GAP, y + 4, "start", NULL,
		     p->series[i].label ? p->series[i].label : "");
	}
	g_string_append(s, "</g>\n");
}

/* Stretches of x with no data: shaded, their label along the top. */
static void draw_bands(GString *s, const struct svg_plot *p, const struct layout *l,
		       const struct axis *ax)
{
	int base = PLOT_H - BOTTOM;

	for (guint i = 0; i < p->nbands; i++) {
		const struct svg_band *b = &p->bands[i];
		double x0 = px(l, ax, b->x0), x1 = px(l, ax, b->x1);

		g_string_append_printf(s, "<rect class=\"band\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
				       "height=\"%d\" fill=\"#e8e8e8\"/>\n", x0, TOP,
				       MAX(x1 - x0, 1.0), base - TOP);
		text(s, x0 + 3, TOP + 12, "start", " class=\"band-label\" font-size=\"10\" "
		     "fill=\"#555\"", b->label ? b->label : "");
	}
}

/* Room a vertical mark label takes across (10 px text and a gap). */
#define MARK_SLOT 13.0

/*
 * Where each mark's label goes across: just left of its line, unless
 * that would overlap the label before it, then pushed right; a cluster
 * that runs past the plot's right edge is pushed back left.
 */
static double *mark_slots(const struct svg_plot *p, const struct layout *l,
			  const struct axis *ax, guint *order)
{
	double *slot = g_new(double, p->nmarks ? p->nmarks : 1);
	double right = l->w - l->right;

	for (guint i = 0; i < p->nmarks; i++)
		order[i] = i;
	/* by x (insertion sort: a timeline has a handful of marks) */
	for (guint i = 1; i < p->nmarks; i++)
		for (guint k = i; k > 0 && p->marks[order[k]].x < p->marks[order[k - 1]].x; k--) {
			guint t = order[k];

			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	for (guint i = 0; i < p->nmarks; i++) {
		double want = px(l, ax, p->marks[order[i]].x) - 3;

		slot[i] = i && want < slot[i - 1] + MARK_SLOT ? slot[i - 1] + MARK_SLOT : want;
	}
	for (guint i = p->nmarks; i-- > 0;) {
		double limit = i + 1 < p->nmarks ? slot[i + 1] - MARK_SLOT : right;

		slot[i] = MIN(slot[i], limit);
	}
	return slot;
}

/* Events on a timeline: dashed verticals, labelled along their length;
 * a label moved off its line is joined to it at the top. */
static void draw_marks(GString *s, const struct svg_plot *p, const struct layout *l,
		       const struct axis *ax)
{
	int base = PLOT_H - BOTTOM, top = TOP + 12;
	g_autofree guint *order = g_new(guint, p->nmarks ? p->nmarks : 1);
	g_autofree double *slot = mark_slots(p, l, ax, order);

	for (guint k = 0; k < p->nmarks; k++) {
		const struct svg_vmark *m = &p->marks[order[k]];
		const char *c = m->colour ? m->colour : "#777";
		double x = px(l, ax, m->x);
		g_autofree char *rot = g_strdup_printf(" class=\"mark-label\" font-size=\"10\" "
						       "fill=\"%s\" transform=\"rotate(-90 %.1f %d)\"",
						       c, slot[k], top);

		g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
				       "y2=\"%d\" stroke=\"%s\" stroke-width=\"1.5\" "
				       "stroke-dasharray=\"4 3\"/>\n", x, TOP, x, base, c);
		if (fabs(slot[k] - (x - 3)) > 0.5)
			g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
					       "y2=\"%d\" stroke=\"%s\" stroke-width=\"1\"/>\n",
					       x, TOP, slot[k] - 4, top - 2, c);
		text(s, slot[k], top, "end", rot, m->label ? m->label : "");
	}
}

struct end_label {
	guint series;
	double ex, ey;		/* the line's last point */
	double want, y;		/* the label's baseline: wanted, given */
};

static int by_want(gconstpointer a, gconstpointer b)
{
	const struct end_label *p = a, *q = b;

	return (p->want > q->want) - (p->want < q->want);
}

/*
 * Rows for the labels, top to bottom: each as near its line's end as it
 * can be, no two closer than a row. Labels that would collide form a
 * block centred on where they want to be, kept inside the plot (the
 * usual one-dimensional label placement).
 */
static void end_label_rows(struct end_label *lb, guint n)
{
	g_autofree guint *start = g_new(guint, n ? n : 1);	/* per block: first label */
	g_autofree double *top = g_new(double, n ? n : 1);
	guint blocks = 0;

	for (guint i = 0; i < n; i++) {
		start[blocks] = i;
		top[blocks++] = lb[i].want;
		/* merge with the block above while they overlap */
		while (blocks > 1) {
			guint b = blocks - 1, first = start[b - 1];
			guint len_prev = start[b] - first;
			double sum = 0;
			guint k;

			if (top[b - 1] + len_prev * END_ROW <= top[b])
				break;
			for (k = first; k <= i; k++)
				sum += lb[k].want;
			top[b - 1] = sum / (i - first + 1) - (i - first) * END_ROW / 2;
			blocks--;
		}
	}
	for (guint b = 0; b < blocks; b++) {
		guint end = b + 1 < blocks ? start[b + 1] : n;
		double t = MAX(top[b], TOP + 12.0);

		t = MIN(t, PLOT_H - BOTTOM - 4 - (end - start[b] - 1) * END_ROW);
		for (guint k = start[b]; k < end; k++)
			lb[k].y = t + (k - start[b]) * END_ROW;
	}
}

static void draw_end_labels(GString *s, const struct svg_plot *p, const struct layout *l,
			    const struct axis *ax, const struct axis *ay)
{
	g_autoptr(GArray) lb = g_array_new(FALSE, FALSE, sizeof(struct end_label));

	for (guint i = 0; i < p->nseries; i++) {
		const struct svg_series *se = &p->series[i];

		for (guint k = se->n; k-- > 0;)
			if (finite_point(se, k)) {
				struct end_label e = { .series = i, .ex = px(l, ax, se->x[k]),
							 .ey = py(ay, se->y[k]) };

				e.want = e.ey + 4;
				g_array_append_val(lb, e);
				break;
			}
	}
	g_array_sort(lb, by_want);
	end_label_rows((struct end_label *)lb->data, lb->len);
	g_string_append(s, "<g class=\"end-labels\">\n");
	for (guint k = 0; k < lb->len; k++) {
		const struct end_label *e = &g_array_index(lb, struct end_label, k);
		struct style st = series_style(p->style_base + e->series);
		g_autofree char *attrs = g_strdup_printf(" class=\"end-label\" font-size=\"%d\" "
							 "fill=\"%s\" stroke=\"#fff\" "
							 "stroke-width=\"3\" paint-order=\"stroke\"",
							 END_PX, st.colour);

		if (fabs(e->y - e->want) > 0.5)	/* moved: joined to its line's end */
			g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
					       "y2=\"%.1f\" stroke=\"%s\" stroke-width=\"0.8\"/>\n",
					       e->ex + 2, e->ey, e->ex + END_GAP - 1, e->y - 4,
					       st.colour);
		text(s, e->ex + END_GAP, e->y, "start", attrs,
		     p->series[e->series].label ? p->series[e->series].label : "");
	}
	g_string_append(s, "</g>\n");
}

/* The axes' ranges over every finite point and mark. */
static void data_axes(const struct svg_plot *p, struct axis *ax, struct axis *ay)
{
	double xmax = 0, ymax = 0;

	for (guint i = 0; i < p->nseries; i++)
		for (guint j = 0; j < p->series[i].n; j++) {
			if (!finite_point(&p->series[i], j))
				continue;
			xmax = MAX(xmax, p->series[i].x[j]);
			ymax = MAX(ymax, p->series[i].y[j]);
		}
	for (guint i = 0; i < p->nmarks; i++)
		xmax = MAX(xmax, p->marks[i].x);
	for (guint i = 0; i < p->nbands; i++)
		xmax = MAX(xmax, p->bands[i].x1);
	*ax = make_axis(xmax);
	*ay = make_axis(ymax);
}

/* What lies inside a plot's <svg>: background, titles, axes, data, legend. */
static void plot_body(GString *s, const struct svg_plot *p, const struct layout *l)
{
	struct axis ax, ay;

	data_axes(p, &ax, &ay);
	g_string_append(s, "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n");
	text(s, l->w / 2.0, 24, "middle", " font-size=\"16\" font-weight=\"bold\"",
	     p->title ? p->title : "");
	if (p->subtitle)
		text(s, l->w / 2.0, 44, "middle", " font-size=\"12\" fill=\"#444\"", p->subtitle);
	draw_bands(s, p, l, &ax);
	draw_axes(s, p, l, &ax, &ay);

	g_string_append(s, "<g>\n");
	for (guint i = 0; i < p->nseries; i++) {
		struct style st = series_style(p->style_base + i);

		draw_series(s, &p->series[i], &st, l, &ax, &ay, p->steps);
	}
	g_string_append(s, "</g>\n");
	draw_marks(s, p, l, &ax);
	if (p->end_labels)
		draw_end_labels(s, p, l, &ax, &ay);
	draw_legend(s, p, l);
}

#define SVG_OPEN "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" \
	"<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"%s\" width=\"%d\" " \
	"height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, sans-serif\">\n"

char *svg_line_plot(const struct svg_plot *p)
{
	GString *s = g_string_new(NULL);
	struct layout l = make_layout(p);

	g_string_append_printf(s, SVG_OPEN, "cxlbed-plot", l.w, l.h, l.w, l.h);
	plot_body(s, p, &l);
	g_string_append(s, "</svg>\n");
	return g_string_free(s, FALSE);
}

#define PANELS_TITLE_H 36

char *svg_panels(const char *title, const struct svg_plot *panels, guint n)
{
	GString *s = g_string_new(NULL);
	g_autofree struct layout *l = g_new(struct layout, n ? n : 1);
	int w = W, h = PANELS_TITLE_H, y = PANELS_TITLE_H;

	for (guint i = 0; i < n; i++) {
		l[i] = make_layout(&panels[i]);
		w = MAX(w, l[i].w);
		h += l[i].h;
	}
	g_string_append_printf(s, SVG_OPEN, "cxlbed-panels", w, h, w, h);
	g_string_append(s, "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n");
	text(s, w / 2.0, 24, "middle", " font-size=\"17\" font-weight=\"bold\"",
	     title ? title : "");
	for (guint i = 0; i < n; i++) {
		g_string_append_printf(s, "<svg class=\"cxlbed-plot\" x=\"0\" y=\"%d\" "
				       "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
				       y, l[i].w, l[i].h, l[i].w, l[i].h);
		plot_body(s, &panels[i], &l[i]);
		g_string_append(s, "</svg>\n");
		y += l[i].h;
	}
	g_string_append(s, "</svg>\n");
	return g_string_free(s, FALSE);
}

const char *svg_element(const char *doc)
{
	const char *svg = doc ? strstr(doc, "<svg") : NULL;

	return svg ? svg : "";
}
