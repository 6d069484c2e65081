/* SPDX-License-Identifier: MIT */
/*
 * Fault injection in a run (docs/faults.md): the fault injectors sit on
 * the fabric manager (it owns the hosts' FM channels and the ownership
 * map; emulator/fm/fm_direct.h) and act in its worker thread when the
 * run's schedule (emulator/schedule) says a fault is due; each fault's
 * record (injection, detection and recovery times, bytes at risk and
 * lost, what the workload saw) for summary.json `faults[]`, report.md and
 * the timeline plot; and the run's invariants as checks.
 */
#ifndef CXLBED_FAULTS_H
#define CXLBED_FAULTS_H

#include "faults/fault_schedule.h"
#include "results/result.h"
#include "schedule/schedule.h"
#include "topology/topology.h"

#include <json-glib/json-glib.h>

struct fm;
struct faults;

/* NULL when @s is NULL (no faults in the scenario). Each fault joins
 * @sched, its times drawn from its own stream of the seed; @clock is the
 * run's. */
struct faults *faults_new(const struct fault_schedule *s, const struct cb_topology *t,
			  const char *rundir, bool timing, const struct run_clock *clock,
			  struct schedule *sched);
void faults_free(struct faults *f);

/* The FM is up: faults may fire through it from now on. */
void faults_start(struct faults *f, struct fm *fm);
/* The FM worker's tick: link faults in progress (degrade ends, flaps). */
void faults_tick(struct faults *f);
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
