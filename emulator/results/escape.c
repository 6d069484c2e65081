/* SPDX-License-Identifier: MIT */
/* Run data made safe for Markdown and for links (escape.h). */
#include "results/escape.h"

#include <stdbool.h>
#include <string.h>

/* CommonMark lets any ASCII punctuation be backslash-escaped; these are
 * the ones that start markup or end a table cell. */
#define MD_SPECIAL "\\`*_[]<>|"

void md_text(GString *s, const char *text)
{
	for (const char *c = text; c && *c; c++) {
		if (*c == '\n' || *c == '\r')
			g_string_append_c(s, ' ');
		else if (strchr(MD_SPECIAL, *c))
			g_string_append_printf(s, "\\%c", *c);
		else
			g_string_append_c(s, *c);
	}
}

void md_cell(GString *s, const char *text)
{
	g_string_append_c(s, ' ');
	md_text(s, text ? text : "-");
	g_string_append(s, " |");
}

void md_code(GString *s, const char *text)
{
	int run = 0, longest = 0;

	/* a fence longer than any run of backticks inside */
	for (const char *c = text; c && *c; c++) {
		run = *c == '`' ? run + 1 : 0;
		longest = MAX(longest, run);
	}
	for (int i = 0; i <= longest; i++)
		g_string_append_c(s, '`');
	if (longest)
		g_string_append_c(s, ' ');
	for (const char *c = text; c && *c; c++) {
		if (*c == '\n' || *c == '\r')
			g_string_append_c(s, ' ');
		else if (*c == '|')
			g_string_append(s, "\\|");	/* GFM: a table cell's pipe */
		else
			g_string_append_c(s, *c);
	}
	if (longest)
		g_string_append_c(s, ' ');
	for (int i = 0; i <= longest; i++)
		g_string_append_c(s, '`');
}

void md_link(GString *s, const char *text, const char *target)
{
	g_autofree char *href = report_href(target);

	if (!href) {
		md_text(s, text);
		return;
	}
	g_string_append_c(s, '[');
	md_text(s, text);
	/* a percent-encoded path has no ( ) < > or space left to break it */
	g_string_append_printf(s, "](%s)", href);
}

static bool is_web(const char *t)
{
	return g_ascii_strncasecmp(t, "http://", 7) == 0 ||
	       g_ascii_strncasecmp(t, "https://", 8) == 0;
}

char *report_href(const char *target)
{
	g_auto(GStrv) parts = NULL;
	GString *out;

	if (!target || !*target)
		return NULL;
	if (is_web(target)) {
		/* only what an address may hold: no quote, space or angle bracket */
		for (const char *c = target; *c; c++)
			if ((unsigned char)*c <= ' ' || strchr("\"'<>\\`", *c))
				return NULL;
		return g_strdup(target);
	}
	if (target[0] == '/' || target[0] == '\\')
		return NULL;	/* absolute: not beside the page */
	parts = g_strsplit(target, "/", -1);
	/* a colon before the first slash names a scheme (javascript:, file:) */
	if (strchr(parts[0], ':'))
		return NULL;
	out = g_string_new(NULL);
	for (guint i = 0; parts[i]; i++) {
		g_autofree char *e = NULL;

		if (!strcmp(parts[i], "..") || (!*parts[i] && parts[i + 1])) {
			g_string_free(out, TRUE);
			return NULL;
		}
		e = g_uri_escape_string(parts[i], NULL, FALSE);
		g_string_append_printf(out, "%s%s", i ? "/" : "", e);
	}
	return g_string_free(out, FALSE);
}
