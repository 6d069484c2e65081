// SPDX-License-Identifier: MIT
/* report.html's KV-share section (html_kv.h): kv_report.h's content. */
#include "results/html_kv.h"

#include "results/html_parts.h"
#include "results/kv_report.h"

static void heading(GString *s, const char *note)
{
	g_string_append(s, "<h2>KV cache shared through a CXL pool</h2>\n<p class=\"note\">");
	html_esc(s, note);
	g_string_append(s, "</p>\n");
}

static void title(GString *s, const char *text)
{
	g_string_append(s, "<h3>");
	html_esc(s, text);
	g_string_append(s, "</h3>\n");
}

static void rows_table(GString *s, const char *const *cols, GPtrArray *rows)
{
	html_table_head(s, cols);
	for (guint i = 0; i < rows->len; i++) {
		GPtrArray *row = g_ptr_array_index(rows, i);

		g_string_append(s, "<tr>");
		for (guint c = 0; c < row->len; c++)
			html_cell(s, g_ptr_array_index(row, c));
		g_string_append(s, "</tr>\n");
	}
	g_string_append(s, "</table>\n");
}

static void para(GString *s, const char *text)
{
	g_string_append(s, "<p>");
	html_esc(s, text);
	g_string_append(s, "</p>\n");
}

void html_kv_section(GString *s, const struct run_result *r)
{
	static const struct kv_format html = { heading, title, rows_table, para };

	kv_report_write(s, r, &html);
}
