/* SPDX-License-Identifier: MIT */
/*
 * A spin lock on a plain int, usable across processes (the timing
 * segment is mapped by every host's QEMU, so no pthread mutex): test and
 * test-and-set, yielding the core while another holds it.
 */
#ifndef CXLBED_SPIN_LOCK_H
#define CXLBED_SPIN_LOCK_H

#include <sched.h>

static inline void tm_spin_lock(int *lock)
{
	while (__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(lock, __ATOMIC_RELAXED))
			sched_yield();
}

static inline void tm_spin_unlock(int *lock)
{
	__atomic_store_n(lock, 0, __ATOMIC_RELEASE);
}

#endif
