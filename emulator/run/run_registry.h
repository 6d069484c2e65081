/* SPDX-License-Identifier: MIT */
/*
 * The register of runs in flight and the sweep of dead ones
 * (docs/run-state.md). A run writes STATE/runs/RUN_ID.json
 * {"run_id", "dir", "owner", "shm"} before it creates anything, and removes
 * it when it ends. A run that was killed leaves its record behind; the
 * next cxlbed that runs something (or `cxlbed clean`) finds it, and if the
 * owning cxlbed is gone (pid, start time and boot compared: a recycled pid
 * is not the owner) it kills any QEMU of that run still alive, removes the
 * run's sockets, QEMU pid files and shared segment, and marks its
 * state.json "killed" at the stage it had reached. A run whose owner lives
 * is never touched.
 */
#ifndef CXLBED_RUN_REGISTRY_H
#define CXLBED_RUN_REGISTRY_H

#include <glib.h>
#include <stdbool.h>
#include <stdio.h>

bool run_registry_add(const char *run_id, const char *dir, const char *shm,
		      GError **error);
void run_registry_remove(const char *run_id);

struct sweep_counts {
	guint live;		/* registered runs whose cxlbed lives: untouched */
	guint dead;		/* runs swept (or, dry, to be swept) */
};

/*
 * Sweep every registered run whose cxlbed is gone. One line per dead run
 * to @out (and, with @list_live, per live one); @out NULL: quiet. @dry_run:
 * say what would be done, do nothing.
 */
void run_sweep(FILE *out, bool dry_run, bool list_live, struct sweep_counts *counts);

/*
 * The same for run folders under @root (results/RUN_ID, results/table-STAMP/
 * TOPO) whose state.json says "running" and whose owner is gone: runs the
 * register lost track of (another state folder, a removed register).
 */
void run_sweep_folders(const char *root, FILE *out, bool dry_run,
		       struct sweep_counts *counts);

#endif
