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

/*
 * A slot can be taken if free, or if its block is unpinned and not wanted
 * before the block coming in. *nu: its block's next use (for the choice;
 * looked up once, it is most of a victim search's cost).
 */
static int takeable_nu(const struct rt_slot *s, const struct rt_victim_query *q,
		       size_t *nu)
{
	const struct rt_block *b;

	*nu = RT_NO_USE;
	if (s->block < 0)
		return 1;
	b = rt_block(q->blocks, (uint32_t)s->block);
	if (!b || b->pins)
		return 0;
	if (q->needed_at == RT_NO_USE && q->policy != RT_EVICT_FURTHEST)
		return 1;
	*nu = rt_next_use(q->stream, b->id, q->horizon);
	/* Keep a block that will be wanted before the one coming in. */
	return q->needed_at == RT_NO_USE || *nu == RT_NO_USE || *nu > q->needed_at;
}

static int takeable(const struct rt_slot *s, void *arg)
{
	size_t nu;

	return takeable_nu(s, arg, &nu);
}

int rt_evict_choose(const struct rt_victim_query *q)
{
	const struct rt_ring *r = q->ring;
	int best = -1, pref = -1;
	size_t best_nu = 0, pref_nu = 0;
	uint64_t best_lu = 0;

	if (q->policy == RT_EVICT_FURTHEST && q->index)
		return rt_victims_choose(q->index, q->stream->pos, q->needed_at,
					 q->prefer);
	if (q->policy == RT_EVICT_RING)
		return rt_ring_next(r, takeable, (void *)q);
	if (q->prefer >= 0 && q->prefer < r->n && r->s[q->prefer].block < 0)
		return q->prefer;
	for (int i = 0; i < r->n; i++) {
		const struct rt_slot *s = &r->s[i];
		const struct rt_block *b;
		size_t nu;

		if (!takeable_nu(s, q, &nu))
			continue;
		if (s->block < 0)
			return i;
		b = rt_block(q->blocks, (uint32_t)s->block);
		if (q->policy != RT_EVICT_FURTHEST)
			nu = 0;
		else if (i == q->prefer) {
			pref = i;
			pref_nu = nu;
		}
		if (best < 0 || nu > best_nu ||
		    (nu == best_nu && b->last_use < best_lu)) {
			best = i;
			best_nu = nu;
			best_lu = b->last_use;
		}
	}
	return pref >= 0 && pref_nu == best_nu ? pref : best;
}
