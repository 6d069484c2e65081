/* SPDX-License-Identifier: MIT */
/*
 * report.html: the page a person reads, one per run and one per table.
 * Self-contained: the styles, the topology tree and the plots are inline
 * (SVG), nothing is fetched; links only point at the files beside it.
 */
#ifndef CXLBED_REPORT_HTML_H
#define CXLBED_REPORT_HTML_H

#include "results/result.h"
#include "results/table_paths.h"
#include "topology/topology.h"

/* A run's page; @topo may be NULL (no tree). Caller frees. */
char *html_run_report(const struct run_result *r, const struct cb_topology *topo);
/* A table's page; topos[0..n) are drawn as trees (entries may be NULL). */
char *html_table_report(const struct table *t, const struct cb_topology *const *topos,
			guint n);

bool result_write_html(const struct run_result *r, const struct cb_topology *topo,
		       const char *path, GError **error);

/* Building blocks, for pages of other kinds (a sweep's): the document up to
 * its <h1>, text escaped, a table's header row, a cell, a figure ("-" < 0). */
void html_page_start(GString *s, const char *title);
void html_esc(GString *s, const char *text);
void html_table_head(GString *s, const char *const *cols);
void html_cell(GString *s, const char *text);
/* <a href=TARGET>TEXT</a>, or TEXT alone when TARGET may not be a link
 * (escape.h: only http(s) or a relative path, percent-encoded). */
void html_link(GString *s, const char *target, const char *text);
void html_num(GString *s, double v, const char *fmt);

#endif
