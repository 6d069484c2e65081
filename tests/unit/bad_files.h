/* SPDX-License-Identifier: MIT */
/*
 * The bad-input files of tests/data/bad: each marks the line its error
 * must name with "<-- error" and the text the message must contain with
 * a "# expect: TEXT" line. Some hold NUL bytes or other binary junk.
 */
#ifndef CXLBED_TEST_BAD_FILES_H
#define CXLBED_TEST_BAD_FILES_H

#include "tap.h"
#include "common/error.h"

#include <glib.h>
#include <stdbool.h>

static int bad_path_cmp(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* tests/data/bad/ *SUFFIX, sorted. */
static inline GPtrArray *bad_files(const char *suffix)
{
	const char *bad_dir = SRCDIR "/tests/data/bad";
	GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
	GDir *d = g_dir_open(bad_dir, 0, NULL);
	const char *name;

	while (d && (name = g_dir_read_name(d)))
		if (g_str_has_suffix(name, suffix))
			g_ptr_array_add(out, g_build_filename(bad_dir, name, NULL));
	if (d)
		g_dir_close(d);
	g_ptr_array_sort(out, bad_path_cmp);
	return out;
}

/* Line number of the "<-- error" marker and the "# expect:" text. */
static inline bool read_marks(const char *path, int *line, char **expect)
{
	g_autofree char *text = NULL;
	g_auto(GStrv) lines = NULL;
	gsize len;

	*line = 0;
	*expect = NULL;
	if (!g_file_get_contents(path, &text, &len, NULL))
		return false;
	/* read past NUL bytes */
	for (gsize i = 0; i < len; i++)
		if (!text[i])
			text[i] = ' ';
	lines = g_strsplit(text, "\n", -1);
	for (int i = 0; lines[i]; i++) {
		if (strstr(lines[i], "<-- error"))
			*line = i + 1;
		if (g_str_has_prefix(lines[i], "# expect: ") && !*expect)
			*expect = g_strdup(lines[i] + 10);
	}
	return *line && *expect;
}

/*
 * One test: loading @path (with @load) fails with an input error (exit 2)
 * at its marked line, containing its expected text.
 */
static inline void check_bad_file(const char *path,
				  bool (*load)(const char *path, GError **error))
{
	g_autofree char *base = g_path_get_basename(path);
	g_autofree char *expect = NULL, *prefix = NULL;
	g_autoptr(GError) err = NULL;
	int line;

	if (!read_marks(path, &line, &expect)) {
		ok(0, "%s: has a '<-- error' mark and a '# expect:' line", base);
		return;
	}
	prefix = g_strdup_printf("%s:%d: ", path, line);
	if (!ok(!load(path, &err) && err && err->domain == CXLBED_ERROR &&
		err->code == CXLBED_ERROR_INPUT &&
		g_str_has_prefix(err->message, prefix) &&
		strstr(err->message, expect),
		"%s: input error (exit 2) at line %d: %s", base, line, expect))
		diag("  got: %s", err ? err->message : "(loaded fine)");
}

#endif
