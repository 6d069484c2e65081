/* SPDX-License-Identifier: MIT */
/* Block table storage. */
#include <stdlib.h>
#include <string.h>

#include "block.h"

void rt_blocks_init(struct rt_blocks *t)
{
	memset(t, 0, sizeof(*t));
}

void rt_blocks_fini(struct rt_blocks *t)
{
	free(t->b);
	memset(t, 0, sizeof(*t));
}

int64_t rt_blocks_add(struct rt_blocks *t, size_t size, void *home,
		      enum rt_tier_kind home_tier)
{
	struct rt_block *b;

	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 64;
		void *nb = realloc(t->b, cap * sizeof(*t->b));

		if (!nb)
			return -1;
		t->b = nb;
		t->cap = cap;
	}
	b = &t->b[t->n];
	memset(b, 0, sizeof(*b));
	b->id = t->n;
	b->size = size;
	b->home = home;
	b->home_tier = home_tier;
	b->state = RT_B_HOME;
	b->slot = -1;
	return t->n++;
}
