// SPDX-License-Identifier: MIT
#include "model_time.h"

#include <time.h>

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void tm_sync_publish(struct tm_sync *s, int slot, double now)
{
	if (s->halted)
		__atomic_store_n(&s->halted[slot], 0, __ATOMIC_RELAXED);
	if (s->beat)
		__atomic_store_n(&s->beat[slot], mono_ms(), __ATOMIC_RELAXED);
	__atomic_store_n(&s->slot[slot], (uint64_t)now + 1, __ATOMIC_RELEASE);
}

void tm_sync_stop(struct tm_sync *s, int slot)
{
	__atomic_store_n(&s->slot[slot], 0, __ATOMIC_RELEASE);
}

void tm_sync_halt(struct tm_sync *s, int slot, uint64_t deadline)
{
	if (deadline == UINT64_MAX || !s->halted) {
		tm_sync_stop(s, slot);
		return;
	}
	__atomic_store_n(&s->halted[slot], 1, __ATOMIC_RELAXED);
	__atomic_store_n(&s->slot[slot], deadline + 1, __ATOMIC_RELEASE);
}

uint64_t tm_sync_stale_before(const struct tm_sync *s)
{
	return s->beat && s->stale_ms ? mono_ms() - s->stale_ms : 0;
}

bool tm_sync_stale(const struct tm_sync *s, int slot, uint64_t stale_before)
{
	return stale_before &&
	       __atomic_load_n(&s->beat[slot], __ATOMIC_RELAXED) < stale_before;
}

/* Smallest published time over slots outside [skip_lo, skip_hi). */
static double sync_min(const struct tm_sync *s, int skip_lo, int skip_hi,
		       bool running_only)
{
	int n = __atomic_load_n(s->nslots, __ATOMIC_ACQUIRE);
	uint64_t min = 0, old = 0;

	if (s->beat && s->stale_ms)
		old = mono_ms() - s->stale_ms;
	for (int i = 0; i < n; i++) {
		uint64_t v;

		if (i >= skip_lo && i < skip_hi)
			continue;
		if (tm_sync_stale(s, i, old))
			continue;
		if (running_only && s->halted &&
		    __atomic_load_n(&s->halted[i], __ATOMIC_RELAXED))
			continue;
		v = __atomic_load_n(&s->slot[i], __ATOMIC_ACQUIRE);
		if (v && (!min || v < min))
			min = v;
	}
	return min ? (double)(min - 1) : -1;
}

double tm_sync_min(const struct tm_sync *s, int except)
{
	return sync_min(s, except, except + 1, false);
}

double tm_sync_min_running(const struct tm_sync *s, int except)
{
	return sync_min(s, except, except + 1, true);
}

double tm_sync_min_outside(const struct tm_sync *s, int first, int n)
{
	return sync_min(s, first, first + n, false);
}

bool tm_sync_ahead(struct tm_sync *s, int slot, double now)
{
	double min;

	tm_sync_publish(s, slot, now);
	min = tm_sync_min(s, slot);
	return min >= 0 && now > min + (double)s->skew_ns;
}

bool tm_sync_wait(struct tm_sync *s, int slot, double now,
		  unsigned int timeout_ms)
{
	uint64_t deadline = 0;
	struct timespec pause = { 0, 20000 };

	while (tm_sync_ahead(s, slot, now)) {
		if (!deadline)
			deadline = mono_ms() + timeout_ms;
		else if (mono_ms() > deadline)
			return false;
		nanosleep(&pause, NULL);
	}
	return true;
}
