/* SPDX-License-Identifier: MIT */
/*
 * When a scheduled action happens: the one trigger grammar of a scenario's
 * [event NAME] and [fault NAME] sections (docs/scenarios.md, "When"):
 *
 *   at = 2.5s | random:1s..4s            host wall time after the
 *                                        workloads start
 *   at = modeled:150ms | modeled:random:10ms..40ms
 *                                        modeled time after the first
 *                                        modeled instant the run sees
 *   when = start                         before the workloads
 *   when = phase:WORKLOAD                when that workload starts
 *   when = guest:PHASE                   when a guest program announces it
 *   when = written:64M                   when that many bytes were written
 *                                        to the pool(s) (timing model)
 *   delay = 40ms | modeled:40ms | random:2ms..9ms | modeled:random:...
 *                                        after a when = trigger
 *
 * Exactly one of at = and when =; delay = only with when =. Errors name
 * FILE:LINE of the key.
 */
#ifndef CXLBED_SCHEDULE_TRIGGER_H
#define CXLBED_SCHEDULE_TRIGGER_H

#include "common/cfgfile.h"

#include <stdbool.h>
#include <stdint.h>

enum trigger_kind {
	TRIG_AT,		/* at seconds of host wall time after the start */
	TRIG_MODELED,		/* at modeled time after the first seen */
	TRIG_START,		/* before the workloads */
	TRIG_PHASE,		/* when a workload starts */
	TRIG_WRITTEN,		/* when N bytes were written to pool(s) */
	TRIG_GUEST,		/* when a guest program announces a phase */
};

struct trigger {
	enum trigger_kind kind;
	double at_lo, at_hi;	/* seconds; at_hi > at_lo: drawn between */
	char *phase;		/* TRIG_PHASE: a workload; TRIG_GUEST: a program's phase */
	uint64_t written;	/* TRIG_WRITTEN: bytes */
	double delay_lo, delay_hi;	/* after a when = trigger; hi > lo: drawn */
	bool delay_modeled;	/* ... in modeled time (else host wall time) */
	int at_line, when_line;	/* where the keys were (0: not given) */
};

/*
 * at =, when = and delay = of @sec (a [@what NAME] section: "event",
 * "fault") into @tr. False with FILE:LINE in @error.
 */
bool trigger_parse(struct trigger *tr, const struct cfg_file *f,
		   const struct cfg_section *sec, const char *what, GError **error);
void trigger_clear(struct trigger *tr);
/* "wall", "modeled", "start", "phase", "written", "guest" (summary.json). */
const char *trigger_kind_name(enum trigger_kind k);
/* Does it need the timing model (modeled time, bytes written)? */
bool trigger_needs_timing(const struct trigger *tr);

/*
 * The seeded generator every random choice of a run comes from
 * (splitmix64): a stream of its own per action, the seed mixed with the
 * action's name, so that a replay draws the same.
 */
uint64_t sched_rng_next(uint64_t *state);
uint64_t sched_rng_for(uint64_t seed, const char *id);
/* Uniform in [lo, hi). */
double sched_rng_between(uint64_t *state, double lo, double hi);

#endif
