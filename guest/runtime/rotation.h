/* SPDX-License-Identifier: MIT */
/*
 * The fast-tier staging ring: N equal slots carved out of the HBM budget
 * (N = 2 double buffering, 3 triple, more for a cache). Each slot records
 * which block it holds, the last copy into or out of it, and a compute
 * fence marking when its last consumer finished, so a fetch that reuses it
 * never overwrites data a kernel is still reading.
 */
#ifndef RT_ROTATION_H
#define RT_ROTATION_H

#include <stddef.h>
#include <stdint.h>

#include "lanes.h"

struct rt_slot {
	void *mem;
	int64_t block;		/* -1: free */
	struct rt_ticket busy;	/* last copy touching the slot */
	void *fence;		/* recorded when the block is released */
	uint64_t filled;	/* ring order stamp of the current block */
};

struct rt_ring {
	struct rt_slot *s;
	int n;
	size_t slot_size;
	uint64_t stamp;		/* next fill stamp */
};

int rt_ring_init(struct rt_ring *r, int n, size_t slot_size);
void rt_ring_fini(struct rt_ring *r);
/* Give slot @i to @block and stamp it in ring order. */
void rt_ring_fill(struct rt_ring *r, int i, int64_t block);
void rt_ring_clear(struct rt_ring *r, int i);
/* The oldest-filled slot among those @ok accepts (free ones first);
 * -1 if none. This is buffer rotation: with a streaming access pattern it
 * cycles through the slots in order. */
int rt_ring_next(const struct rt_ring *r,
		 int (*ok)(const struct rt_slot *, void *), void *arg);

#endif
