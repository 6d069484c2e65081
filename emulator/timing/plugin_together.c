// SPDX-License-Identifier: MIT
/*
 * The start barrier of `together` workloads (CXLBED_ROI_TOGETHER): the
 * runner starts them on each host in turn, in host time, so without it
 * one host's stream began up to milliseconds of modeled time before the
 * other's and ran alone meanwhile (pool-shares.t: the capped host's
 * neighbour then got more than the rest of the pool). Here each arriving
 * vCPU waits, in host time, until all N have arrived, and every one of
 * them resumes at the latest arrival's modeled time.
 *
 * A waiting vCPU holds nobody back (its slot is cleared), and its host
 * does not warp while it waits (it is not halted); so that the other
 * hosts are not held back by this host's sleepers either, the waiter
 * rings them as the other hosts' time passes their deadlines, as a
 * running vCPU would.
 *
 * The last arrival publishes the release time in every waiter's slot at
 * once. Before, each waiter published it only when it next looked (host
 * time, every 50 us, later on a busy host): meanwhile the last arrival
 * and the waiter's own siblings ran on unchecked, a sibling handed the
 * guest clock readings up to milliseconds past the waiter's, and the
 * waiter's own readings then stood still until it caught up (a 64 KiB
 * stream timed 0 s by its guest clock; its figure moved 0.78-1.13 GB/s).
 */
#include <time.h>

#include "timing_plugin.h"

/* Longest host-time wait for the others (counted: none in sound runs). */
#define TOGETHER_TIMEOUT_MS 120000

static struct together_counts counts;

const struct together_counts *together_counts(void)
{
	return &counts;
}

static void together_lock(void)
{
	while (__atomic_exchange_n(&tp.shm->together.lock, 1, __ATOMIC_ACQUIRE))
		__builtin_ia32_pause();
}

static void together_unlock(void)
{
	__atomic_store_n(&tp.shm->together.lock, 0, __ATOMIC_RELEASE);
}

/*
 * Arrive at @now from clock slot @slot (-1: none yet); true when this
 * arrival completed generation @gen.
 */
static bool arrive(int n, double now, int slot, uint32_t *gen)
{
	typeof(tp.shm->together) *t = &tp.shm->together;
	bool last;

	together_lock();
	*gen = t->gen;
	if ((uint64_t)now > t->latest_ns)
		t->latest_ns = (uint64_t)now;
	last = ++t->arrived >= n;
	if (last) {
		t->release_ns = t->latest_ns;
		/* every waiter is at the release time from now on */
		for (int i = 0; i < t->nwaiting; i++)
			tm_sync_publish(&tp.sync, t->waiting[i], (double)t->release_ns);
		t->nwaiting = 0;
		t->latest_ns = 0;
		t->arrived = 0;
		__atomic_store_n(&t->gen, *gen + 1, __ATOMIC_RELEASE);
	} else if (slot >= 0) {
		/* it holds nobody back until the release */
		tm_sync_stop(&tp.sync, slot);
		if (t->nwaiting < TM_MAX_SLOTS)
			t->waiting[t->nwaiting++] = slot;
	}
	together_unlock();
	return last;
}

/* Gave up: leave generation @gen, unless it completed meanwhile. */
static bool withdraw(uint32_t gen, int slot)
{
	typeof(tp.shm->together) *t = &tp.shm->together;
	bool left = false;

	together_lock();
	if (t->gen == gen) {
		t->arrived--;
		for (int i = 0; i < t->nwaiting; i++)
			if (t->waiting[i] == slot)
				t->waiting[i--] = t->waiting[--t->nwaiting];
		left = true;
	}
	together_unlock();
	return left;
}

/*
 * Wait in host time until generation @gen completes, or give up after the
 * timeout. @first: this host's first clock slot, whose sleepers are rung
 * as the other hosts' time passes (-1: it has no modeled time yet).
 */
static void wait_release(uint32_t gen, int first, int slot)
{
	struct timespec pause = { 0, 50000 };
	uint64_t give_up = host_ms() + TOGETHER_TIMEOUT_MS;

	while (__atomic_load_n(&tp.shm->together.gen, __ATOMIC_ACQUIRE) == gen) {
		if (first >= 0 && tp.guest_time) {
			double others = tm_sync_min_outside(&tp.sync, first, TM_MAX_VCPUS);

			if (others >= 0)
				clock_follow(others);
		}
		if (host_ms() > give_up && withdraw(gen, slot)) {
			__atomic_fetch_add(&counts.timeouts, 1, __ATOMIC_RELAXED);
			break;
		}
		nanosleep(&pause, NULL);
	}
}

void together_marker(unsigned int vi, int n)
{
	struct vcpu *v = vcpu_get(vi);
	double now, at;
	uint32_t gen;

	if (n < 2)
		return;
	if (!v || __atomic_load_n(&tp.armed, __ATOMIC_ACQUIRE) != 2) {
		/*
		 * Not armed yet: with the host's clock the plugin arms at the
		 * workload's first marker, and the reset that arms it lands a
		 * little after this one. It still arrives (else the others
		 * wait out the timeout) and waits with them in host time; it
		 * has no modeled time to give or to take.
		 */
		if (!arrive(n, 0, -1, &gen))
			wait_release(gen, -1, -1);
		__atomic_fetch_add(&counts.unarmed, 1, __ATOMIC_RELAXED);
		return;
	}
	now = tm_now(&v->clk, insns_of(vi));
	if (!arrive(n, now, v->slot, &gen))
		wait_release(gen, tp.cfg.host_index * TM_MAX_VCPUS, v->slot);
	/* the generation's release time (written before its gen moved on) */
	at = __atomic_load_n(&tp.shm->together.gen, __ATOMIC_ACQUIRE) != gen ?
	     (double)__atomic_load_n(&tp.shm->together.release_ns, __ATOMIC_RELAXED) : now;
	if (at > now) {
		tm_stall_until(&v->clk, insns_of(vi), at);
		__atomic_fetch_add(&counts.held_ns, (uint64_t)(at - now), __ATOMIC_RELAXED);
	} else {
		at = now;
	}
	tm_sync_publish(&tp.sync, v->slot, at);
	__atomic_fetch_add(&counts.waits, 1, __ATOMIC_RELAXED);
}
