/* SPDX-License-Identifier: MIT */
/* Shared by the runner's files (runner.c, run_*.c); not its API (runner.h). */
#ifndef CXLBED_RUN_PRIV_H
#define CXLBED_RUN_PRIV_H

#include "run/runner.h"
#include "qemu/agent.h"
#include "qemu/process.h"
#include "qemu/qmp.h"
#include "results/result.h"

#include <stdio.h>

#define QMP_CONNECT_S 30
#define STOP_GRACE_MS 3000

struct host_run {
	const struct cb_host *h;
	struct res_host *res;
	struct qemu_proc *proc;
	struct qmp *qmp;
	struct agent *agent;
	FILE *log;		/* qmp-HOST.log: QMP and agent traffic */
	gint64 t_spawn;
	bool failed;		/* skip further steps on this host */
	char *timing_report;	/* plugin report, timing mode only */
};

struct run {
	const struct scenario *scn;
	const struct cb_topology *topo;
	const struct run_opts *opts;
	struct run_result *res;
	char *dir;
	char *shm;		/* timing: the run's shared segment */
	struct run_state *state;	/* DIR/state.json */
	bool dir_created;	/* by this run (undone if the start fails) */
	GPtrArray *hosts;	/* struct host_run * */
	gint64 deadline;	/* whole-run timeout */
	char *initrd;		/* base image + the scenario's layer, or NULL */
	struct run_session *session;	/* events, faults, the FM: when the topology lends */
};

/* run_host.c */
gint64 run_deadline(const struct run *run, int seconds);
char *run_host_file(const struct run *run, const char *what,
		    const struct cb_host *h, const char *ext);
void run_host_fail(struct run *run, struct host_run *hr, const char *check,
		   const GError *err);
char *run_exit_words(const struct qemu_proc *p, bool *by_cxlbed);

/* run_claim.c */
int run_claim(struct run *run);
void run_release(struct run *run, const char *outcome);
bool run_prepare_dir(struct run *run, GError **error);
bool run_prepare_layer(struct run *run, GError **error);

/* run_boot.c */
void run_boot_hosts(struct run *run);
void run_explain_exit(struct run *run, struct host_run *hr, GError **error);
void run_check_shared_pools(struct run *run);

/* run_workloads.c */
void run_workloads(struct run *run);

/* run_teardown.c */
void run_release_host(struct run *run, struct host_run *hr);
void run_teardown(struct run *run);

#endif
