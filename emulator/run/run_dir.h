/* SPDX-License-Identifier: MIT */
/*
 * A run's name and folder (docs/run-state.md). A run id is unique among
 * concurrent cxlbed processes: UTC second, cxlbed's pid (two live
 * processes never share one), then the topology name. results/RUN_ID is
 * created exclusively; an --out folder must be new or empty, and the run
 * state file created with O_EXCL inside it (run_state.c) settles a race
 * between two runs given the same one.
 */
#ifndef CXLBED_RUN_DIR_H
#define CXLBED_RUN_DIR_H

#include <glib.h>
#include <stdbool.h>

/* "20260509-141503-4242": UTC second and this process's pid; a second
 * stamp in the same second of the same process gets ".2", ".3", ... */
char *run_stamp_new(void);
/* "20260509-141503-4242-NAME". */
char *run_id_new(const char *name);

/*
 * The rules for a folder given with --out, checked before anything starts
 * or is created (a false return is exit 2, message in @error): no ','
 * (QEMU option values cannot carry one), not an existing non-folder, not
 * a non-empty folder (results are never written over), creatable or
 * writable. @flag names the option in messages ("--out").
 */
bool run_out_acceptable(const char *dir, const char *flag, GError **error);

/*
 * A run folder is its user's alone: it holds the sockets that drive QEMU
 * (QMP, the guest agent) and the fabric manager, and they are made in it
 * owner-only as well (process.c, fm_control.c).
 */
#define RUN_DIR_MODE 0700

/*
 * Create the folder, mode RUN_DIR_MODE: @exclusive, it must not exist
 * (results/RUN_ID); otherwise it may exist if empty, and gets that mode.
 * *created tells whether this call made it (so a failed start can take
 * it away again).
 */
bool run_dir_make(const char *dir, bool exclusive, bool *created, GError **error);

#endif
