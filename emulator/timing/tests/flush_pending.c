// SPDX-License-Identifier: MIT
/* Flushes waiting for a translation: applied by area, at the right
 * physical lines, once; the oldest area given up when all are taken. */
#include <stdbool.h>
#include <stdlib.h>

#include "flush_pending.h"
#include "tap.h"

static uint64_t got[8192];
static int ngot;

static void note(uint64_t pa, void *ctx)
{
	(void)ctx;
	if (ngot < 8192)
		got[ngot++] = pa;
}

int main(void)
{
	struct flush_pending *p = calloc(1, sizeof(*p));
	const uint64_t v = 0x7ffff7a00000ull, pa = 0x110000000ull;
	bool right = true;

	plan(6);
	/* a reader invalidates a 256 KiB block 1 MiB into the area */
	for (uint64_t off = 1 << 20; off < (1 << 20) + (256 << 10); off += 64)
		fp_add(p, v + off);
	fp_add(p, v + (2 << 20));	/* the next area */
	ok(fp_take(p, v + (5 << 20), pa, note, NULL) == 0 && ngot == 0,
	   "an access elsewhere takes nothing");
	/* the block's first load, at its start */
	ok(fp_take(p, v + (1 << 20) + 8, pa + (1 << 20) + 8, note, NULL) == 4096,
	   "the first access of the area takes all 4096 lines of the block");
	for (int i = 0; i < ngot; i++)
		right &= got[i] == pa + (1 << 20) + (uint64_t)i * 64;
	ok(right, "each at its physical line, in order");
	ok(fp_take(p, v + (1 << 20), pa + (1 << 20), note, NULL) == 0,
	   "taken once");
	ngot = 0;
	ok(fp_take(p, v + (2 << 20) + 4096, pa + (2 << 20) + 4096, note, NULL) == 1 &&
	   got[0] == pa + (2 << 20), "the next area's line from its own access");
	for (uint64_t i = 0; i <= FP_AREAS; i++)
		fp_add(p, v + (i << 21) + 64 * i);
	ok(p->dropped == 1 && p->used == FP_AREAS &&
	   fp_take(p, v, pa, note, NULL) == 0,
	   "%d areas wait at most: the oldest one's line given up and counted",
	   FP_AREAS);
	free(p);
	return done_testing();
}
