// SPDX-License-Identifier: MIT
/* Modeled clocks and the skew bound between vCPUs (threads here). */
#include <math.h>
#include <pthread.h>

#include "tap.h"
#include "model_time.h"
#include "shm_links.h"

#define SKEW 5000
#define END 2e6

static struct tm_sync sync_;
static struct tm_shared *shm;
static double worst[3];
static uint64_t timeouts;

struct worker { int slot; double step; };

/* Sleeping on a slot (tm_sync_sleep_on): blocked while slot 5 is below 100. */
static bool below_100(void *ctx)
{
	(void)ctx;
	return tm_sync_published(&sync_, 5) < 100;
}

static void *publish_later(void *arg)
{
	struct timespec t = { 0, 50 * 1000 * 1000 };

	(void)arg;
	nanosleep(&t, NULL);	/* the sleeper is asleep by then, most likely */
	tm_sync_publish(&sync_, 5, 100);
	return NULL;
}

static void *halt_later(void *arg)
{
	struct timespec t = { 0, 50 * 1000 * 1000 };

	(void)arg;
	nanosleep(&t, NULL);
	tm_sync_halt(&sync_, 5, 50);
	return NULL;
}

static void *publish_50_later(void *arg)
{
	struct timespec t = { 0, 50 * 1000 * 1000 };

	(void)arg;
	nanosleep(&t, NULL);
	tm_sync_publish(&sync_, 5, 50);
	return NULL;
}

/* Slot 5 at 10, sleep on it (@until) while @fn changes it in another
 * thread: woken (not the 10 s time-out)? */
static bool sleep_beside(void *(*fn)(void *), uint64_t until)
{
	pthread_t p;
	bool woken;

	tm_sync_publish(&sync_, 5, 10);
	pthread_create(&p, NULL, fn, NULL);
	woken = tm_sync_sleep_on(&sync_, 5, until, below_100, NULL, 10000000);
	pthread_join(p, NULL);
	return woken;
}

/* Publishes short of what the sleeper waits for, then enough. */
static uint32_t moved_short;
static void *publish_short_then_enough(void *arg)
{
	struct timespec t = { 0, 50 * 1000 * 1000 };

	(void)arg;
	nanosleep(&t, NULL);
	for (int c = 20; c < 100; c += 20)
		tm_sync_publish(&sync_, 5, c);
	moved_short = __atomic_load_n(&shm->moved[5], __ATOMIC_SEQ_CST);
	nanosleep(&t, NULL);
	tm_sync_publish(&sync_, 5, 100);
	return NULL;
}

/* Advance a clock in uneven steps, checking in like the plugin does. */
static void *run(void *arg)
{
	struct worker *w = arg;
	double now = 0, next = 0;

	tm_shared_use_slot(shm, w->slot);
	while (now < END) {
		now += w->step * (1 + (int)(now / 97) % 3);
		if (now >= next) {
			double min;

			if (!tm_sync_wait(&sync_, w->slot, now, 5000))
				__atomic_fetch_add(&timeouts, 1, __ATOMIC_RELAXED);
			next = now + SKEW / 4.0;
			min = tm_sync_min(&sync_, w->slot);
			if (min >= 0 && now - min > worst[w->slot])
				worst[w->slot] = now - min;
		}
	}
	tm_sync_stop(&sync_, w->slot);
	return NULL;
}

int main(void)
{
	struct worker w[3] = { { 0, 1.0 }, { 1, 7.5 }, { 2, 0.3 } };
	struct tm_vclock c = { .ns_per_insn = 0.5 };
	pthread_t th[3];
	char *err = NULL;
	double max = 0;

	plan(17);
	tm_vclock_start(&c, 1000, 200);
	ok(tm_now(&c, 1100) == 250, "clock: 100 insns at 0.5 ns from 200 ns");
	tm_stall_until(&c, 1100, 400);
	tm_stall_until(&c, 1100, 300);	/* already past: no effect */
	ok(tm_now(&c, 1100) == 400, "a stall moves the clock, never back");

	shm = tm_shared_open(NULL, &err);
	tm_shared_sync(shm, &sync_, SKEW, 0);
	ok(tm_sync_min(&sync_, -1) < 0, "no running slot: nobody to wait for");
	/*
	 * Every clock is there from time 0, as every vCPU is before the
	 * plugin arms: a thread the host starts late must not show up far
	 * behind the others (seen on a loaded host: the lead measured against
	 * a clock that had not yet begun).
	 */
	for (int i = 0; i < 3; i++) {
		tm_shared_use_slot(shm, i);
		tm_sync_publish(&sync_, i, 0);
	}
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, run, &w[i]);
	for (int i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		if (worst[i] > max)
			max = worst[i];
	}
	/* ahead by at most the bound plus what one check interval adds */
	ok(max <= SKEW + SKEW / 4.0 + 3 * 7.5,
	   "three threads at different speeds stay within the skew bound "
	   "(worst lead %.0f ns, bound %d)", max, SKEW);
	ok(timeouts == 0, "no wait timed out");

	/* a halted vCPU with a clock event armed (guest clock) */
	for (int i = 0; i < 3; i++)
		tm_sync_stop(&sync_, i);
	tm_shared_use_slot(shm, TM_MAX_VCPUS + 1);
	tm_sync_publish(&sync_, 0, 1000);
	tm_sync_halt(&sync_, 1, 5000);
	tm_sync_halt(&sync_, 2, UINT64_MAX);
	ok(tm_sync_min(&sync_, 0) == 5000,
	   "a halted slot holds others back up to its deadline");
	ok(tm_sync_min_running(&sync_, 0) < 0,
	   "... but is no running clock to rejoin; no deadline: not at all");
	ok(!tm_sync_ahead(&sync_, 0, 5000 + SKEW) &&
	   tm_sync_ahead(&sync_, 0, 5001 + SKEW),
	   "the skew bound counts from a sleeper's deadline");
	tm_sync_publish(&sync_, TM_MAX_VCPUS + 1, 300);
	ok(tm_sync_min_outside(&sync_, 0, TM_MAX_VCPUS) == 300,
	   "another host's clock, this host's slots left out");
	tm_sync_publish(&sync_, 1, 6000);
	ok(tm_sync_min_running(&sync_, 0) == 300,
	   "a woken sleeper runs again (slot no longer marked halted)");

	/* sleeping on the slot that holds us back, woken by its publish */
	tm_shared_use_slot(shm, 5);
	tm_sync_publish(&sync_, 5, 10);
	ok(!tm_sync_sleep_on(&sync_, 5, 101, below_100, NULL, 20000),
	   "sleep on a slot: 20 ms and no publish, a time-out");
	ok(tm_sync_min_slot(&sync_, 0) == 5 && tm_sync_min_slot(&sync_, 5) == TM_MAX_VCPUS + 1,
	   "the slot with the smallest clock is the one to sleep on");
	{
		pthread_t p;
		bool woken;

		pthread_create(&p, NULL, publish_later, NULL);
		/* 10 s: a lost wake-up would show as a time-out */
		woken = tm_sync_sleep_on(&sync_, 5, 101, below_100, NULL, 10000000);
		pthread_join(p, NULL);
		ok(woken && !below_100(NULL),
		   "a publish wakes the sleeper (not its 10 s time-out)");
	}
	{
		pthread_t p;
		uint32_t moved0;
		bool woken;

		tm_sync_publish(&sync_, 5, 10);
		moved0 = __atomic_load_n(&shm->moved[5], __ATOMIC_SEQ_CST);
		pthread_create(&p, NULL, publish_short_then_enough, NULL);
		woken = tm_sync_sleep_on(&sync_, 5, 101, below_100, NULL, 10000000);
		pthread_join(p, NULL);
		ok(woken && !below_100(NULL) && moved_short == moved0 &&
		   __atomic_load_n(&shm->moved[5], __ATOMIC_SEQ_CST) == moved0 + 1,
		   "publishes short of what the sleeper waits for wake nobody; "
		   "the one that reaches it does (%u wake-ups before it, %u in all)",
		   moved_short - moved0,
		   __atomic_load_n(&shm->moved[5], __ATOMIC_SEQ_CST) - moved0);
	}
	ok(sleep_beside(publish_50_later, 0) && below_100(NULL),
	   "a sleeper that waits for any change is woken by any publish");
	ok(sleep_beside(halt_later, 101) && below_100(NULL),
	   "a halt short of what the sleeper waits for still wakes it "
	   "(it may have to ring the halted vCPU)");
	tm_sync_publish(&sync_, 5, 100);
	ok(tm_sync_sleep_on(&sync_, 5, 101, below_100, NULL, 10000000) &&
	   __atomic_load_n(&shm->watchers[5], __ATOMIC_RELAXED) == 0,
	   "no longer held back: no wait at all, and no watcher left behind");
	return done_testing();
}
