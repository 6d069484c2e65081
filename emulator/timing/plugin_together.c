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
 */
#include <time.h>

#include "timing_plugin.h"

/* Longest host-time wait for the others (counted: none in sound runs). */
#define TOGETHER_TIMEOUT_MS 120000

static void together_lock(void)
{
	while (__atomic_exchange_n(&tp.shm->together.lock, 1, __ATOMIC_ACQUIRE))
		__builtin_ia32_pause();
}

static void together_unlock(void)
{
	__atomic_store_n(&tp.shm->together.lock, 0, __ATOMIC_RELEASE);
}

/* Arrive at @now; true when this arrival completed generation @gen. */
static bool arrive(int n, double now, uint32_t *gen)
{
	bool last;

	together_lock();
	*gen = tp.shm->together.gen;
	if ((uint64_t)now > tp.shm->together.latest_ns)
		tp.shm->together.latest_ns = (uint64_t)now;
	last = ++tp.shm->together.arrived >= n;
	if (last) {
		tp.shm->together.release_ns = tp.shm->together.latest_ns;
		tp.shm->together.latest_ns = 0;
		tp.shm->together.arrived = 0;
		__atomic_store_n(&tp.shm->together.gen, *gen + 1, __ATOMIC_RELEASE);
	}
	together_unlock();
	return last;
}

/* Gave up: leave generation @gen, unless it completed meanwhile. */
static bool withdraw(uint32_t gen)
{
	bool left = false;

	together_lock();
	if (tp.shm->together.gen == gen) {
		tp.shm->together.arrived--;
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
static void wait_release(uint32_t gen, int first)
{
	struct timespec pause = { 0, 50000 };
	uint64_t give_up = host_ms() + TOGETHER_TIMEOUT_MS;

	while (__atomic_load_n(&tp.shm->together.gen, __ATOMIC_ACQUIRE) == gen) {
		if (first >= 0 && tp.guest_time) {
			double others = tm_sync_min_outside(&tp.sync, first, TM_MAX_VCPUS);

			if (others >= 0)
				clock_follow(others);
		}
		if (host_ms() > give_up && withdraw(gen)) {
			__atomic_fetch_add(&tp.together_timeouts, 1, __ATOMIC_RELAXED);
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
		if (!arrive(n, 0, &gen))
			wait_release(gen, -1);
		__atomic_fetch_add(&tp.together_unarmed, 1, __ATOMIC_RELAXED);
		return;
	}
	now = tm_now(&v->clk, insns_of(vi));
	if (!arrive(n, now, &gen)) {
		tm_sync_stop(&tp.sync, v->slot);
		wait_release(gen, tp.cfg.host_index * TM_MAX_VCPUS);
	}
	/* the generation's release time (written before its gen moved on) */
	at = __atomic_load_n(&tp.shm->together.gen, __ATOMIC_ACQUIRE) != gen ?
	     (double)__atomic_load_n(&tp.shm->together.release_ns, __ATOMIC_RELAXED) : now;
	if (at > now) {
		tm_stall_until(&v->clk, insns_of(vi), at);
		__atomic_fetch_add(&tp.together_held_ns, (uint64_t)(at - now), __ATOMIC_RELAXED);
	} else {
		at = now;
	}
	tm_sync_publish(&tp.sync, v->slot, at);
	__atomic_fetch_add(&tp.together_waits, 1, __ATOMIC_RELAXED);
}
