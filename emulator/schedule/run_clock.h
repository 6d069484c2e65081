/* SPDX-License-Identifier: MIT */
/*
 * The run's two clocks as the host reads them: host wall time since the
 * run session started its workloads' clock, and modeled time from the
 * timing segment, where every vCPU of every host publishes its modeled
 * time in a slot (0: not running). The slowest running vCPU is taken, so
 * that a time recorded from it is never later than what a guest had
 * reached (it errs long by at most the model's skew bound between vCPUs;
 * docs/timing-model.md).
 */
#ifndef CXLBED_SCHEDULE_RUN_CLOCK_H
#define CXLBED_SCHEDULE_RUN_CLOCK_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

struct tm_shared;

struct run_clock {
	gint64 t0;		/* g_get_monotonic_time() at the start; 0: not yet */
	/* The timing segment, NULL while there is none (no timing model, or
	 * no plugin has created it yet). */
	struct tm_shared *(*segment)(void *ctx);
	void *ctx;
};

void run_clock_start(struct run_clock *c);
/* Host wall seconds since the start (0 before it). */
double run_clock_wall_s(const struct run_clock *c);
/* Modeled ns now: the slowest running vCPU's; -1 without a model or
 * before any vCPU runs. */
double run_clock_modeled_ns(const struct run_clock *c);
/* Bytes written to lending pool @pool's media so far (0 without a model). */
uint64_t run_clock_pool_written(const struct run_clock *c, const char *pool);

#endif
