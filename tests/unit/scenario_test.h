/* SPDX-License-Identifier: MIT */
/*
 * For scenario tests: files written into a scratch folder (@dir, made by
 * scratch_dir() and removed at exit), and a scenario expected to fail with
 * FILE:LINE: in front (a test with a bad() of its own defines
 * SCENARIO_TEST_OWN_BAD).
 */
#ifndef CXLBED_SCENARIO_TEST_H
#define CXLBED_SCENARIO_TEST_H

#include "tap.h"
#include "common/error.h"
#include "run/scenario.h"

#include <glib/gstdio.h>
#include <stdlib.h>

static char *dir;

/* The files write_file() left (the folder holds no others), then the folder. */
static void remove_scratch_dir(void)
{
	GDir *d = dir ? g_dir_open(dir, 0, NULL) : NULL;
	const char *name;

	if (!d)
		return;
	while ((name = g_dir_read_name(d))) {
		g_autofree char *path = g_build_filename(dir, name, NULL);

		g_remove(path);
	}
	g_dir_close(d);
	g_rmdir(dir);
}

/* @dir made from @template (XXXXXX), gone when the test exits. */
static void scratch_dir(const char *template)
{
	dir = g_dir_make_tmp(template, NULL);
	if (!dir) {
		printf("Bail out! no scratch folder in %s\n", g_get_tmp_dir());
		exit(1);
	}
	atexit(remove_scratch_dir);
}

static inline char *write_file(const char *name, const char *text)
{
	char *path = g_build_filename(dir, name, NULL);

	g_file_set_contents(path, text, -1, NULL);
	return path;
}

#ifndef SCENARIO_TEST_OWN_BAD
/* Load, expect an input error whose message starts with FILE:LINE:. */
static void bad(const char *what, const char *text, int line, const char *needle)
{
	g_autofree char *path = write_file("bad.scn", text);
	g_autofree char *want = g_strdup_printf("%s:%d: ", path, line);
	g_autoptr(GError) err = NULL;
	struct scenario *s = scenario_load(path, &err);

	ok(!s && err && err->code == CXLBED_ERROR_INPUT &&
	   g_str_has_prefix(err->message, want) && strstr(err->message, needle),
	   "%s: error at line %d", what, line);
	if (err && !(g_str_has_prefix(err->message, want) && strstr(err->message, needle)))
		diag("  message: %s", err->message);
	scenario_free(s);
}
#endif

#endif
