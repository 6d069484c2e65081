/* SPDX-License-Identifier: MIT */
/*
 * `cxlbed sweep --collect`: every point's summary.json read back, then
 * written as the sweep's results (results/sweep_report.c).
 */
#include "sweep/sweep.h"
#include "results/result_read.h"
#include "results/sweep_report.h"

int sweep_collect(const struct sweep *s, FILE *out)
{
	struct sweep_matrix m = { s->name, s->base, s->axes, s->points };
	g_autofree struct run_result **runs = g_new0(struct run_result *, s->points->len + 1);
	int rc;

	for (guint i = 0; i < s->points->len; i++) {
		const struct sweep_point *p = g_ptr_array_index(s->points, i);
		g_autofree char *sum = g_build_filename(p->run_dir, "summary.json", NULL);
		g_autoptr(GError) unreadable = NULL;

		/* a summary that is not a result counts as none, and says why */
		if (g_file_test(sum, G_FILE_TEST_EXISTS) &&
		    !(runs[i] = result_load(sum, &unreadable)))
			fprintf(stderr, "cxlbed sweep: point %s: %s\n", p->id,
				unreadable->message);
	}
	rc = sweep_report_write(&m, runs, s->out, out);
	for (guint i = 0; i < s->points->len; i++)
		result_free(runs[i]);
	return rc;
}
