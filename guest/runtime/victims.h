/* SPDX-License-Identifier: MIT */
/*
 * The victim index: the furthest-next-use choice of evict.h in
 * O(log slots) per fetch instead of a pass over every slot.
 *
 * A pass per fetch is quadratic in the data: at 8192 slots (a 64x KV
 * cache) each fetch read 8192 slot and block records that do not fit the
 * LLC, and the runtime's own victim search outweighed the transfers it
 * schedules. The index keeps, per slot, what the choice reads (free,
 * takeable, next-use position, last use) in a tree of partial choices, so
 * that a fetch and every change of a slot cost one walk from leaf to root.
 *
 * The choice is the pass's, exactly: a free slot first (the preferred one,
 * else the lowest); then, among takeable blocks not wanted within the
 * horizon, the least recently used (lowest slot between equals; the
 * preferred slot when it is one of them); else the takeable block wanted
 * furthest ahead, unless it is wanted no later than the incoming block.
 *
 * The runtime marks a slot stale at every change of what the choice
 * reads (a fill, a pin or unpin, a last use, the cursor passing its
 * block: rt_victims_touch, O(1)); a choice first reads the stale slots
 * back through the runtime's reader, each once however often it was
 * touched. A block used over and over between fetches (a cache that
 * holds its working set) then costs nothing per use.
 *
 * The horizon's edge (cursor + horizon) only moves forward on an indexed
 * stream, so a block goes from "beyond the horizon" to "within" when the
 * edge passes its next use: the choice moves such blocks over first,
 * each once.
 */
#ifndef RT_VICTIMS_H
#define RT_VICTIMS_H

#include <stddef.h>
#include <stdint.h>

enum rt_victim_kind {
	RT_VICTIM_OFF,		/* not takeable: pinned */
	RT_VICTIM_FREE,		/* no block */
	RT_VICTIM_BLOCK,	/* a takeable block */
};

/* What slot @slot holds now; for a block, the stream position of its
 * next use (RT_NO_USE: none) and its last use. */
struct rt_victim_slot {
	enum rt_victim_kind kind;
	size_t next;
	uint64_t last_use;
};
typedef struct rt_victim_slot (*rt_victim_reader)(void *arg, int slot);

struct rt_victim_node;

struct rt_victims {
	struct rt_victim_node *t;	/* 2 * leaves nodes; root at 1 */
	int n, leaves;
	size_t horizon;
	rt_victim_reader read;
	void *arg;
	unsigned char *stale;		/* per slot */
	int *stale_list, nstale;
};

/* Every slot starts stale. */
int rt_victims_init(struct rt_victims *v, int nslots, size_t horizon,
		    rt_victim_reader read, void *arg);
void rt_victims_fini(struct rt_victims *v);
/* What slot @slot holds, or how, has changed: read it at the next choice. */
void rt_victims_touch(struct rt_victims *v, int slot);
/* The slot to fill, as rt_evict_choose's furthest-next-use choice with the
 * cursor at @pos; -1 when none may be taken. */
int rt_victims_choose(struct rt_victims *v, size_t pos, size_t needed_at,
		      int prefer);

#endif
