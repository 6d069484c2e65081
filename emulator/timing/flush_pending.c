// SPDX-License-Identifier: MIT
/* Flushes waiting for their area's translation (flush_pending.h). */
#include "flush_pending.h"

#include <string.h>

#define AREA_MASK ((1ull << FP_AREA_SHIFT) - 1)

static struct fp_area *find(struct flush_pending *p, uint64_t vbase)
{
	for (int i = 0; i < FP_AREAS; i++)
		if (p->a[i].vbase1 == vbase + 1)
			return &p->a[i];
	return NULL;
}

void fp_add(struct flush_pending *p, uint64_t vaddr)
{
	uint64_t vbase = vaddr & ~AREA_MASK;
	unsigned int line = (unsigned int)((vaddr & AREA_MASK) >> FP_LINE_SHIFT);
	struct fp_area *a = find(p, vbase);

	if (!a) {
		struct fp_area *oldest = &p->a[0];

		for (int i = 0; i < FP_AREAS && !a; i++)
			if (!p->a[i].vbase1)
				a = &p->a[i];
			else if (p->a[i].stamp < oldest->stamp)
				oldest = &p->a[i];
		if (!a) {
			a = oldest;
			for (unsigned int w = 0; w < FP_LINES / 64; w++)
				p->dropped += (uint64_t)__builtin_popcountll(a->bits[w]);
			p->used--;
		}
		memset(a, 0, sizeof(*a));
		a->vbase1 = vbase + 1;
		a->stamp = ++p->clock;
		p->used++;
	}
	a->bits[line / 64] |= 1ull << (line % 64);
}

int fp_take(struct flush_pending *p, uint64_t vaddr, uint64_t pa,
	    void (*fn)(uint64_t pa, void *ctx), void *ctx)
{
	uint64_t vbase = vaddr & ~AREA_MASK;
	uint64_t pbase = pa - (vaddr - vbase);
	struct fp_area *a = p->used ? find(p, vbase) : NULL;
	int n = 0;

	if (!a)
		return 0;
	for (unsigned int w = 0; w < FP_LINES / 64; w++)
		while (a->bits[w]) {
			unsigned int b = (unsigned int)__builtin_ctzll(a->bits[w]);

			a->bits[w] &= a->bits[w] - 1;
			fn(pbase + ((uint64_t)(w * 64 + b) << FP_LINE_SHIFT), ctx);
			n++;
		}
	a->vbase1 = 0;
	p->used--;
	return n;
}
