/* SPDX-License-Identifier: MIT */
/*
 * Fault injection in a run (docs/faults.md): the scenario's schedule,
 * fired from the fabric manager's worker thread (the FM owns the hosts'
 * FM channels and the ownership map; emulator/fm/fm_faults.h), at a wall
 * or modeled time or on a trigger; each fault's record (injection,
 * detection and recovery times, bytes at risk and lost, what the workload
 * saw) for summary.json `faults[]`, report.md and the timeline plot; and
 * the run's invariants as checks.
 */
#ifndef CXLBED_FAULTS_H
#define CXLBED_FAULTS_H

#include "fault_schedule.h"
#include "result.h"
#include "topology.h"

#include <json-glib/json-glib.h>

struct fm;
struct faults;

/* NULL when @s is NULL (no faults in the scenario). */
struct faults *faults_new(const struct fault_schedule *s, const struct cb_topology *t,
			  const char *rundir, bool timing);
void faults_free(struct faults *f);

/* The FM worker's calls. */
void faults_start(struct faults *f, struct fm *fm);	/* fire `when = start` */
void faults_tick(struct faults *f);			/* fire what is due */
void faults_phase(struct faults *f, const char *phase);
/* A program on @host announced its phase @phase (agent guest-phase). */
void faults_guest_phase(struct faults *f, const char *host, const char *phase);
/* Workload @name starts or ends on @host (the runner; any thread). */
void faults_workload(struct faults *f, const char *host, const char *name, bool start,
		     double t_s);
/* When it ran, host wall s since the FM started (end < 0: still running). */
bool faults_workload_window(struct faults *f, const char *host, const char *name,
			    double *start, double *end);
/* A runtime's fault-report (agent event) from @host. */
void faults_guest_report(struct faults *f, const char *host, JsonObject *ev);

/*
 * After the workloads: restore links, join each fault with what the
 * runtimes saw (res->workloads, their modeled ROIs), checks, faults[]
 * and the timeline plot into @res and the run folder.
 */
void faults_finish(struct faults *f, struct run_result *res);

/* The seed in use (for the record and for a replay). */
uint64_t faults_seed(const struct faults *f);

#endif
