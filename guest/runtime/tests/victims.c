/* SPDX-License-Identifier: MIT */
/*
 * The victim index chooses what a pass over every slot chooses. The
 * runtime keeps its index while a workload runs (fills, pins, the cursor
 * passing blocks, deviations from the declared stream); before every
 * access the index's choice is checked against the pass for several
 * needed-at distances and preferred slots.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime.h"
#include "tap.h"

#define NBLOCKS 64
#define NSLOTS 9		/* not a power of two: the tree has empty leaves */
#define LEN 3000
#define BS 256

struct tally {
	long checked, differ, beyond, within, none;
};

static int pass_choice(struct runtime *rt, size_t needed_at, int prefer)
{
	struct rt_victim_query q = {
		.policy = RT_EVICT_FURTHEST, .ring = &rt->ring,
		.blocks = &rt->blocks, .stream = &rt->stream,
		.horizon = rt->cfg.horizon, .needed_at = needed_at,
		.prefer = prefer, .index = NULL,
	};

	return rt_evict_choose(&q);
}

static void check(struct runtime *rt, struct tally *t)
{
	static const size_t needed[] = { RT_NO_USE, 0, 2, 7, 20 };

	for (size_t k = 0; k < sizeof(needed) / sizeof(needed[0]); k++) {
		for (int prefer = -1; prefer < NSLOTS; prefer += 4) {
			int a = pass_choice(rt, needed[k], prefer);
			int b = rt_victims_choose(&rt->victims, rt->stream.pos,
						  needed[k], prefer);
			const struct rt_slot *s = a >= 0 ? &rt->ring.s[a] : NULL;

			t->checked++;
			if (a != b) {
				if (t->differ++ < 5)
					diag("pos %zu needed %zu prefer %d: pass %d index %d",
					     rt->stream.pos, needed[k], prefer, a, b);
			}
			if (!s)
				t->none++;
			else if (s->block >= 0 &&
				 rt_next_use(&rt->stream, (uint32_t)s->block,
					     rt->cfg.horizon) == RT_NO_USE)
				t->beyond++;
			else if (s->block >= 0)
				t->within++;
		}
	}
}

int main(void)
{
	static uint32_t ids[LEN];
	static char home[NBLOCKS][BS];
	struct shp_params fast = { 0, 0 };
	struct rt_backend be;
	struct runtime rt;
	struct shaper far;
	struct rt_config c;
	struct tally t = { 0 };
	uint32_t held = UINT32_MAX;

	plan(6);
	srand(7);
	/* Sessions over overlapping ranges of blocks: reuse near and far. */
	for (size_t i = 0; i < LEN; i++) {
		uint32_t base = (uint32_t)(i / 40 % 5) * 12;

		ids[i] = (base + (uint32_t)rand() % 16) % NBLOCKS;
	}
	rt_config_default(&c);
	c.nslots = NSLOTS;
	c.window = 3;
	c.slot_size = BS;
	c.horizon = 24;	/* short: blocks both within and beyond it */
	rt_host_backend_init(&be, NSLOTS * BS);
	shp_init(&far, &fast);
	if (rt_init(&rt, &be, &c, &far, NULL)) {
		printf("Bail out! rt_init failed\n");
		return 1;
	}
	for (int i = 0; i < NBLOCKS; i++)
		rt_add_block(&rt, BS, home[i], RT_TIER_FAR);
	rt_set_stream(&rt, ids, LEN, false);
	ok(rt.victims_live, "an indexed stream with furthest-next-use keeps the index");

	for (size_t i = 0; i < LEN; i++) {
		/* Mostly the declared order; sometimes a stray block, or a
		 * skip ahead (the cursor resyncs past several entries). */
		int r = rand() % 20;
		uint32_t id = r == 0 ? (uint32_t)rand() % NBLOCKS :
			      r == 1 && i + 3 < LEN ? ids[i + 3] : ids[i];

		check(&rt, &t);
		if (!rt_access(&rt, id))
			continue;
		/* Now and then hold a block pinned across the next access. */
		if (held != UINT32_MAX) {
			rt_release(&rt, held, false);
			held = UINT32_MAX;
		}
		if (rand() % 4 == 0)
			held = id;
		else
			rt_release(&rt, id, rand() % 3 == 0);
	}
	if (held != UINT32_MAX)
		rt_release(&rt, held, false);
	check(&rt, &t);
	diag("%ld choices: %ld beyond the horizon, %ld within, %ld none",
	     t.checked, t.beyond, t.within, t.none);
	is_int(t.differ, 0, "every one of %ld choices is the pass's", t.checked);
	ok(t.beyond > 100, "choices among blocks beyond the horizon (%ld)", t.beyond);
	ok(t.within > 100, "choices among blocks within it (%ld)", t.within);
	ok(t.none > 10, "no slot may be taken, for a block wanted sooner (%ld)", t.none);
	ok(rt.st.evictions > 500, "the workload evicted (%llu)",
	   (unsigned long long)rt.st.evictions);
	rt_flush(&rt);
	rt_fini(&rt);
	return 0;
}
