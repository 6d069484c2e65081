/* SPDX-License-Identifier: MIT */
/* A line plot in plain SVG (see svg.h). */
#include "svg.h"

#include <math.h>

#define W 900
#define H 560
#define LEFT 80		/* room for y tick labels and the y axis label */
#define RIGHT 300	/* the legend */
#define TOP 60
#define BOTTOM 60

/* Colour-blind friendly palette (Okabe-Ito), cycled. */
static const char *const colours[] = {
	"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
	"#000000", "#F0E442",
};

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

struct axis {
	double lo, hi, step;
};

/* From 0 (both quantities are >= 0) to a round value above the data. */
static struct axis make_axis(double max)
{
	struct axis a = { 0, max > 0 ? max * 1.05 : 1, 0 };

	a.step = svg_tick_step(a.hi, 6);
	a.hi = ceil(a.hi / a.step) * a.step;
	return a;
}

static double px(const struct axis *a, double v)
{
	return LEFT + (v - a->lo) / (a->hi - a->lo) * (W - LEFT - RIGHT);
}

static double py(const struct axis *a, double v)
{
	return H - BOTTOM - (v - a->lo) / (a->hi - a->lo) * (H - TOP - BOTTOM);
}

static void text(GString *s, double x, double y, const char *anchor,
		 const char *extra, const char *str)
{
	g_autofree char *e = svg_escape(str);

	g_string_append_printf(s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s>%s</text>\n",
			       x, y, anchor, extra ? extra : "", e);
}

static void draw_axes(GString *s, const struct svg_plot *p,
		      const struct axis *ax, const struct axis *ay)
{
	char buf[64];

	g_string_append(s, "<g font-size=\"12\" fill=\"#000\">\n");
	/* Half a step of slack so that rounding never drops the last tick. */
	for (double v = ax->lo; v <= ax->hi + ax->step / 2; v += ax->step) {
		double x = px(ax, v);

		g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
				       "stroke=\"#000\"/>\n", x, H - BOTTOM, x, H - BOTTOM + 5);
		g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
				       "stroke=\"#ddd\"/>\n", x, H - BOTTOM, x, TOP);
		g_snprintf(buf, sizeof(buf), "%g", v);
		text(s, x, H - BOTTOM + 19, "middle", NULL, buf);
	}
	for (double v = ay->lo; v <= ay->hi + ay->step / 2; v += ay->step) {
		double y = py(ay, v);

		g_string_append_printf(s, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
				       "stroke=\"#000\"/>\n", LEFT - 5, y, LEFT, y);
		g_string_append_printf(s, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
				       "stroke=\"#ddd\"/>\n", LEFT, y, W - RIGHT, y);
		g_snprintf(buf, sizeof(buf), "%g", v);
		text(s, LEFT - 8, y + 4, "end", NULL, buf);
	}
	g_string_append(s, "</g>\n");
	/* The axes last, over the grid. */
	g_string_append_printf(s, "<g stroke=\"#000\" stroke-width=\"1\">\n"
			       "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n"
			       "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n</g>\n",
			       LEFT, H - BOTTOM, W - RIGHT, H - BOTTOM,
			       LEFT, H - BOTTOM, LEFT, TOP);
	text(s, (LEFT + W - RIGHT) / 2.0, H - 15, "middle", " font-size=\"14\"",
	     p->x_label ? p->x_label : "");
	{
		g_autofree char *rot = g_strdup_printf(" font-size=\"14\" transform=\"rotate(-90 %d %d)\"",
						       20, (TOP + H - BOTTOM) / 2);

		text(s, 20, (TOP + H - BOTTOM) / 2.0, "middle", rot,
		     p->y_label ? p->y_label : "");
	}
}

static void draw_series(GString *s, const struct svg_series *se, const char *colour,
			const struct axis *ax, const struct axis *ay)
{
	g_string_append_printf(s, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
			       colour);
	for (guint i = 0; i < se->n; i++)
		g_string_append_printf(s, "%s%.1f,%.1f", i ? " " : "",
				       px(ax, se->x[i]), py(ay, se->y[i]));
	g_string_append(s, "\"/>\n");
	for (guint i = 0; i < se->n; i++)
		g_string_append_printf(s, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
				       px(ax, se->x[i]), py(ay, se->y[i]), colour);
}

char *svg_line_plot(const struct svg_plot *p)
{
	GString *s = g_string_new(NULL);
	double xmax = 0, ymax = 0;
	struct axis ax, ay;

	for (guint i = 0; i < p->nseries; i++)
		for (guint j = 0; j < p->series[i].n; j++) {
			xmax = MAX(xmax, p->series[i].x[j]);
			ymax = MAX(ymax, p->series[i].y[j]);
		}
	ax = make_axis(xmax);
	ay = make_axis(ymax);

	g_string_append_printf(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			       "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
			       "height=\"%d\" viewBox=\"0 0 %d %d\" "
			       "font-family=\"sans-serif\">\n"
			       "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
			       W, H, W, H);
	text(s, W / 2.0, 24, "middle", " font-size=\"16\" font-weight=\"bold\"",
	     p->title ? p->title : "");
	if (p->subtitle)
		text(s, W / 2.0, 44, "middle", " font-size=\"12\" fill=\"#444\"", p->subtitle);
	draw_axes(s, p, &ax, &ay);

	g_string_append(s, "<g>\n");
	for (guint i = 0; i < p->nseries; i++)
		draw_series(s, &p->series[i], colours[i % G_N_ELEMENTS(colours)], &ax, &ay);
	g_string_append(s, "</g>\n");

	/* Legend: a swatch and the label per series, right of the plot. */
	g_string_append(s, "<g font-size=\"12\">\n");
	for (guint i = 0; i < p->nseries; i++) {
		double y = TOP + 10 + i * 20;
		const char *c = colours[i % G_N_ELEMENTS(colours)];

		g_string_append_printf(s, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
				       "stroke=\"%s\" stroke-width=\"3\"/>\n",
				       W - RIGHT + 15, y, W - RIGHT + 40, y, c);
		text(s, W - RIGHT + 46, y + 4, "start", NULL,
		     p->series[i].label ? p->series[i].label : "");
	}
	g_string_append(s, "</g>\n</svg>\n");
	return g_string_free(s, FALSE);
}
