/* SPDX-License-Identifier: MIT */
/*
 * Text from a run's data (host and workload names, check details, paths,
 * folder names) made safe for the pages and files a person opens: a
 * Markdown cell that cannot break its table or carry HTML or a link, and
 * a link target that is only ever an http(s) address or a path relative
 * to the page.
 */
#ifndef CXLBED_REPORT_ESCAPE_H
#define CXLBED_REPORT_ESCAPE_H

#include <glib.h>

/*
 * @text as Markdown text: every character that could start HTML, a link,
 * emphasis or a code span, or end a table cell, backslash-escaped; a line
 * break becomes a space. NULL writes nothing.
 */
void md_text(GString *s, const char *text);
/* " TEXT |": a table cell of run data (md_text); NULL is "-". */
void md_cell(GString *s, const char *text);
/* @text as a Markdown code span, in a table cell (its `|` escaped). */
void md_code(GString *s, const char *text);
/* A Markdown link to @target, or @text alone when @target is not one
 * (report_href). */
void md_link(GString *s, const char *text, const char *target);

/*
 * @target as a link's address, or NULL when it may not be one: an
 * http(s) address as it is, or a relative path, each of its parts
 * percent-encoded; an absolute path, a path that climbs out (..), or
 * anything that names another scheme (javascript:, file:, data:) is
 * refused. Caller frees.
 */
char *report_href(const char *target);

#endif
