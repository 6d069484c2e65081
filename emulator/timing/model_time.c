// SPDX-License-Identifier: MIT
#include "model_time.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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
	tm_sync_store(s, slot, (uint64_t)now + 1);
}

void tm_sync_stop(struct tm_sync *s, int slot)
{
	tm_sync_store(s, slot, 0);
}

/*
 * Not FUTEX_PRIVATE: the words live in memory every host's QEMU maps. A
 * halt or a stop wakes every sleeper (a halted slot must be rung, a
 * stopped one holds nobody back); a running clock only those it has
 * passed, the others would sleep again at once. Whoever it wakes sets
 * wake_at again if it must go on waiting.
 */
void tm_sync_wake(struct tm_sync *s, int slot, uint64_t v)
{
	if (s->wake_at) {
		bool event = !v || (s->halted &&
				    __atomic_load_n(&s->halted[slot], __ATOMIC_RELAXED));

		if (!event && v < __atomic_load_n(&s->wake_at[slot], __ATOMIC_SEQ_CST))
			return;
		__atomic_store_n(&s->wake_at[slot], UINT64_MAX, __ATOMIC_SEQ_CST);
	}
	__atomic_fetch_add(&s->moved[slot], 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &s->moved[slot], FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * Spin first, while slot @w keeps moving: it runs on another host core
 * and will pass us in a few microseconds, and a futex wake-up costs more
 * than that (measured on the 2-core CI machine, a VM: two vCPUs streaming
 * on two cores took 41 s with every wait asleep in the kernel, 31 s with
 * 20 us sleeps, 4 s spinning first). Once it has not moved for
 * SPIN_STALL_NS it has no core (a busy host): sleep until it publishes,
 * so that it gets ours. Never spin longer than s->spin_ns in all
 * (TM_SYNC_SPIN_NS), so that a laggard in a long stretch of compute does
 * not cost a core, and not at all while more slots run than the host has
 * cores: then a spinner keeps the one it waits for off the core.
 */
#define SPIN_STALL_NS 10000

/* Slots running now (published, not halted), over every host. */
static int sync_running(const struct tm_sync *s)
{
	int n = __atomic_load_n(s->nslots, __ATOMIC_ACQUIRE), running = 0;

	for (int i = 0; i < n; i++)
		running += __atomic_load_n(&s->slot[i], __ATOMIC_RELAXED) &&
			   !(s->halted && __atomic_load_n(&s->halted[i], __ATOMIC_RELAXED));
	return running;
}

/*
 * Woken as soon as the laggard has come within the skew of it, a waiter
 * ran for one check-in (a quarter of the skew) and waited again: with
 * four vCPUs on two host cores every wait was a host context switch, and
 * the switches took a third of the vCPUs' host CPU (docs/timing-model.md).
 * With no core to spare, it waits instead until the laggard has caught
 * up with it, and then runs a whole skew's worth. The bound still holds:
 * going on later than allowed never breaks it; nor does it starve
 * anybody, as the slot furthest behind never waits.
 */
uint64_t tm_sync_until(const struct tm_sync *s, double now)
{
	if (s->cores > 0 && sync_running(s) > s->cores)
		return (uint64_t)now + 1;
	return now > (double)s->skew_ns ? (uint64_t)(now - (double)s->skew_ns) + 1 : 0;
}

/* Lower slot @w's wake_at to @until, if it is above. */
static void wake_at_least(struct tm_sync *s, int w, uint64_t until)
{
	uint64_t cur = __atomic_load_n(&s->wake_at[w], __ATOMIC_SEQ_CST);

	while (until < cur &&
	       !__atomic_compare_exchange_n(&s->wake_at[w], &cur, until, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
}

bool tm_sync_sleep_on(struct tm_sync *s, int w, uint64_t until,
		      bool (*blocked)(void *ctx), void *ctx, unsigned int max_us)
{
	uint64_t start = mono_ns(), moved_at = start, spent, left_ns;
	uint64_t last = __atomic_load_n(&s->slot[w], __ATOMIC_ACQUIRE);
	uint64_t spin_ns = s->cores > 0 && sync_running(s) > s->cores ? 0 : s->spin_ns;
	struct timespec pause;
	bool woken = true;
	uint32_t seen;

	for (;;) {
		uint64_t t, v;

		if (!blocked(ctx))
			return true;
		for (int i = 0; i < 16; i++)
			__builtin_ia32_pause();
		t = mono_ns();
		v = __atomic_load_n(&s->slot[w], __ATOMIC_ACQUIRE);
		if (v != last) {
			last = v;
			moved_at = t;
		}
		if (t - moved_at > SPIN_STALL_NS || t - start > spin_ns)
			break;
	}
	spent = mono_ns() - start;
	if (spent >= (uint64_t)max_us * 1000)
		return false;
	left_ns = (uint64_t)max_us * 1000 - spent;
	pause.tv_sec = left_ns / 1000000000;
	pause.tv_nsec = (long)(left_ns % 1000000000);
	__atomic_fetch_add(&s->watchers[w], 1, __ATOMIC_SEQ_CST);
	if (s->wake_at)
		wake_at_least(s, w, until);
	seen = __atomic_load_n(&s->moved[w], __ATOMIC_SEQ_CST);
	if (blocked(ctx)) {
		long rc = syscall(SYS_futex, &s->moved[w], FUTEX_WAIT, seen,
				  &pause, NULL, 0);

		/* EAGAIN: it moved between our look and the sleep */
		woken = rc == 0 || errno == EAGAIN;
	}
	__atomic_fetch_sub(&s->watchers[w], 1, __ATOMIC_SEQ_CST);
	return woken;
}

void tm_sync_halt(struct tm_sync *s, int slot, uint64_t deadline)
{
	if (deadline == UINT64_MAX || !s->halted) {
		tm_sync_stop(s, slot);
		return;
	}
	__atomic_store_n(&s->halted[slot], 1, __ATOMIC_RELAXED);
	tm_sync_store(s, slot, deadline + 1);
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

/* Smallest published time over slots outside [skip_lo, skip_hi); its
 * slot in @at when not NULL (-1: none). */
static double sync_min_at(const struct tm_sync *s, int skip_lo, int skip_hi,
			  bool running_only, int *at)
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
		if (v && (!min || v < min)) {
			min = v;
			if (at)
				*at = i;
		}
	}
	return min ? (double)(min - 1) : -1;
}

static double sync_min(const struct tm_sync *s, int skip_lo, int skip_hi,
		       bool running_only)
{
	return sync_min_at(s, skip_lo, skip_hi, running_only, NULL);
}

int tm_sync_min_slot(const struct tm_sync *s, int except)
{
	int at = -1;

	sync_min_at(s, except, except + 1, false, &at);
	return at;
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

bool tm_sync_still_ahead(void *ctx)
{
	struct tm_ahead *a = ctx;

	return tm_sync_ahead(a->s, a->slot, a->now);
}

bool tm_sync_wait(struct tm_sync *s, int slot, double now,
		  unsigned int timeout_ms)
{
	struct tm_ahead a = { s, slot, now };
	uint64_t deadline = 0;

	while (tm_sync_ahead(s, slot, now)) {
		int w = tm_sync_min_slot(s, slot);

		if (!deadline)
			deadline = mono_ms() + timeout_ms;
		else if (mono_ms() > deadline)
			return false;
		if (w >= 0)
			tm_sync_sleep_on(s, w, tm_sync_until(s, now),
					 tm_sync_still_ahead, &a, 1000);
	}
	return true;
}
