/* SPDX-License-Identifier: MIT */
/*
 * A run's schedule: one list of actions (the scenario's events, then its
 * faults), each with its trigger (trigger.h), fired in that order when
 * due. The run session (emulator/run/session.c) feeds it the run's
 * moments: the start, each workload phase, each phase a guest announces,
 * and a tick; an action fires through the function its owner gave.
 */
#ifndef CXLBED_SCHEDULE_H
#define CXLBED_SCHEDULE_H

#include "schedule/run_clock.h"
#include "topology/topology.h"
#include "schedule/trigger.h"

struct schedule;

/* Fire @action now (the thread that feeds the schedule). */
typedef void (*sched_fire_fn)(void *owner, void *action);

struct sched_action {
	const char *id;
	const struct trigger *when;
	const char *host;	/* guest: only this host's announcement (NULL: any) */
	const char *pool;	/* written: only this pool's bytes (NULL: every lending pool) */
	sched_fire_fn fire;
	void *owner, *action;
};

struct schedule *schedule_new(const struct run_clock *clock, const struct cb_topology *t);
void schedule_free(struct schedule *s);
/*
 * Add @a (copied; its strings must outlive @s). The times are drawn from
 * @rng first, at = then delay =, whatever happens later, so that a
 * replay with the same seed draws the same: @rng is the action's own
 * stream (sched_rng_for), left where the draws end. Returns its index.
 */
guint schedule_add(struct schedule *s, const struct sched_action *a, uint64_t *rng);
/* The times drawn for the @i-th action added: at = (s) and delay = (s). */
double schedule_at_s(const struct schedule *s, guint i);
double schedule_delay_s(const struct schedule *s, guint i);
/* Has the @i-th action fired? */
bool schedule_fired(const struct schedule *s, guint i);
guint schedule_len(const struct schedule *s);

/* The moments of a run. */
void schedule_start(struct schedule *s);
void schedule_phase(struct schedule *s, const char *phase);
void schedule_guest_phase(struct schedule *s, const char *host, const char *phase);
/* Fire what is due by time (wall, modeled) or bytes written. */
void schedule_tick(struct schedule *s);

#endif
