/* SPDX-License-Identifier: MIT */
/*
 * A sweep: one scenario (or topology) run at every point of a parameter
 * matrix (docs/sweeps.md). A sweep file names the base and one axis per
 * [vary NAME] section: a key of any topology or scenario section and its
 * values. Expanding it writes one folder per point with the base files
 * rewritten for that point, and sweep.json, the plan every later step
 * (local jobs, a Slurm array task, --collect) reads.
 *
 *   [sweep]
 *   name = latency-x-bandwidth
 *   scenario = ../workloads/scenarios/default.scn     # or topology = FILE
 *
 *   [vary latency]
 *   key = device * read-latency-ns     # KIND ID KEY; ID * = every such section
 *   values = 150 200                   # or "a b | c d" when values hold spaces
 */
#ifndef CXLBED_SWEEP_H
#define CXLBED_SWEEP_H

#include "results/sweep_matrix.h"

#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdbool.h>
#include <stdio.h>

#define SWEEP_SCHEMA "cxlbed.sweep/1"
/*
 * The most points a sweep may have (the product of its axes' sizes). Each
 * point is a whole `cxlbed run`, guests booted under TCG, and a folder of
 * its own; a bigger matrix is refused before anything is allocated or
 * written (docs/sweeps.md).
 */
#define SWEEP_MAX_POINTS 4096u

struct sweep {
	char *file;		/* the sweep file (NULL when read from sweep.json) */
	char *name;
	char *base;		/* the scenario or topology swept, as a path */
	bool base_is_scenario;
	char *topology;		/* the topology file (the scenario's, or base) */
	GPtrArray *axes;	/* struct sweep_axis * */
	GPtrArray *points;	/* struct sweep_point *, last axis fastest */
	char *out;		/* the sweep's folder (absolute) */
};

/* sweep_file.c: parse SWEEPFILE; FILE:LINE errors (CXLBED_ERROR_INPUT). */
struct sweep *sweep_load(const char *path, GError **error);
/* The same from @text (@len < 0: NUL-terminated), as if read from @path. */
struct sweep *sweep_parse(const char *path, const char *text, gssize len, GError **error);
/* The points of the matrix, in OUT (sets out, points). */
void sweep_expand(struct sweep *s, const char *out);
/*
 * Write each point's files (and sweep.json), then load every one as
 * `cxlbed run` would: any bad point fails the whole sweep with
 * "SWEEPFILE:LINE: point pN (a=1, b=2): what is wrong" before anything runs.
 */
bool sweep_write_points(const struct sweep *s, GError **error);
/* OUT/sweep.json back (what a Slurm task and --collect read). */
struct sweep *sweep_load_plan(const char *out, GError **error);
struct sweep *sweep_new(void);
void sweep_free(struct sweep *s);
void sweep_axis_free(gpointer axis);
typedef struct sweep sweep;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(sweep, sweep_free)

/* "latency=150, bandwidth=16". Caller frees. */
char *sweep_point_label(const struct sweep *s, const struct sweep_point *p);

/* sweep_point.c. Is a [KIND ...] section's key in the scenario file (else the topology)? */
bool sweep_kind_in_scenario(const char *kind);

/*
 * Set KEY = VALUE in every [KIND ID] section of @text (ID "*": every
 * [KIND ...]; NULL: [KIND] with no name), replacing the key's line or
 * adding it at the end of the section. *matched: sections changed.
 */
char *sweep_rewrite(const char *text, const char *kind, const char *id,
		    const char *key, const char *value, guint *matched);
/*
 * Point @p's files from the base texts (@scn_text NULL for a topology
 * sweep): every axis's key set and read back, the scenario's topology
 * pointed at point.topo beside it. *topo, *scn (NULL for a topology
 * sweep): caller frees.
 */
bool sweep_point_texts(const struct sweep *s, const struct sweep_point *p,
		       const char *topo_text, const char *scn_text, char **topo,
		       char **scn, GError **error);
/*
 * Point @p's files (written) checked as `cxlbed run` checks its input
 * (run_input.h), or "SWEEPFILE:LINE: point pN (a=1, b=2): what is wrong",
 * LINE the values line of the axis that set the line the error names.
 */
bool sweep_check_point(const struct sweep *s, const struct sweep_point *p, GError **error);

/* sweep_local.c: run the points here, @jobs at a time; 0 all passed. */
int sweep_run_local(const struct sweep *s, guint jobs);
/* One point, as a Slurm array task runs it: exec `cxlbed run`. */
int sweep_run_point(const struct sweep *s, guint index);

/*
 * slurm.c. Can @out (absolute) and @extra (--sbatch ARGs) go into the
 * script's #SBATCH lines as they are? An input error otherwise.
 */
bool sweep_slurm_check(const char *out, char *const *extra, GError **error);
/*
 * OUT/sweep.sbatch, one array task per point, asking for the most CPUs,
 * memory and time any point needs; extra #SBATCH lines (an --sbatch that
 * sets --cpus-per-task, --mem or --time replaces the script's own).
 */
char *sweep_sbatch_script(const struct sweep *s, const char *cxlbed,
			  char *const *extra);
bool sweep_write_sbatch(const struct sweep *s, const char *cxlbed, char *const *extra,
			char **path, GError **error);
/* sbatch --parsable: the job id, or NULL and *error. */
char *sweep_submit(const char *script, GError **error);

/* collect.c: sweep.csv, sweep-results.json, sweep.md, sweep.svg, report.html. */
int sweep_collect(const struct sweep *s, FILE *out);

#endif
