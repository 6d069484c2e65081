/* SPDX-License-Identifier: MIT */
/*
 * A run session: the part of a run that acts on the fabric while the
 * workloads run (docs/architecture.md, "A run's way"). It owns the run's
 * clock and its schedule (the scenario's events, then its faults:
 * emulator/schedule), and fires each action when due, from the fabric
 * manager's worker thread: an event through the fabric manager (a plain
 * actuator, emulator/fm), a fault through the fault injectors that sit on
 * top of it (emulator/faults). At the end, what they did into the results.
 */
#ifndef CXLBED_RUN_SESSION_H
#define CXLBED_RUN_SESSION_H

#include "results/result.h"
#include "run/scenario.h"
#include "topology/topology.h"

struct run_session;

/* NULL when @t lends nothing: no fabric manager, no events, no faults. */
struct run_session *run_session_new(const struct scenario *s, const struct cb_topology *t,
				    const char *rundir);
/* Connect the fabric manager to booted host @h. */
bool run_session_connect(struct run_session *rs, const struct cb_host *h,
			 gint64 deadline_us, GError **error);
/* The run's clock starts, the fabric manager with it; `when = start`. */
bool run_session_start(struct run_session *rs, GError **error);
/* Workload @name begins (its phase), and starts or ends on @host. */
void run_session_phase(struct run_session *rs, const char *name);
void run_session_workload(struct run_session *rs, const char *host, const char *name,
			  bool start);
/* Stop; the faults' records, the events' and the FM's checks, the pool
 * section and its plot into @res and the run folder. */
void run_session_stop(struct run_session *rs, struct run_result *res);
void run_session_free(struct run_session *rs);

#endif
