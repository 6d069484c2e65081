/* SPDX-License-Identifier: MIT */
/*
 * A sweep as a Slurm job array: task N runs point pN (`cxlbed sweep
 * --point N OUT`), each writing its own folder under OUT, which must be
 * on storage every node sees, as must the cxlbed tree that runs it.
 */
#include "sweep/sweep.h"
#include "common/error.h"
#include "run/scenario.h"

#include <glib/gstdio.h>
#include <string.h>

/*
 * Memory QEMU takes beyond its guest's: its code and heap, the part of
 * TCG's translation buffer the guest's code fills, the plugin's own.
 * Measured: a 1 GiB host with a 256 MiB expander whose guest wrote all
 * it could peaked at 1385 MiB resident, 105 MiB above its guest memory
 * (docs/sweeps.md); the rest is room for bigger guests' code.
 */
#define QEMU_OVERHEAD (256 * CB_MIB)
/* The timing model keeps 16 bytes per modeled cache line (docs/topology.md). */
#define MODEL_BYTES_PER_LINE 16

/* What one point asks of a node; an array's tasks share the most any asks. */
struct point_needs {
	guint cpus;	/* every host's vCPUs: one QEMU each, a thread per vCPU */
	guint64 mem;	/* bytes: see point_memory() */
	guint minutes;	/* the scenario's timeout and 5 for boot and teardown */
};

/*
 * Memory a point's run may fill: every host's RAM and private devices,
 * each pool once (its hosts map one file), each QEMU's overhead and,
 * with the timing model, its cache tables (l1 + l2 per vCPU, llc).
 */
static guint64 point_memory(const struct cb_topology *t, bool timing)
{
	const struct cb_host *h;
	const struct cb_device *d;
	const struct cb_pool *p;
	guint64 mem = 0;

	cb_foreach(t->hosts, const struct cb_host, h) {
		mem += h->memory + QEMU_OVERHEAD;
		if (timing)
			mem += ((guint64)h->cpus * (h->cache.l1_bytes + h->cache.l2_bytes) +
				h->cache.llc_bytes) / MAX(h->cache.line_bytes, 1) *
			       MODEL_BYTES_PER_LINE;
	}
	cb_foreach(t->devices, const struct cb_device, d)
		mem += (d->pool ? 0 : d->size) + (d->persistent ? CB_MIB : 0);	/* its LSA */
	cb_foreach(t->pools, const struct cb_pool, p)
		mem += p->size;
	return mem;
}

static void point_needs(const struct sweep_point *pt, struct point_needs *n)
{
	g_autoptr(scenario) scn = scenario_load(pt->input, NULL);
	g_autoptr(cb_topology) t = scn ? topology_load(scn->topology_path, NULL) : NULL;
	const struct cb_host *h;
	guint cpus = 0;

	/* Every point was checked as it was written: a load fails only if it moved. */
	if (!t)
		return;
	cb_foreach(t->hosts, const struct cb_host, h)
		cpus += h->cpus;
	n->cpus = MAX(n->cpus, cpus);
	n->mem = MAX(n->mem, point_memory(t, scn->timing));
	n->minutes = MAX(n->minutes, ((guint)scn->timeout_s + 59) / 60 + 5);
}

/* Does an --sbatch line set @opt (--mem, --time, ...) itself? Then it rules. */
static bool extra_sets(char *const *extra, const char *opt)
{
	for (; extra && *extra; extra++)
		if (g_str_has_prefix(*extra, opt) &&
		    ((*extra)[strlen(opt)] == '=' || (*extra)[strlen(opt)] == ' '))
			return true;
	return false;
}

bool sweep_slurm_check(const char *out, char *const *extra, GError **error)
{
	g_autofree char *shown = cxlbed_printable(out);

	for (const char *p = out; *p; p++)
		/* Slurm splits #SBATCH lines at blanks and expands %x in --output */
		if (g_ascii_iscntrl(*p) || g_ascii_isspace(*p) || strchr("%\\\"'", *p)) {
			g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT, "--out %s: with "
				    "--slurm the folder goes into #SBATCH --output=, which "
				    "cannot carry blanks, control characters, %%, \\ or quotes: "
				    "choose another folder", shown);
			return false;
		}
	for (; extra && *extra; extra++)
		for (const char *p = *extra; *p; p++)
			if (g_ascii_iscntrl(*p)) {
				g_autofree char *arg = cxlbed_printable(*extra);

				g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT, "--sbatch: "
					    "'%s' holds a control character; each --sbatch is "
					    "one #SBATCH line", arg);
				return false;
			}
	return true;
}

char *sweep_sbatch_script(const struct sweep *s, const char *cxlbed, char *const *extra)
{
	GString *sh = g_string_new("#!/bin/sh\n");
	g_autofree char *qout = g_shell_quote(s->out);
	g_autofree char *qbin = g_shell_quote(cxlbed);
	struct point_needs n = { .cpus = 1, .mem = 0, .minutes = 0 };

	for (guint i = 0; i < s->points->len; i++)
		point_needs(g_ptr_array_index(s->points, i), &n);
	if (!n.minutes)
		n.minutes = 1200 / 60 + 5;	/* a scenario's default timeout */
	g_string_append_printf(sh, "#SBATCH --job-name=cxlbed-%s\n", s->name);
	g_string_append_printf(sh, "#SBATCH --array=0-%u\n", s->points->len - 1);
	/* %A the job, %a the task: a later submission keeps the earlier logs */
	g_string_append_printf(sh, "#SBATCH --output=%s/points/slurm-%%A_%%a.log\n", s->out);
	if (!extra_sets(extra, "--cpus-per-task"))
		g_string_append_printf(sh, "#SBATCH --cpus-per-task=%u\n", n.cpus);
	/* Slurm takes one of --mem, --mem-per-cpu, --mem-per-gpu */
	if (n.mem && !extra_sets(extra, "--mem") && !extra_sets(extra, "--mem-per-cpu") &&
	    !extra_sets(extra, "--mem-per-gpu"))
		g_string_append_printf(sh, "#SBATCH --mem=%" G_GUINT64_FORMAT "M\n",
				       (guint64)((n.mem + CB_MIB - 1) / CB_MIB));
	if (!extra_sets(extra, "--time"))
		g_string_append_printf(sh, "#SBATCH --time=%u\n", n.minutes);
	for (; extra && *extra; extra++)
		g_string_append_printf(sh, "#SBATCH %s\n", *extra);
	g_string_append_printf(sh,
		"# cxlbed sweep %s: %u points, one per array task; each runs\n"
		"# `cxlbed run` on its point and writes %s/points/pN/run.\n"
		"# Collect them with: cxlbed sweep --collect %s\n"
		"exec %s sweep --point \"$SLURM_ARRAY_TASK_ID\" %s\n",
		s->name, s->points->len, s->out, s->out, qbin, qout);
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
