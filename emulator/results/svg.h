/* SPDX-License-Identifier: MIT */
/*
 * A line plot as a standalone SVG document, written by hand: axes with
 * ticks and labels, one polyline (with point markers) per series, a
 * legend under the plot that the document grows to hold: each series has
 * its own colour and marker pair. No external tools.
 */
#ifndef CXLBED_SVG_H
#define CXLBED_SVG_H

#include <glib.h>
#include <stdbool.h>

/* A point whose x or y is not finite (NAN) breaks the line there: no
 * segment is drawn across it (a gap in the samples). */
struct svg_series {
	const char *label;
	const double *x, *y;
	guint n;
};

/* A vertical line at @x across the plot, its label written along it. */
struct svg_vmark {
	double x;
	const char *label;
	const char *colour;	/* NULL: grey */
};

/* A stretch of x shaded across the plot, its label along its top (a
 * time with no samples). */
struct svg_band {
	double x0, x1;
	const char *label;
};

struct svg_plot {
	const char *title;
	const char *subtitle;	/* smaller line under the title, may be NULL */
	const char *x_label, *y_label;
	const struct svg_series *series;
	guint nseries;
	const struct svg_vmark *marks;	/* may be NULL (a timeline's events) */
	guint nmarks;
	const struct svg_band *bands;	/* may be NULL */
	guint nbands;
	/* each series' label also at its line's end (lines that lie on one
	 * another get their labels stacked, each joined to its end) */
	bool end_labels;
	/* each value holds until the next point (sampled levels): the line
	 * steps there, with the markers on the samples */
	bool steps;
	/* series i is drawn in style style_base + i: panels of one figure
	 * keep every series apart (svg_panels) */
	guint style_base;
};

/* The whole document; caller frees. */
char *svg_line_plot(const struct svg_plot *p);
/*
 * Several plots stacked in one document, each a panel with its own axes
 * and legend (an <svg class="cxlbed-plot"> of its own), under @title;
 * caller frees.
 */
char *svg_panels(const char *title, const struct svg_plot *panels, guint n);

/* Round tick step (1, 2 or 5 x 10^k) giving about @want ticks over span. */
double svg_tick_step(double span, int want);

/* The document without its XML declaration: the <svg> element, for
 * putting inline into an HTML page. Points into @doc. */
const char *svg_element(const char *doc);

/* Estimated width in pixels of @s in DejaVu Sans at @px (never short). */
double svg_text_width(const char *s, double px);

/* @s with &, <, >, " escaped for XML text and attributes; caller frees. */
char *svg_escape(const char *s);

#endif
