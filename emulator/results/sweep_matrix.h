/* SPDX-License-Identifier: MIT */
/*
 * A sweep's matrix as its results read it (docs/sweeps.md): the axes, each
 * a key of the topology or scenario and its values, and the points, one
 * `cxlbed run` each (emulator/sweep makes them; sweep_report.c writes
 * their results).
 */
#ifndef CXLBED_SWEEP_MATRIX_H
#define CXLBED_SWEEP_MATRIX_H

#include <glib.h>

struct sweep_axis {
	char *name;
	char *kind, *id, *key;	/* id NULL: a section without a name ([scenario]) */
	GPtrArray *values;	/* char * */
	int line;		/* the [vary] section's line */
	int key_line, values_line;	/* its key and values lines */
};

struct sweep_point {
	char *id;		/* "p0", "p1", ...: also the Slurm array index */
	char **values;		/* one per axis */
	char *dir;		/* OUT/points/ID: the point's inputs and run.log */
	char *run_dir;		/* DIR/run: the point's `cxlbed run --out` (a new folder) */
	char *input;		/* what `cxlbed run` is given: DIR/point.scn or .topo */
};

/* What a sweep's report needs of it. */
struct sweep_matrix {
	const char *name;
	const char *base;	/* the scenario or topology swept */
	const GPtrArray *axes;	/* struct sweep_axis * */
	const GPtrArray *points;	/* struct sweep_point *, last axis fastest */
};

#endif
