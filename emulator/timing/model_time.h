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
 * halted, not started, finished): such a slot holds nobody back.
 */
struct tm_sync {
	uint64_t *slot;
	uint64_t *beat;		/* host ms of each slot's last publish */
	int *nslots;		/* slots in use (high-water mark) */
	uint64_t skew_ns;
	/*
	 * A slot silent for this long in host time (a vCPU in code the model
	 * does not see, or descheduled) holds nobody back; 0 = always wait.
	 */
	unsigned int stale_ms;
};

void tm_sync_publish(struct tm_sync *s, int slot, double now);
/* Publish the clock only, not a check-in (no host-time beat): cheap. */
static inline void tm_sync_publish_clock(struct tm_sync *s, int slot,
					 double now)
{
	__atomic_store_n(&s->slot[slot], (uint64_t)now + 1, __ATOMIC_RELEASE);
}
void tm_sync_stop(struct tm_sync *s, int slot);
/* Host ms before which a slot's last check-in is stale; 0: never stale. */
uint64_t tm_sync_stale_before(const struct tm_sync *s);
/* Has @slot been silent since before @stale_before (see above)? */
bool tm_sync_stale(const struct tm_sync *s, int slot, uint64_t stale_before);
/* Smallest published time of running slots other than @except; -1: none. */
double tm_sync_min(const struct tm_sync *s, int except);
/* Publish @now; true when @slot is more than the skew ahead of the rest. */
bool tm_sync_ahead(struct tm_sync *s, int slot, double now);
/*
 * Publish @now and wait in host time while @slot is ahead. Gives up after
 * @timeout_ms (a peer stuck outside the model must not hang the run);
 * returns false then.
 */
bool tm_sync_wait(struct tm_sync *s, int slot, double now,
		  unsigned int timeout_ms);

#endif
