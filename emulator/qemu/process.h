/* SPDX-License-Identifier: MIT */
/*
 * QEMU process lifetime. The promise: no QEMU outlives a run.
 *  - children get PR_SET_PDEATHSIG(SIGKILL): if cxlbed dies, even by
 *    SIGKILL, the kernel kills them;
 *  - SIGINT/SIGTERM/SIGHUP kill every registered child at once, then the
 *    run tears down and reports as usual;
 *  - qemu_proc_stop() asks nicely over QMP, then SIGTERM, then SIGKILL,
 *    and always reaps.
 */
#ifndef CXLBED_PROCESS_H
#define CXLBED_PROCESS_H

#include <glib.h>
#include <stdbool.h>
#include <sys/types.h>

struct qmp;

struct qemu_proc {
	char *name;		/* host id, for messages */
	pid_t pid;
	bool reaped;
	int wait_status;
};

/*
 * Start argv (NULL-terminated). log_path: where stdout+stderr go (NULL:
 * inherit, for interactive boot, which also keeps the terminal's process
 * group so the console gets keyboard input).
 */
struct qemu_proc *qemu_proc_spawn(const char *name, GPtrArray *argv,
				  const char *log_path, GError **error);

/* A descriptor the child gets as number @as (the command line names it). */
struct qemu_proc_fd {
	int fd;
	int as;
};

/* The same, handing the child @n descriptors. */
struct qemu_proc *qemu_proc_spawn_fds(const char *name, GPtrArray *argv,
				      const char *log_path,
				      const struct qemu_proc_fd *fds, int n,
				      GError **error);

/* Non-blocking: has it exited? Fills wait_status. */
bool qemu_proc_exited(struct qemu_proc *p);

/* Describe how it ended ("exited with status 1", "killed by signal 9"). */
char *qemu_proc_describe_exit(const struct qemu_proc *p);

/* Stop it (QMP quit if q, else/then SIGTERM, then SIGKILL) and reap. */
void qemu_proc_stop(struct qemu_proc *p, struct qmp *q, int grace_ms);
void qemu_proc_free(struct qemu_proc *p);

/* Wait until it exits by itself (interactive boot). */
void qemu_proc_wait(struct qemu_proc *p);

/* Install the SIGINT/SIGTERM/SIGHUP guard. Idempotent. */
void qemu_proc_install_signal_guard(void);
/* The signal that interrupted us, or 0. */
int qemu_proc_interrupted(void);

#endif
