/* SPDX-License-Identifier: MIT */
/*
 * The tiering runtime: ties blocks, the staging ring, lookahead, eviction
 * and the copy lanes into one call the workload makes before it computes
 * on a block:
 *
 *	p = rt_access(rt, id);      resident, pinned; prefetches the window
 *	... compute on p ...
 *	rt_release(rt, id, dirty);  fence the consumer, unpin
 *
 * A block that the lookahead fetched in time is a hit; one still in flight
 * is a late prefetch (the wait is a stall); one not fetched at all is a
 * miss served by demand fetch. Backend-neutral: the same code drives the
 * host backend in tests and the CUDA backend on a GPU.
 */
#ifndef RT_RUNTIME_H
#define RT_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "block.h"
#include "evict.h"
#include "lanes.h"
#include "lookahead.h"
#include "rotation.h"
#include "shaping.h"
#include "trace.h"

struct rt_config {
	int nslots;		/* staging slots in the fast tier */
	size_t slot_size;	/* >= the largest block */
	int window;		/* lookahead depth; 0 = demand fetch only */
	int fetch_lanes;	/* copy lanes for fetches (+1 for write-back) */
	size_t split_min;	/* a fetch this large is split across the fetch
				 * lanes, a part each; 0: a block to one lane */
	enum rt_evict_policy evict;
	size_t resync;		/* stream re-sync distance on a deviation */
	size_t horizon;		/* next-use search distance for eviction */
};

/*
 * Prefetch accuracy: every prefetch ends as exactly one of timely (its
 * first access found it arrived), late (still in flight at that access:
 * the wait is a stall) or useless (evicted, or left at rt_fini, never
 * accessed); prefetches still resident and unused are pf_pending.
 */
struct rt_stats {
	uint64_t accesses, hits, late, misses, deviations;
	uint64_t prefetches, evictions, writebacks;
	uint64_t pf_timely, pf_late, pf_useless;
	uint64_t bytes_in, bytes_out;
	uint64_t stall_ns;	/* wall time rt_access spent waiting */
};

struct runtime {
	struct rt_config cfg;
	struct rt_backend *be;
	struct rt_lanes lanes;
	struct rt_blocks blocks;
	struct rt_ring ring;
	struct rt_stream stream;
	struct rt_stats st;
	uint64_t clock;		/* access counter, for LRU */
	int rr;			/* next fetch lane */
	void *slots_mem;	/* every slot, in one piece (see rt_init) */
	int last_fill;		/* slot of the last block fetched, -1: none */
	uint32_t *window_buf;
	/* Furthest-next-use victims on an indexed stream (victims.h);
	 * victims_live while the stream has an index to keep it by. */
	struct rt_victims victims;
	bool victims_live;
};

void rt_config_default(struct rt_config *c);
/* @far shapes copies to or from FAR-tier homes (NULL: none); @trace may be
 * NULL. Slots come out of the backend's fast tier budget. */
int rt_init(struct runtime *rt, struct rt_backend *be,
	    const struct rt_config *cfg, struct shaper *far,
	    struct rt_trace *trace);
void rt_fini(struct runtime *rt);

int64_t rt_add_block(struct runtime *rt, size_t size, void *home,
		     enum rt_tier_kind home_tier);
/* The declared access order; the array must outlive the runtime's use. */
void rt_set_stream(struct runtime *rt, const uint32_t *ids, size_t len,
		   bool cyclic);

void *rt_access(struct runtime *rt, uint32_t id);
void rt_release(struct runtime *rt, uint32_t id, bool dirty);
/* Write every dirty block home and wait for all copies. */
void rt_flush(struct runtime *rt);
/* Prefetched blocks resident now and not yet accessed. */
uint64_t rt_pf_pending(const struct runtime *rt);

/* Wall time with at least one copy in flight, and the share of it that
 * compute hid (100 * (1 - stall / transfer)). */
uint64_t rt_transfer_ns(struct runtime *rt);
double rt_overlap_pct(struct runtime *rt);

#endif
