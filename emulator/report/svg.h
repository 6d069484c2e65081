/* SPDX-License-Identifier: MIT */
/*
 * A line plot as a standalone SVG document, written by hand: axes with
 * ticks and labels, one polyline (with point markers) per series, a
 * legend. No external tools.
 */
#ifndef CXLBED_SVG_H
#define CXLBED_SVG_H

#include <glib.h>

struct svg_series {
	const char *label;
	const double *x, *y;
	guint n;
};

struct svg_plot {
	const char *title;
	const char *subtitle;	/* smaller line under the title, may be NULL */
	const char *x_label, *y_label;
	const struct svg_series *series;
	guint nseries;
};

/* The whole document; caller frees. */
char *svg_line_plot(const struct svg_plot *p);

/* Round tick step (1, 2 or 5 x 10^k) giving about @want ticks over span. */
double svg_tick_step(double span, int want);

/* @s with &, <, >, " escaped for XML text and attributes; caller frees. */
char *svg_escape(const char *s);

#endif
