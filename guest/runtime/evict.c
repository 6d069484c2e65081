/* SPDX-License-Identifier: MIT */
/* Victim choice; see evict.h. */
#include "evict.h"

const char *rt_evict_name(enum rt_evict_policy p)
{
	switch (p) {
	case RT_EVICT_FURTHEST: return "furthest-next-use";
	case RT_EVICT_LRU: return "lru";
	case RT_EVICT_RING: return "ring";
	}
	return "?";
}

/* A slot can be taken if free, or if its block is unpinned. */
static int takeable(const struct rt_slot *s, void *arg)
{
	const struct rt_victim_query *q = arg;
	const struct rt_block *b;

	if (s->block < 0)
		return 1;
	b = rt_block(q->blocks, (uint32_t)s->block);
	if (!b || b->pins)
		return 0;
	if (q->needed_at != RT_NO_USE) {
		size_t nu = rt_next_use(q->stream, b->id, q->horizon);

		/* Keep a block that will be wanted before the one coming in. */
		if (nu != RT_NO_USE && nu <= q->needed_at)
			return 0;
	}
	return 1;
}

int rt_evict_choose(const struct rt_victim_query *q)
{
	const struct rt_ring *r = q->ring;
	int best = -1;
	size_t best_nu = 0;
	uint64_t best_lu = 0;

	if (q->policy == RT_EVICT_RING)
		return rt_ring_next(r, takeable, (void *)q);
	for (int i = 0; i < r->n; i++) {
		const struct rt_slot *s = &r->s[i];
		const struct rt_block *b;
		size_t nu;

		if (!takeable(s, (void *)q))
			continue;
		if (s->block < 0)
			return i;
		b = rt_block(q->blocks, (uint32_t)s->block);
		nu = q->policy == RT_EVICT_FURTHEST ?
		     rt_next_use(q->stream, b->id, q->horizon) : 0;
		if (best < 0 || nu > best_nu ||
		    (nu == best_nu && b->last_use < best_lu)) {
			best = i;
			best_nu = nu;
			best_lu = b->last_use;
		}
	}
	return best;
}
