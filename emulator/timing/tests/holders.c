// SPDX-License-Identifier: MIT
/*
 * The snoop filter (model_holders.h): each core's count of its L1 and L2
 * lines per bucket of pages is exact while nobody else takes lines from
 * it, its bit in the host's holders is set exactly where a count is not
 * zero, a core whose bit is clear is not looked at, and after another
 * core took lines away the counts are high (never low) until the owner
 * counts again, which makes them exact once more.
 */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "model_holders.h"
#include "shm_links.h"

#define PAGES 96		/* of 64 lines: 384 KiB, more than an L2 */
#define BASE (0x8000ull << 6)	/* the first line */
#define TOUCHES 200000

/* The lines of @c's L1 and L2 per bucket, as they really are. */
static void true_counts(const struct tm_host_mem *h, const struct tm_cpu_mem *c,
			uint32_t *counts)
{
	memset(counts, 0, TM_HOLD_BUCKETS * sizeof(*counts));
	/* and the pages either side, where prefetches run on */
	for (uint64_t l = BASE - 128; l < BASE + (PAGES + 2) * 64ull; l++)
		counts[tm_hold_bucket(h, l)] += mc_contains(&c->l1, l) +
						mc_contains(&c->l2, l);
}

/* Buckets where @c's count differs from the truth (@high: where it is
 * below it), and where its bit disagrees with its count. */
static int count_errors(const struct tm_host_mem *h, const struct tm_cpu_mem *c,
			const uint32_t *truth, bool high, int *bit_errors)
{
	int bad = 0;

	*bit_errors = 0;
	for (uint32_t b = 0; b < TM_HOLD_BUCKETS; b++) {
		bad += high ? c->held[b] < truth[b] : c->held[b] != truth[b];
		*bit_errors += !!(h->holders[b] & c->bit) != (c->held[b] > 0);
	}
	return bad;
}

/*
 * A stream to the end of a page, on into another page that is not the
 * next physical one (what moves fetched lines, tm_mem_page_hop): 64 of
 * @c's touches.
 */
static double hop(struct tm_host_mem *h, struct tm_cpu_mem *c, double now,
		  unsigned int *seed)
{
	uint64_t from = BASE + (uint64_t)(rand_r(seed) % (PAGES - 1)) * 64;
	uint64_t to = BASE + (uint64_t)(rand_r(seed) % PAGES) * 64;

	for (uint64_t l = from + 32; l < from + 64; l++)
		now = tm_mem_access(h, c, l << 6, false, now + 1);
	tm_mem_page_hop(h, c, from + 64, to, 64, now);
	for (uint64_t l = to; l < to + 32; l++)
		now = tm_mem_access(h, c, l << 6, false, now + 1);
	return now;
}

/* @n random loads and stores of @c over the pages, some non-temporal,
 * some flushed, some hopping pages, in runs (streams) and alone */
static double mix(struct tm_host_mem *h, struct tm_cpu_mem *c, int n,
		  double now, unsigned int *seed)
{
	for (int i = 0; i < n; i++) {
		uint64_t line = BASE + (uint64_t)rand_r(seed) % (PAGES * 64);
		int kind = rand_r(seed) % 100, run = 1 + rand_r(seed) % 40;

		if (kind >= 95) {
			now = hop(h, c, now, seed);
			i += 63;
			continue;
		}

		for (int k = 0; k < run && line < BASE + PAGES * 64; k++, line++) {
			uint64_t pa = line << 6;

			if (kind < 3)
				now = tm_mem_store_nt(h, c, pa, now + 1);
			else if (kind < 5)
				now = tm_mem_flush(h, c, pa, now + 1);
			else
				now = tm_mem_access(h, c, pa, kind < 40, now + 1);
		}
		i += run - 1;
	}
	return now;
}

int main(void)
{
	struct tm_mem_cfg cfg = {
		.line_bytes = 64, .l1_bytes = 32 << 10, .l1_ways = 8,
		.l2_bytes = 256 << 10, .l2_ways = 16, .llc_bytes = 1 << 20,
		.llc_ways = 16, .mlp = 16, .prefetch_distance = 16,
		.snoop_ns = 40,
	};
	struct mf_target dram = { .name = "local", .path = "local",
				  .media_ns = { 90, 90 } };
	struct mf_fabric fab = { .ntargets = 1, .targets = &dram,
				 .local = &dram };
	struct tm_host_mem h;
	struct tm_cpu_mem a, b;
	struct tm_shared *shm;
	uint32_t *truth = calloc(TM_HOLD_BUCKETS, sizeof(*truth));
	unsigned int seed = 7;
	char *err = NULL;
	double now = 0;
	int bad, bits;
	uint32_t bucket;
	uint64_t line, sn0;

	plan(10);
	shm = tm_shared_open(NULL, &err);
	dram.res[dram.nres++] = tm_shared_res(shm, "dram", 40, 30, 0);
	tm_host_mem_init(&h, &cfg, &fab);
	tm_cpu_mem_init(&a, &h);
	tm_cpu_mem_init(&b, &h);
	a.who = 0, b.who = 1;

	/* lines a core held before it joined the host are in its bits too */
	now = mix(&h, &a, 2000, now, &seed);
	tm_host_mem_add_core(&h, &a);
	tm_host_mem_add_core(&h, &b);
	true_counts(&h, &a, truth);
	bad = count_errors(&h, &a, truth, false, &bits);
	ok(bad == 0 && bits == 0,
	   "a core's lines before it joined: counts exact (%d wrong), bits "
	   "where counts are (%d wrong)", bad, bits);

	/* one core alone: its own fills, evictions, nt stores and flushes */
	now = mix(&h, &a, TOUCHES, now, &seed);
	true_counts(&h, &a, truth);
	bad = count_errors(&h, &a, truth, false, &bits);
	ok(bad == 0 && bits == 0 && !a.held_high,
	   "%d touches by one core: counts exact (%d buckets wrong), bits where "
	   "counts are (%d wrong)", TOUCHES, bad, bits);

	/* two cores over the same pages: stores take lines from each other */
	for (int round = 0; round < 20; round++) {
		now = mix(&h, &a, TOUCHES / 20, now, &seed);
		now = mix(&h, &b, TOUCHES / 20, now, &seed);
	}
	ok(a.held_high && b.held_high,
	   "each core's stores took lines the other held: both counts marked high");
	true_counts(&h, &a, truth);
	bad = count_errors(&h, &a, truth, true, &bits);
	ok(bad == 0 && bits == 0,
	   "taken from, a core's counts are high, never low (%d buckets low), "
	   "its bits where its counts are (%d wrong)", bad, bits);

	tm_hold_recount(&h, &a);
	bad = count_errors(&h, &a, truth, false, &bits);
	ok(bad == 0 && bits == 0 && !a.held_high,
	   "counted again: exact (%d buckets wrong, %d bits wrong)", bad, bits);

	/* a store alone (no flush) that takes a line from a marks a's counts */
	line = BASE + 5;
	now = tm_mem_access(&h, &a, line << 6, false, now + 1);
	now = tm_mem_access(&h, &b, line << 6, true, now + 1);
	ok(a.held_high && !mc_contains(&a.l1, line) && !mc_contains(&a.l2, line),
	   "b's store took the line a had read: a's counts marked high");

	/* the recount happens by itself, at an L2 miss, once it is due */
	b.recount_at = 0;
	now = mix(&h, &b, 2000, now, &seed);
	true_counts(&h, &b, truth);
	bad = count_errors(&h, &b, truth, false, &bits);
	ok(bad == 0 && !b.held_high && b.recount_at > b.st.l2_miss,
	   "a core taken from counts again at its next L2 miss when due (%d "
	   "buckets wrong after)", bad);

	/* lines nobody else touches: the other core's bit stays clear */
	for (line = 0x40000ull << 6; line < (0x40000ull << 6) + 4096; line++)
		now = tm_mem_access(&h, &a, line << 6, false, now + 1);
	bucket = tm_hold_bucket(&h, 0x40000ull << 6);
	ok((h.holders[bucket] & a.bit) && !(h.holders[bucket] & b.bit),
	   "a page only one core read: its bit set, the other's clear");

	/*
	 * The filter is what a miss consults: a line in b's L2 whose bucket
	 * has b's bit cleared is not found there (a's read comes from memory),
	 * and with the bit back it is (a snoop hit).
	 */
	line = 0x60000ull << 6;
	now = tm_mem_access(&h, &b, line << 6, true, now + 1);
	bucket = tm_hold_bucket(&h, line);
	h.holders[bucket] &= ~b.bit;
	sn0 = a.st.snoop_hits;
	now = tm_mem_access(&h, &a, line << 6, false, now + 1);
	ok(a.st.snoop_hits == sn0,
	   "with b's bit clear, a's miss does not look in b's caches");
	now = tm_mem_access(&h, &b, (line + 1) << 6, true, now + 1);
	h.holders[bucket] |= b.bit;
	sn0 = a.st.snoop_hits;
	now = tm_mem_access(&h, &a, (line + 1) << 6, false, now + 1);
	ok(a.st.snoop_hits == sn0 + 1,
	   "with it set, the miss is served from b's caches");

	free(truth);
	tm_cpu_mem_free(&a);
	tm_cpu_mem_free(&b);
	tm_host_mem_free(&h);
	return done_testing();
}
