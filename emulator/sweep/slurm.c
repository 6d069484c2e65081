/* SPDX-License-Identifier: MIT */
/*
 * A sweep as a Slurm job array: task N runs point pN (`cxlbed sweep
 * --point N OUT`), each writing its own folder under OUT, which must be
 * on storage every node sees, as must the cxlbed tree that runs it.
 */
#include "sweep.h"
#include "error.h"
#include "scenario.h"

#include <glib/gstdio.h>
#include <string.h>

/* CPUs a point needs at once: every host's vCPUs (one QEMU each). */
static guint point_cpus(const struct sweep *s)
{
	g_autoptr(cb_topology) t = NULL;
	const struct sweep_point *p = s->points->len ? g_ptr_array_index(s->points, 0) : NULL;
	g_autofree char *topo = p ? g_build_filename(p->dir, "point.topo", NULL) : NULL;
	const struct cb_host *h;
	guint cpus = 0;

	t = topo ? topology_load(topo, NULL) : NULL;
	cb_foreach(t ? t->hosts : NULL, const struct cb_host, h)
		cpus += h->cpus;
	return MAX(cpus, 1);
}

/* The run's own timeout, in whole minutes, as the task's time limit. */
static guint point_minutes(const struct sweep *s)
{
	const struct sweep_point *p = s->points->len ? g_ptr_array_index(s->points, 0) : NULL;
	g_autoptr(scenario) scn = p ? scenario_load(p->input, NULL) : NULL;
	guint secs = scn ? (guint)scn->timeout_s : 1200;

	return (secs + 59) / 60 + 5;	/* boot and teardown besides */
}

char *sweep_sbatch_script(const struct sweep *s, const char *cxlbed, char *const *extra)
{
	GString *sh = g_string_new("#!/bin/sh\n");
	g_autofree char *qout = g_shell_quote(s->out);
	g_autofree char *qbin = g_shell_quote(cxlbed);

	g_string_append_printf(sh, "#SBATCH --job-name=cxlbed-%s\n", s->name);
	g_string_append_printf(sh, "#SBATCH --array=0-%u\n", s->points->len - 1);
	g_string_append_printf(sh, "#SBATCH --output=%s/points/slurm-%%a.log\n", s->out);
	g_string_append_printf(sh, "#SBATCH --cpus-per-task=%u\n", point_cpus(s));
	g_string_append_printf(sh, "#SBATCH --time=%u\n", point_minutes(s));
	for (; extra && *extra; extra++)
		g_string_append_printf(sh, "#SBATCH %s\n", *extra);
	g_string_append_printf(sh,
		"# cxlbed sweep %s: %u points, one per array task; each runs\n"
		"# `cxlbed run` on its point and writes %s/points/pN/run.\n"
		"# Collect them with: %s sweep --collect %s\n"
		"exec %s sweep --point \"$SLURM_ARRAY_TASK_ID\" %s\n",
		s->name, s->points->len, s->out, cxlbed, s->out, qbin, qout);
	return g_string_free(sh, FALSE);
}

bool sweep_write_sbatch(const struct sweep *s, const char *cxlbed, char *const *extra,
			char **path, GError **error)
{
	g_autofree char *script = sweep_sbatch_script(s, cxlbed, extra);

	*path = g_build_filename(s->out, "sweep.sbatch", NULL);
	if (!g_file_set_contents(*path, script, -1, error) ||
	    g_chmod(*path, 0755) < 0) {
		g_clear_pointer(path, g_free);
		return false;
	}
	return true;
}

char *sweep_submit(const char *script, GError **error)
{
	const char *argv[] = { "sbatch", "--parsable", script, NULL };
	g_autofree char *out = NULL, *err = NULL;
	int status;

	if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out,
			  &err, &status, error))
		return NULL;
	if (!g_spawn_check_wait_status(status, NULL)) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN, "sbatch %s failed: %s", script,
			    err ? g_strstrip(err) : "");
		return NULL;
	}
	/* "JOBID" or "JOBID;CLUSTER" */
	g_strstrip(out);
	if (strchr(out, ';'))
		*strchr(out, ';') = '\0';
	return g_steal_pointer(&out);
}
