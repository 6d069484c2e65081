/* SPDX-License-Identifier: MIT */
/* Victim choice and the staging ring. */
#include "evict.h"
#include "tap.h"

static struct rt_blocks blocks;
static struct rt_ring ring;

/* Put blocks ids[i] into slot i with the given last-use stamps. */
static void load(const int64_t *ids, const uint64_t *lu, int n)
{
	for (int i = 0; i < n; i++) {
		rt_ring_fill(&ring, i, ids[i]);
		if (ids[i] >= 0) {
			blocks.b[ids[i]].last_use = lu[i];
			blocks.b[ids[i]].state = RT_B_RESIDENT;
			blocks.b[ids[i]].slot = i;
		}
	}
}

int main(void)
{
	/* Cyclic sweep over 5 layers; capacity 3. */
	static const uint32_t cyc[] = { 0, 1, 2, 3, 4 };
	struct rt_stream s;
	struct rt_victim_query q = {
		.policy = RT_EVICT_FURTHEST, .ring = &ring, .blocks = &blocks,
		.stream = &s, .horizon = 64, .needed_at = RT_NO_USE,
		.prefer = -1,
	};

	plan(15);
	rt_blocks_init(&blocks);
	for (int i = 0; i < 5; i++)
		rt_blocks_add(&blocks, 64, NULL, RT_TIER_FAR);
	rt_ring_init(&ring, 3, 64);

	/* Resident 0, 1, 2; next access is 3 (cursor at 3): uses ahead are
	 * 3, 4, 0, 1, 2 -> block 2 is needed furthest away. */
	rt_stream_init(&s, cyc, 5, true);
	s.pos = 3;
	load((int64_t[]){ 0, 1, 2 }, (uint64_t[]){ 1, 2, 3 }, 3);
	is_int(ring.s[rt_evict_choose(&q)].block, 2,
	       "cyclic stream: evicts the block with the furthest next use (the most recent)");

	q.policy = RT_EVICT_LRU;
	is_int(ring.s[rt_evict_choose(&q)].block, 0, "LRU evicts the least recently used");

	/* Blocks with no use in the horizon tie: LRU breaks the tie. */
	q.policy = RT_EVICT_FURTHEST;
	rt_stream_init(&s, (uint32_t[]){ 4, 4, 4 }, 3, false);
	load((int64_t[]){ 0, 1, 2 }, (uint64_t[]){ 5, 2, 9 }, 3);
	is_int(ring.s[rt_evict_choose(&q)].block, 1, "no next use for any: LRU fallback");

	blocks.b[1].pins = 1;
	is_int(ring.s[rt_evict_choose(&q)].block, 0, "a pinned block is never chosen");
	rt_stream_index(&s);
	is_int(ring.s[rt_evict_choose(&q)].block, 0, "...nor by the indexed search");
	blocks.b[1].pins = 0;

	/* Between equals the slot after the last fill wins, not the LRU one
	 * (blocks fetched in order then lie side by side); it never beats a
	 * better victim. Both searches: scanned and indexed. */
	for (int indexed = 0; indexed < 2; indexed++) {
		const char *how = indexed ? "indexed" : "scanned";

		rt_stream_init(&s, (uint32_t[]){ 4, 4, 4 }, 3, false);
		if (indexed)
			rt_stream_index(&s);
		q.prefer = 2;
		is_int(ring.s[rt_evict_choose(&q)].block, 2, "%s: ties: the preferred slot wins", how);
		rt_stream_init(&s, (uint32_t[]){ 4, 2, 4 }, 3, false);
		if (indexed)
			rt_stream_index(&s);
		is_int(ring.s[rt_evict_choose(&q)].block, 1,
		       "%s: a preferred slot needed sooner loses to the furthest", how);
		rt_stream_fini(&s);
	}
	q.prefer = -1;

	/* Prefetch guard: fetching 3 (needed 2 ahead) may not evict 1 (needed
	 * 1 ahead) even though LRU alone would pick it. */
	q.policy = RT_EVICT_LRU;
	rt_stream_init(&s, (uint32_t[]){ 0, 1, 3, 2 }, 4, false);
	q.needed_at = 2;
	is_int(ring.s[rt_evict_choose(&q)].block, 2,
	       "prefetch only evicts a block needed later than the incoming one");
	q.policy = RT_EVICT_FURTHEST;
	rt_stream_init(&s, (uint32_t[]){ 0, 1, 2, 3 }, 4, false);
	q.needed_at = 1;
	is_int(ring.s[rt_evict_choose(&q)].block, 2, "...and picks the furthest of those");
	q.needed_at = 3;
	is_int(rt_evict_choose(&q), -1, "nothing needed later: no victim, no prefetch");
	q.needed_at = RT_NO_USE;

	/* A free slot wins over any victim. */
	rt_ring_clear(&ring, 1);
	blocks.b[1].state = RT_B_HOME;
	is_int(rt_evict_choose(&q), 1, "a free slot is taken first");
	rt_ring_clear(&ring, 2);
	q.prefer = 2;
	is_int(rt_evict_choose(&q), 2, "...the preferred one of two free slots");
	q.prefer = -1;
	rt_ring_fill(&ring, 2, 2);

	/* Ring order: oldest fill first, i.e. rotation through the slots. */
	q.policy = RT_EVICT_RING;
	rt_ring_fill(&ring, 1, 3);
	is_int(rt_evict_choose(&q), 0, "ring policy rotates: slot 0 was filled first");

	rt_ring_fini(&ring);
	rt_blocks_fini(&blocks);
	return done_testing();
}
