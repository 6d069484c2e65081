/* SPDX-License-Identifier: MIT */
/*
 * Building blocks of cxlbed's HTML pages (a run's, a table's, a sweep's):
 * the document up to its <h1> with the one style sheet, text escaped, a
 * table's header row, a cell, a link that may only point beside the page,
 * a figure. Pages and their sections use these; these use no page.
 */
#ifndef CXLBED_RESULTS_HTML_PARTS_H
#define CXLBED_RESULTS_HTML_PARTS_H

#include <glib.h>

void html_page_start(GString *s, const char *title);
void html_esc(GString *s, const char *text);
void html_table_head(GString *s, const char *const *cols);
void html_cell(GString *s, const char *text);
/* <a href=TARGET>TEXT</a>, or TEXT alone when TARGET may not be a link
 * (escape.h: only http(s) or a relative path, percent-encoded). */
void html_link(GString *s, const char *target, const char *text);
void html_num(GString *s, double v, const char *fmt);

#endif
