/* SPDX-License-Identifier: MIT */
/*
 * The fabric manager (docs/pooling.md): part of every run whose topology
 * has a lending pool, and a plain actuator. It owns the pool's logical
 * devices (LDs), binds one to a host while the host runs (QMP object-add
 * + device_add on a free hotplug root port, then the guest agent's
 * attach-ld), unbinds it only after the host has released it (the
 * agent's release-ld handshake), and records pool utilisation over time.
 *
 * It runs beside the runner in a worker thread with its own QMP monitor
 * and agent port on each host (argv.h), driven by the guests' pool-demand,
 * by RUN/fm.sock, a JSON-lines control socket whose commands are named
 * after the CXL FM API (fm_control.c), and by its owner, the run session
 * (emulator/run/session.c), which fires the scenario's events and faults
 * from the worker through the hooks below.
 */
#ifndef CXLBED_FM_H
#define CXLBED_FM_H

#include "results/result.h"
#include "schedule/run_clock.h"
#include "topology/topology.h"

#include <json-glib/json-glib.h>

struct fm;
struct tm_shared;

/* What the owner hears, in the FM's worker thread (any may be NULL). */
struct fm_hooks {
	void *ctx;
	/* fm_start, before the worker starts: `when = start` */
	void (*start)(void *ctx);
	/* a workload phase began (fm_phase) */
	void (*phase)(void *ctx, const char *phase);
	/* every tick of the worker, after the request it took */
	void (*tick)(void *ctx);
	/* an agent event the FM does not take itself (fault-report,
	 * guest-phase), from @host */
	void (*guest_event)(void *ctx, const char *host, JsonObject *ev);
	/* @ld is bound to @h through @dev and the guest onlined it: @res is
	 * the agent's attach-ld answer */
	void (*bound)(void *ctx, const struct cb_host *h, const struct cb_ld *ld,
		      const struct cb_device *dev, JsonObject *res);
};

struct fm_config {
	bool grant_demand;	/* act on the guests' pool-demand */
	double sample_s;	/* utilisation sampling period */
	const struct run_clock *clock;	/* the run's (its owner starts it) */
	struct fm_hooks hooks;
};

/* NULL when the topology lends nothing. */
struct fm *fm_new(const struct cb_topology *t, const char *rundir,
		  const struct fm_config *cfg);
/* Connect to a booted host's FM monitor and agent port. */
bool fm_connect_host(struct fm *fm, const struct cb_host *h, gint64 deadline_us,
		     GError **error);
/* The control socket, the first sample, the start hook, the worker. */
bool fm_start(struct fm *fm, GError **error);
/* A workload phase begins (the runner starts workload @name). */
void fm_phase(struct fm *fm, const char *name);

/* One bind (@bind) or unbind now, in the calling thread (a hook, or
 * before the worker starts); @source names it in pool.events[]. */
struct fm_action {
	const char *source;	/* "event:NAME" */
	bool bind;
	const char *ld, *pool, *host, *mode;
	bool expect_refused;
};
void fm_act(struct fm *fm, const struct fm_action *a);
/* A check of the run, under @name (made unique), into the results. */
void fm_check(struct fm *fm, const char *name, bool pass, const char *fmt, ...)
	G_GNUC_PRINTF(4, 5);
/* Has the worker been asked to stop (or QEMU interrupted)? */
bool fm_stopping(struct fm *fm);
/* The run's timing segment (NULL without the timing model). */
struct tm_shared *fm_timing_segment(struct fm *fm);

/* Stop the worker and the control socket; finish surprise removals. */
void fm_stop(struct fm *fm);
/* The last sample; the FM's checks into @res; its pool section (pool.*
 * of summary.json, owned by the caller; NULL if it never started). */
JsonObject *fm_finish(struct fm *fm, struct run_result *res);
void fm_free(struct fm *fm);

/* The control socket of a run folder. */
char *fm_socket_path(const char *rundir);

#endif
