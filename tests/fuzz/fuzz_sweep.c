/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: any bytes as a sweep file, read as if it sat in
 * tests/data/ so that `scenario = sweep-small.scn`, `faults-ras.scn` or
 * `topology = ../../topologies/NAME.topo` find real bases. Bad input must
 * come back as a printable input error naming FILE:LINE (fuzz_oracle.h).
 * A sweep that loads has up to three of its points (first, middle, last)
 * built as `cxlbed sweep --dry-run` builds them: keys rewritten and read
 * back (a value that does not read back is cxlbed's bug, exit 1, so a
 * finding here), written to a scratch folder, and checked as `cxlbed run`
 * checks its input.
 */
#include "common/error.h"
#include "sweep/sweep.h"
#include "fuzz_oracle.h"

#include <glib/gstdio.h>

#define FUZZ_FILE SRCDIR "/tests/data/fuzz.sweep"

static bool write_text(const char *path, const char *text)
{
	return !text || g_file_set_contents(path, text, -1, NULL);
}

/* Point @p's files written and checked; then removed, whatever happened. */
static void check_point(const struct sweep *s, const struct sweep_point *p,
			const char *topo_base, const char *scn_base)
{
	g_autoptr(GError) e = NULL;
	g_autofree char *topo = NULL, *scn = NULL;
	g_autofree char *tpath = g_build_filename(p->dir, "point.topo", NULL);
	g_autofree char *points = g_path_get_dirname(p->dir);

	if (!sweep_point_texts(s, p, topo_base, scn_base, &topo, &scn, &e)) {
		fuzz_check_input_error(e, FUZZ_FILE);
		return;
	}
	if (g_mkdir_with_parents(p->dir, 0700) < 0 || !write_text(tpath, topo) ||
	    !write_text(scn ? p->input : NULL, scn))
		abort();	/* the scratch folder is ours */
	if (!sweep_check_point(s, p, &e))
		fuzz_check_input_error(e, FUZZ_FILE);
	g_remove(tpath);
	if (scn)
		g_remove(p->input);
	g_rmdir(p->dir);
	g_rmdir(points);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	g_autoptr(GError) e = NULL;
	g_autoptr(sweep) s = sweep_parse(FUZZ_FILE, (const char *)data, size, &e);
	g_autofree char *topo_base = NULL, *scn_base = NULL, *scratch = NULL;
	guint n;

	if (!s) {
		fuzz_check_input_error(e, FUZZ_FILE);
		return 0;
	}
	/* a folder per input, gone after it: libFuzzer's exit skips atexit() */
	scratch = g_dir_make_tmp("cxlbed-fuzz-sweep-XXXXXX", NULL);
	if (!scratch)
		abort();
	sweep_expand(s, scratch);
	n = s->points->len;
	if (!n || n > SWEEP_MAX_POINTS)
		abort();	/* an axis without values or past the limit got through */
	if (g_file_get_contents(s->topology, &topo_base, NULL, NULL) &&
	    (!s->base_is_scenario || g_file_get_contents(s->base, &scn_base, NULL, NULL))) {
		check_point(s, g_ptr_array_index(s->points, 0), topo_base, scn_base);
		if (n > 2)
			check_point(s, g_ptr_array_index(s->points, n / 2), topo_base, scn_base);
		if (n > 1)
			check_point(s, g_ptr_array_index(s->points, n - 1), topo_base, scn_base);
	}
	g_rmdir(scratch);
	return 0;
}
