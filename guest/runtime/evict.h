/* SPDX-License-Identifier: MIT */
/*
 * Choosing the cold block to evict. With a declared access stream the
 * block used furthest in the future is the right victim (Belady); blocks
 * not seen within the horizon tie, and the least recently used of them
 * goes first. Plain LRU and ring order are there for comparison.
 * A free slot always beats a victim. Between equals, the slot after the
 * last one filled wins (evict.h, rt_victim_query.prefer).
 */
#ifndef RT_EVICT_H
#define RT_EVICT_H

#include <stddef.h>

#include "block.h"
#include "lookahead.h"
#include "rotation.h"
#include "victims.h"

enum rt_evict_policy { RT_EVICT_FURTHEST, RT_EVICT_LRU, RT_EVICT_RING };

struct rt_victim_query {
	enum rt_evict_policy policy;
	const struct rt_ring *ring;
	struct rt_blocks *blocks;
	const struct rt_stream *stream;
	size_t horizon;		/* how far ahead next uses are looked for */
	/* Only evict blocks needed strictly later than this distance (the
	 * next use of the block being fetched); RT_NO_USE for a demand fetch
	 * that must take some slot. */
	size_t needed_at;
	/* The slot after the last one filled (-1: none): taken when it is
	 * as good a choice as the best, so that blocks fetched in order lie
	 * in neighbouring slots. */
	int prefer;
	/* Furthest next use: the runtime's index of its slots, kept current
	 * (victims.h); NULL: a pass over every slot. */
	struct rt_victims *index;
};

/* Slot index, or -1 if every slot is pinned, in flight or needed sooner. */
int rt_evict_choose(const struct rt_victim_query *q);
const char *rt_evict_name(enum rt_evict_policy p);

#endif
