/* SPDX-License-Identifier: MIT */
/* The building blocks of every HTML page cxlbed writes (see html_parts.h). */
#include "results/html_parts.h"
#include "results/escape.h"
#include "results/figures.h"
#include "results/svg.h"

static const char style[] =
	"body{font-family:'DejaVu Sans',sans-serif;margin:24px;color:#222;max-width:1400px}"
	"h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ccc}"
	"h3{font-size:15px;margin-top:18px}"
	"table{border-collapse:collapse;font-size:13px;margin:8px 0}"
	"th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}"
	"th{background:#f2f2f2}td.num{text-align:right;font-variant-numeric:tabular-nums}"
	".pass{color:#1a7f37;font-weight:bold}.fail{color:#c62828;font-weight:bold}"
	".verdict{display:inline-block;padding:2px 10px;border-radius:4px;color:#fff}"
	".verdict.pass{background:#1a7f37}.verdict.fail{background:#c62828}"
	"dl{display:grid;grid-template-columns:max-content auto;gap:2px 14px;font-size:14px}"
	"dt{font-weight:bold}dd{margin:0}code{font-size:12px}"
	".figure{overflow-x:auto;margin:8px 0}.note{font-size:13px;color:#444}";

void html_esc(GString *s, const char *text)
{
	g_autofree char *e = svg_escape(text ? text : "");

	g_string_append(s, e);
}

void html_page_start(GString *s, const char *title)
{
	g_string_append(s, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			   "<meta name=\"generator\" content=\"cxlbed\">\n<title>");
	html_esc(s, title);
	g_string_append_printf(s, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", style);
	html_esc(s, title);
	g_string_append(s, "</h1>\n");
}


void html_link(GString *s, const char *target, const char *text)
{
	g_autofree char *href = report_href(target);

	if (href) {
		g_string_append(s, "<a href=\"");
		html_esc(s, href);
		g_string_append(s, "\">");
	}
	html_esc(s, text);
	if (href)
		g_string_append(s, "</a>");
}

void html_cell(GString *s, const char *text)
{
	g_string_append(s, "<td>");
	html_esc(s, text);
	g_string_append(s, "</td>");
}


void html_num(GString *s, double v, const char *fmt)
{
	char buf[32];

	g_string_append_printf(s, "<td class=\"num\">%s</td>", fig_format(buf, sizeof(buf), v, fmt));
}

void html_table_head(GString *s, const char *const *cols)
{
	g_string_append(s, "<table>\n<tr>");
	for (; *cols; cols++) {
		g_string_append(s, "<th>");
		html_esc(s, *cols);
		g_string_append(s, "</th>");
	}
	g_string_append(s, "</tr>\n");
}
