/* SPDX-License-Identifier: MIT */
/*
 * The fabric manager (docs/pooling.md): part of every run whose topology
 * has a lending pool. It owns the pool's logical devices (LDs), binds one
 * to a host while the host runs (QMP object-add + device_add on a free
 * hotplug root port, then the guest agent's attach-ld), unbinds it only
 * after the host has released it (the agent's release-ld handshake), and
 * records pool utilisation over time.
 *
 * It runs beside the runner in a worker thread with its own QMP monitor
 * and agent port on each host (argv.h), driven by the scenario's events,
 * by the guests' pool-demand and by RUN/fm.sock, a JSON-lines control
 * socket whose commands are named after the CXL FM API (fm_control.c).
 */
#ifndef CXLBED_FM_H
#define CXLBED_FM_H

#include "result.h"
#include "scenario.h"
#include "topology.h"

struct fm;

/* NULL when the topology lends nothing. */
struct fm *fm_new(const struct cb_topology *t, const struct scenario *s,
		  const char *rundir);
/* Connect to a booted host's FM monitor and agent port. */
bool fm_connect_host(struct fm *fm, const struct cb_host *h, gint64 deadline_us,
		     GError **error);
/*
 * Start the run clock, the control socket and the worker; run the
 * `when = start` events before returning (the workloads start next).
 */
bool fm_start(struct fm *fm, GError **error);
/* A workload phase begins (the runner starts workload @name). */
void fm_phase(struct fm *fm, const char *name);
/* Workload @name starts or ends on @host: when faults met it (any thread). */
void fm_workload_mark(struct fm *fm, const char *host, const char *name, bool start);
/* Stop everything; the pool section, checks and the utilisation SVG go
 * into @res and the run folder. */
void fm_stop(struct fm *fm, struct run_result *res);
void fm_free(struct fm *fm);

/* The control socket of a run folder. */
char *fm_socket_path(const char *rundir);

#endif
