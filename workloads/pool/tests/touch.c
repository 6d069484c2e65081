/* SPDX-License-Identifier: MIT */
/*
 * Per-page accounting (pw_track, pw_touch) at 64x tier-kv's data: one
 * region per KV block, 32768 of them, tracked in no particular address
 * order. Before, past 512 regions the run failed ("more than 512 data
 * regions to track") and tier-kv-large reported every policy as failed.
 * Every touch must land on its own region's page, and nowhere else.
 */
#include "pw.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

#define NREG 32768
#define PAGES 4		/* a KV block at 64x: 16 KiB */
#define PG 4096

static struct pw w;

int main(void)
{
	char *arena = malloc((size_t)2 * NREG * PAGES * PG);
	int *order = malloc(NREG * sizeof(*order));
	long wrong = 0, total = 0, want_total = 0;

	plan(4);
	if (!arena || !order)
		return 1;
	w.ok = true;
	/* every other slot of the arena, in shuffled order: gaps between
	 * regions, and addresses that belong to no region */
	srand(3);
	for (int i = 0; i < NREG; i++)
		order[i] = i;
	for (int i = NREG - 1; i > 0; i--) {
		int j = rand() % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (int i = 0; i < NREG; i++)
		pw_track(&w, arena + (size_t)2 * order[i] * PAGES * PG, PAGES * PG);
	ok(w.ok && w.nreg == NREG, "%d regions tracked (%d)", NREG, w.nreg);

	/* region r (tracked r-th) gets r % 7 + 1 touches on page r % PAGES */
	for (int r = 0; r < NREG; r++) {
		for (int k = 0; k <= r % 7; k++)
			pw_touch(&w, w.reg[r].base + (size_t)(r % PAGES) * PG + 100, 8);
		want_total += r % 7 + 1;
	}
	for (int i = 0; i < NREG; i++)	/* the gaps: no region's */
		pw_touch(&w, arena + (size_t)(2 * i + 1) * PAGES * PG + 5, 8);
	for (int r = 0; r < NREG; r++)
		for (int pg = 0; pg < PAGES; pg++) {
			uint32_t want = pg == r % PAGES ? (uint32_t)(r % 7 + 1) : 0;

			total += w.reg[r].use[pg];
			wrong += w.reg[r].use[pg] != want;
		}
	is_int(wrong, 0, "every touch counted on its own region's page");
	is_int(total, want_total, "no touch lost, none counted twice");
	/* a touch across a page boundary counts both pages (region 4: its
	 * 5 touches went to page 0) */
	pw_touch(&w, w.reg[4].base + PG - 4, 8);
	ok(w.reg[4].use[0] == 6 && w.reg[4].use[1] == 1,
	   "a touch across two pages counts on both (%u, %u)", w.reg[4].use[0], w.reg[4].use[1]);
	return done_testing();
}
