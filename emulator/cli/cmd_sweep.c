/* SPDX-License-Identifier: MIT */
/*
 * cxlbed sweep SWEEPFILE [--jobs N | --slurm [--submit]] [--out DIR]
 * cxlbed sweep --collect DIR        cxlbed sweep --point N DIR
 */
#include "cli/commands.h"
#include "common/error.h"
#include "common/paths.h"
#include "sweep/sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *default_out(const struct sweep *s)
{
	g_autoptr(GDateTime) now = g_date_time_new_now_utc();
	g_autofree char *stamp = g_date_time_format(now, "%Y%m%d-%H%M%S");
	g_autofree char *leaf = g_strdup_printf("sweep-%s-%s", s->name, stamp);

	return g_build_filename(cxlbed_path(CXLBED_RESULTS), leaf, NULL);
}

static void print_points(const struct sweep *s)
{
	for (guint i = 0; i < s->points->len; i++) {
		const struct sweep_point *p = g_ptr_array_index(s->points, i);
		g_autofree char *label = sweep_point_label(s, p);

		printf("%s  %s  %s\n", p->id, label, p->input);
	}
}

static struct sweep *load_plan(const char *dir)
{
	g_autoptr(GError) err = NULL;
	struct sweep *s = sweep_load_plan(dir, &err);

	if (!s)
		fprintf(stderr, "cxlbed sweep: %s\n", err->message);
	return s;
}

int cmd_sweep(int argc, char **argv)
{
	g_autofree char *out = NULL, *collect = NULL;
	g_auto(GStrv) sbatch_args = NULL;
	gint jobs = 1, point = -1;
	gboolean slurm = FALSE, submit = FALSE, dry_run = FALSE;
	GOptionEntry entries[] = {
		{ "out", 'o', 0, G_OPTION_ARG_FILENAME, &out,
		  "the sweep's folder (default results/sweep-NAME-STAMP); with --slurm "
		  "on storage every node sees", "DIR" },
		{ "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs,
		  "run N points at once on this machine (default 1)", "N" },
		{ "slurm", 0, 0, G_OPTION_ARG_NONE, &slurm,
		  "write DIR/sweep.sbatch, a Slurm job array of one task per point, "
		  "instead of running here", NULL },
		{ "submit", 0, 0, G_OPTION_ARG_NONE, &submit,
		  "with --slurm: also submit it (sbatch) and print the job id", NULL },
		{ "sbatch", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sbatch_args,
		  "with --slurm: one more #SBATCH line, e.g. --sbatch=--partition=cxl "
		  "(repeatable)", "ARG" },
		{ "dry-run", 'n', 0, G_OPTION_ARG_NONE, &dry_run,
		  "expand and check every point, write their files, run nothing", NULL },
		{ "collect", 'c', 0, G_OPTION_ARG_FILENAME, &collect,
		  "merge the points of the sweep in DIR into sweep.csv, "
		  "sweep-results.json, sweep.md, sweep.svg and report.html", "DIR" },
		{ "point", 0, 0, G_OPTION_ARG_INT, &point,
		  "run point N of the sweep in DIR (what a Slurm array task runs)", "N" },
		{ NULL }
	};
	g_autoptr(GError) err = NULL;
	g_autoptr(sweep) s = NULL;
	g_autofree char *self = NULL, *script = NULL;
	int rc, collected;

	if (!verb_options(&argc, &argv, "SWEEPFILE | --collect DIR | --point N DIR",
			  "Run a scenario (or topology) at every point of a parameter matrix: each\n"
			  "[vary NAME] of SWEEPFILE sets one key of any topology or scenario section\n"
			  "to each of its values (docs/sweeps.md). Every point is expanded and checked\n"
			  "before anything runs, then run here (--jobs N at a time) and collected, or\n"
			  "written as a Slurm job array (--slurm) to run on a cluster and collected\n"
			  "afterwards with --collect DIR.\n"
			  "Exit status: 0 every point passed, 1 a point failed or has no results,\n"
			  "2 bad input.", entries))
		return 2;
	if (collect) {
		if (argc != 1)
			return verb_usage("sweep", "--collect DIR takes no SWEEPFILE");
		s = load_plan(collect);
		return s ? sweep_collect(s, stdout) : 2;
	}
	if (point >= 0) {
		if (argc != 2)
			return verb_usage("sweep", "--point N needs the sweep's folder");
		s = load_plan(argv[1]);
		return s ? sweep_run_point(s, (guint)point) : 2;
	}
	if (argc != 2)
		return verb_usage("sweep", "give one SWEEPFILE, e.g. cxlbed sweep "
			"workloads/sweeps/latency-bandwidth.sweep (or --collect DIR)");
	if (jobs < 1 || (submit && !slurm) || (sbatch_args && !slurm))
		return verb_usage("sweep", "%s", jobs < 1 ? "--jobs wants 1 or more" :
			"--submit and --sbatch go with --slurm");
	s = sweep_load(argv[1], &err);
	if (!s) {
		fprintf(stderr, "%s\n", err->message);
		return 2;
	}
	if (!out)
		out = default_out(s);
	if (slurm) {
		g_autofree char *abs = g_canonicalize_filename(out, NULL);

		if (!sweep_slurm_check(abs, sbatch_args, &err))
			return verb_usage("sweep", "%s", err->message);
	}
	sweep_expand(s, out);
	if (!sweep_write_points(s, &err)) {
		fprintf(stderr, "%s\n", err->message);
		return err->domain == CXLBED_ERROR ? err->code : 1;
	}
	printf("sweep %s: %u points in %s\n", s->name, s->points->len, s->out);
	print_points(s);
	if (dry_run)
		return 0;
	if (slurm) {
		self = g_file_read_link("/proc/self/exe", NULL);
		if (!sweep_write_sbatch(s, self ? self : "cxlbed", sbatch_args, &script, &err)) {
			fprintf(stderr, "cxlbed sweep: %s\n", err->message);
			return 1;
		}
		printf("Slurm job array: %s (sbatch %s; then cxlbed sweep --collect %s)\n",
		       script, script, s->out);
		if (submit) {
			g_autofree char *job = sweep_submit(script, &err);

			if (!job) {
				fprintf(stderr, "cxlbed sweep: %s\n", err->message);
				return 1;
			}
			printf("submitted job %s\n", job);
		}
		return 0;
	}
	rc = sweep_run_local(s, (guint)jobs);
	if (rc >= 128)
		return rc;
	collected = sweep_collect(s, stdout);
	return MAX(rc, collected);
}
