// SPDX-License-Identifier: MIT
#include "model_holders.h"

#include <string.h>

static void count_level(const struct tm_host_mem *h, const struct mc_level *l,
			uint32_t *counts)
{
	for (uint64_t s = 0; s < l->sets; s++) {
		const uint32_t *tags = tags_of(l->mem + s * l->block);

		for (uint32_t w = 0; w < l->ways; w++) {
			struct mc_ref r = { .index = s,
					    .tag = __atomic_load_n(&tags[w], __ATOMIC_RELAXED) };

			if (r.tag)
				counts[tm_hold_bucket(h, mc_ref_line(l, &r))]++;
		}
	}
}

void tm_hold_recount(struct tm_host_mem *h, struct tm_cpu_mem *c)
{
	uint32_t *now = c->held_scratch, *was = c->held;

	/* takes from here on make the new counts high again */
	__atomic_store_n(&c->held_high, false, __ATOMIC_SEQ_CST);
	memset(now, 0, TM_HOLD_BUCKETS * sizeof(*now));
	count_level(h, &c->l1, now);
	count_level(h, &c->l2, now);
	for (uint32_t b = 0; b < TM_HOLD_BUCKETS; b++)
		if (was[b] && !now[b] && c->bit)
			__atomic_fetch_and(&h->holders[b], ~c->bit, __ATOMIC_RELEASE);
	c->held = now;
	c->held_scratch = was;
	c->recount_at = c->st.l2_miss + TM_HOLD_RECOUNT_MISSES;
}

void tm_hold_join(struct tm_host_mem *h, struct tm_cpu_mem *c)
{
	for (uint32_t b = 0; b < TM_HOLD_BUCKETS; b++)
		if (c->held[b])
			__atomic_fetch_or(&h->holders[b], c->bit, __ATOMIC_SEQ_CST);
}
