/* SPDX-License-Identifier: MIT */
/*
 * Block table: the unit the runtime moves (a layer's weights, a KV page,
 * a chunk of optimizer state). A block always has a home copy in a slow
 * tier; while resident it also occupies one fast-tier slot, and a dirty
 * block is written home before its slot is reused.
 */
#ifndef RT_BLOCK_H
#define RT_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lanes.h"
#include "tier.h"

enum rt_bstate {
	RT_B_HOME,		/* only the home copy exists */
	RT_B_RESIDENT,		/* owns a slot; data there once @ready is done */
};

struct rt_block {
	uint32_t id;
	size_t size;
	void *home;
	enum rt_tier_kind home_tier;
	enum rt_bstate state;
	int slot;		/* -1 unless resident */
	struct rt_ticket ready;	/* fetch into the slot */
	bool prefetched;	/* fetched ahead of its access */
	bool used;		/* accessed since its last fetch */
	bool dirty;
	int pins;		/* accesses not yet released */
	uint64_t last_use;	/* runtime access counter; 0 never */
};

struct rt_blocks {
	struct rt_block *b;
	uint32_t n, cap;
};

void rt_blocks_init(struct rt_blocks *t);
void rt_blocks_fini(struct rt_blocks *t);
/* Returns the new block's id (dense from 0) or -1 on OOM. */
int64_t rt_blocks_add(struct rt_blocks *t, size_t size, void *home,
		      enum rt_tier_kind home_tier);
static inline struct rt_block *rt_block(struct rt_blocks *t, uint32_t id)
{
	return id < t->n ? &t->b[id] : NULL;
}

#endif
