/* SPDX-License-Identifier: MIT */
/* Staging-slot ring; see rotation.h. */
#include <stdlib.h>

#include "rotation.h"

int rt_ring_init(struct rt_ring *r, int n, size_t slot_size)
{
	r->s = calloc(n > 0 ? n : 1, sizeof(*r->s));
	if (!r->s)
		return -1;
	r->n = n;
	r->slot_size = slot_size;
	r->stamp = 1;
	for (int i = 0; i < n; i++)
		r->s[i].block = -1;
	return 0;
}

void rt_ring_fini(struct rt_ring *r)
{
	free(r->s);
	r->s = NULL;
	r->n = 0;
}

void rt_ring_fill(struct rt_ring *r, int i, int64_t block)
{
	r->s[i].block = block;
	r->s[i].filled = r->stamp++;
}

void rt_ring_clear(struct rt_ring *r, int i)
{
	r->s[i].block = -1;
	r->s[i].filled = 0;
}

int rt_ring_next(const struct rt_ring *r,
		 int (*ok)(const struct rt_slot *, void *), void *arg)
{
	int best = -1;

	for (int i = 0; i < r->n; i++) {
		const struct rt_slot *s = &r->s[i];

		if (ok && !ok(s, arg))
			continue;
		if (s->block < 0)
			return i;
		if (best < 0 || s->filled < r->s[best].filled)
			best = i;
	}
	return best;
}
