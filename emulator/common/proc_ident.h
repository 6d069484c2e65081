/* SPDX-License-Identifier: MIT */
/*
 * Which process is this, beyond its pid? A pid is recycled; a pid plus the
 * moment the kernel started that process (clock ticks after boot, field 22
 * of /proc/PID/stat) plus the boot it happened in is not. Run state files
 * record owners this way so that a later cxlbed never mistakes a new
 * process that got an old pid for the run that owned it.
 */
#ifndef CXLBED_PROC_IDENT_H
#define CXLBED_PROC_IDENT_H

#include <glib.h>
#include <stdbool.h>

struct proc_ident {
	int pid;
	guint64 start;		/* clock ticks after boot */
	char boot[40];		/* /proc/sys/kernel/random/boot_id */
};

/* The identity of running process @pid; false if there is none or it is a
 * zombie (dead, only waiting to be reaped). */
bool proc_ident_of(int pid, struct proc_ident *out);
bool proc_ident_self(struct proc_ident *out);
/* Is the very process @id names still running (same boot, pid and start)? */
bool proc_ident_alive(const struct proc_ident *id);

#endif
