/* SPDX-License-Identifier: MIT */
/*
 * Modeled time. Each vCPU has its own clock: instructions retired times a
 * fixed cost, plus the stalls the memory model charges. vCPUs (and hosts)
 * publish their clock in slots; one that gets more than the skew bound
 * ahead of the slowest running slot waits, in host time, until the others
 * catch up, so that threads which wait on each other see a consistent
 * order whatever the host's load.
 */
#ifndef CXLBED_MODEL_TIME_H
#define CXLBED_MODEL_TIME_H

#include <stdbool.h>
#include <stdint.h>

struct tm_vclock {
	double offset_ns;	/* modeled time when counting started */
	uint64_t insn_base;	/* instruction count then */
	double ns_per_insn;
	double stall_ns;	/* memory stalls since */
};

static inline double tm_now(const struct tm_vclock *c, uint64_t insns)
{
	return c->offset_ns + (double)(insns - c->insn_base) * c->ns_per_insn +
	       c->stall_ns;
}

/* Start (or restart) counting at modeled time @at. */
static inline void tm_vclock_start(struct tm_vclock *c, uint64_t insns,
				   double at)
{
	c->offset_ns = at;
	c->insn_base = insns;
	c->stall_ns = 0;
}

/* The core cannot go on before @t: charge the difference as a stall. */
static inline void tm_stall_until(struct tm_vclock *c, uint64_t insns, double t)
{
	double now = tm_now(c, insns);

	if (t > now)
		c->stall_ns += t - now;
}

/*
 * Slots hold a published modeled time + 1; 0 means "not running" (idle,
 * halted, not started, finished): such a slot holds nobody back. A halted
 * vCPU that has a clock event armed publishes that deadline instead and is
 * marked halted: it will run again at that modeled time, so nobody may get
 * more than the skew past it, but it is not a running clock to rejoin.
 */
struct tm_sync {
	uint64_t *slot;
	uint32_t *halted;	/* slot holds a halted vCPU's next deadline */
	uint64_t *beat;		/* host ms of each slot's last publish */
	int *nslots;		/* slots in use (high-water mark) */
	uint64_t skew_ns;
	/*
	 * A slot silent for this long in host time (a vCPU in code the model
	 * does not see, or descheduled) holds nobody back; 0 = always wait.
	 */
	unsigned int stale_ms;
	/*
	 * Sleeping on a slot (tm_sync_sleep_on): watchers[i] counts the
	 * threads asleep on slot i, moved[i] is the futex word its
	 * publisher bumps to wake them (tm_shared_sync sets both).
	 */
	uint32_t *watchers;
	uint32_t *moved;
	/*
	 * The least clock (published value) slot i must reach before its
	 * sleepers may go on (their `until`); a publish below it wakes
	 * nobody. Each vCPU publishes four times a skew, and woken at every
	 * publish a waiter mostly slept again: four vCPUs on two host cores
	 * switched 56 000 times a second (docs/timing-model.md).
	 */
	uint64_t *wake_at;
	/* longest spin before that sleep (0: sleep at once); model_time.c */
	uint64_t spin_ns;
	/* host cores: a waiter spins only while running slots are no more */
	int cores;
};

/* @slot now holds @v: wake its sleepers, unless it is below what they wait for. */
void tm_sync_wake(struct tm_sync *s, int slot, uint64_t v);
#define TM_SYNC_SPIN_NS 50000	/* tm_sync_sleep_on's default spin */

/*
 * Every write of a slot: a full barrier (xchg) between the store and the
 * look at its watchers, so that a sleeper which registered before our
 * store is woken and one that registered after sees the new value.
 */
static inline void tm_sync_store(struct tm_sync *s, int slot, uint64_t v)
{
	uint64_t was = __atomic_exchange_n(&s->slot[slot], v, __ATOMIC_SEQ_CST);

	/* the same value again (a waiter re-checking) wakes nobody */
	if (was != v && __atomic_load_n(&s->watchers[slot], __ATOMIC_RELAXED))
		tm_sync_wake(s, slot, v);
}

void tm_sync_publish(struct tm_sync *s, int slot, double now);
/* Publish the clock only, not a check-in (no host-time beat): cheap. */
static inline void tm_sync_publish_clock(struct tm_sync *s, int slot,
					 double now)
{
	tm_sync_store(s, slot, (uint64_t)now + 1);
}
void tm_sync_stop(struct tm_sync *s, int slot);
/* What @slot published last (its clock or deadline); -1: nothing. */
static inline double tm_sync_published(const struct tm_sync *s, int slot)
{
	uint64_t v = __atomic_load_n(&s->slot[slot], __ATOMIC_ACQUIRE);

	return v ? (double)(v - 1) : -1;
}
/* @slot halts until modeled time @deadline (UINT64_MAX: no event armed). */
void tm_sync_halt(struct tm_sync *s, int slot, uint64_t deadline);
/* Host ms before which a slot's last check-in is stale; 0: never stale. */
uint64_t tm_sync_stale_before(const struct tm_sync *s);
/* Has @slot been silent since before @stale_before (see above)? */
bool tm_sync_stale(const struct tm_sync *s, int slot, uint64_t stale_before);
/*
 * Smallest published time of slots other than @except, halted ones by
 * their deadline (what the skew bound compares with); -1: none.
 */
double tm_sync_min(const struct tm_sync *s, int except);
/* The same over running slots only (where a woken vCPU rejoins). */
double tm_sync_min_running(const struct tm_sync *s, int except);
/* The same as tm_sync_min over slots outside [first, first + n) (other hosts). */
double tm_sync_min_outside(const struct tm_sync *s, int first, int n);
/* Publish @now; true when @slot is more than the skew ahead of the rest. */
bool tm_sync_ahead(struct tm_sync *s, int slot, double now);
/*
 * Publish @now and wait in host time while @slot is ahead. Gives up after
 * @timeout_ms (a peer stuck outside the model must not hang the run);
 * returns false then.
 */
bool tm_sync_wait(struct tm_sync *s, int slot, double now,
		  unsigned int timeout_ms);

/*
 * Wait in the host, at most @max_us, while @blocked(@ctx) holds and slot
 * @w (the one holding us back) has not published a value of at least
 * @until (a clock + 1, as slots hold them; 0: any new value), nor halted
 * or stopped: spinning while it moves, asleep on a futex once it stalls
 * (model_time.c says when). A publish between the caller's check and our
 * sleep is not lost: we register as its watcher before the last check. Before, waits polled
 * with 20 us sleeps (more with the kernel's timer slack), and every
 * handoff between vCPUs in step cost one: one stream row of the table
 * took 31 s of host time with two vCPUs on two host cores (4 s now) and
 * 123 s with four (89 s now), 250 s beside another test. False on the
 * time-out.
 */
bool tm_sync_sleep_on(struct tm_sync *s, int w, uint64_t until,
		      bool (*blocked)(void *ctx), void *ctx, unsigned int max_us);
/*
 * The @until of a wait at @now for the skew bound: the clock every other
 * slot must have reached, + 1; with more slots running than the host has
 * cores, @now itself (model_time.c says why).
 */
uint64_t tm_sync_until(const struct tm_sync *s, double now);
/* tm_sync_sleep_on's test for a tm_sync_wait: is @slot still ahead at @now? */
struct tm_ahead {
	struct tm_sync *s;
	int slot;
	double now;
};
bool tm_sync_still_ahead(void *tm_ahead);
/* The slot with the smallest published time other than @except; -1: none. */
int tm_sync_min_slot(const struct tm_sync *s, int except);

#endif
