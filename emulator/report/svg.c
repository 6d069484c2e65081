/* SPDX-License-Identifier: MIT */
/* A line plot in plain SVG (see svg.h). */
#include "svg.h"

#include <math.h>
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
	return LEFT + (v - a->lo) / (a->hi - a->lo) * (l->w - LEFT - RIGHT);
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
	const int right = l->w - RIGHT, base = PLOT_H - BOTTOM;
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

static void draw_series(GString *s, const struct svg_series *se, const struct style *st,
			const struct layout *l, const struct axis *ax,
			const struct axis *ay)
{
	g_string_append_printf(s, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"",
			       st->colour);
	dash_attr(s, st);
	g_string_append(s, " points=\"");
	for (guint i = 0; i < se->n; i++)
		g_string_append_printf(s, "%s%.1f,%.1f", i ? " " : "",
				       px(l, ax, se->x[i]), py(ay, se->y[i]));
	g_string_append(s, "\"/>\n");
	for (guint i = 0; i < se->n; i++)
		draw_marker(s, st->marker, px(l, ax, se->x[i]), py(ay, se->y[i]),
			    st->colour);
}

/* A legend entry: a line sample with the series' marker, then its label. */
#define SWATCH 34
#define SWATCH_GAP 8
#define COL_GAP 24

static struct layout make_layout(const struct svg_plot *p)
{
	struct layout l = { .w = W, .cols = 1 };
	double widest = 0;
	int rows;

	for (guint i = 0; i < p->nseries; i++)
		widest = MAX(widest, svg_text_width(p->series[i].label, 12));
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
		struct style st = series_style(i);
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

/* Events on a timeline: dashed verticals, labelled along their length. */
static void draw_marks(GString *s, const struct svg_plot *p, const struct layout *l,
		       const struct axis *ax)
{
	int base = PLOT_H - BOTTOM;

	for (guint i = 0; i < p->nmarks; i++) {
		const struct svg_vmark *m = &p->marks[i];
		const char *c = m->colour ? m->colour : "#777";
		double x = px(l, ax, m->x);
		g_autofree char *rot = g_strdup_printf(" font-size=\"10\" fill=\"%s\" "
						       "transform=\"rotate(-90 %.1f %d)\"",
						       c, x - 3, TOP + 4);

		g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
				       "y2=\"%d\" stroke=\"%s\" stroke-width=\"1.5\" "
				       "stroke-dasharray=\"4 3\"/>\n", x, TOP, x, base, c);
		text(s, x - 3, TOP + 4, "end", rot, m->label ? m->label : "");
	}
}

char *svg_line_plot(const struct svg_plot *p)
{
	GString *s = g_string_new(NULL);
	struct layout l = make_layout(p);
	double xmax = 0, ymax = 0;
	struct axis ax, ay;

	for (guint i = 0; i < p->nseries; i++)
		for (guint j = 0; j < p->series[i].n; j++) {
			xmax = MAX(xmax, p->series[i].x[j]);
			ymax = MAX(ymax, p->series[i].y[j]);
		}
	for (guint i = 0; i < p->nmarks; i++)
		xmax = MAX(xmax, p->marks[i].x);
	ax = make_axis(xmax);
	ay = make_axis(ymax);

	g_string_append_printf(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			       "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"cxlbed-plot\" "
			       "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
			       "font-family=\"DejaVu Sans, sans-serif\">\n"
			       "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
			       l.w, l.h, l.w, l.h);
	text(s, l.w / 2.0, 24, "middle", " font-size=\"16\" font-weight=\"bold\"",
	     p->title ? p->title : "");
	if (p->subtitle)
		text(s, l.w / 2.0, 44, "middle", " font-size=\"12\" fill=\"#444\"", p->subtitle);
	draw_axes(s, p, &l, &ax, &ay);

	g_string_append(s, "<g>\n");
	for (guint i = 0; i < p->nseries; i++) {
		struct style st = series_style(i);

		draw_series(s, &p->series[i], &st, &l, &ax, &ay);
	}
	g_string_append(s, "</g>\n");
	draw_marks(s, p, &l, &ax);
	draw_legend(s, p, &l);
	g_string_append(s, "</svg>\n");
	return g_string_free(s, FALSE);
}

const char *svg_element(const char *doc)
{
	const char *svg = doc ? strstr(doc, "<svg") : NULL;

	return svg ? svg : "";
}
