/* SPDX-License-Identifier: MIT */
/*
 * libcxlpool on the build host: both tiers are node 0 (the host has no CXL
 * node), so placement is trivially right but the budget, the managed
 * pages' classification and moves (move_pages to node 0 succeeds), the
 * object cache with its helper racing the lookups, and streams all run
 * for real.
 */
#include <numaif.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cxlpool.h"
#include "tap.h"

#define ROWS 4096
#define ROW 128

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static struct cxlpool *open_pool(size_t budget, unsigned epoch_us)
{
	struct cxlpool_opts o;

	cxlpool_opts_default(&o);
	o.fast_node = 0;
	o.far_node = 0;
	o.fast_budget = budget;
	o.epoch_us = epoch_us;
	return cxlpool_open(&o);
}

static void test_budget(void)
{
	struct cxlpool *p = open_pool(64 * 1024, 1000000);
	struct cxlpool_stats st;
	void *a, *b, *c;

	a = cxlpool_alloc(p, 40 * 1024, CXLPOOL_FAST);
	b = cxlpool_alloc(p, 40 * 1024, CXLPOOL_FAST);
	c = cxlpool_alloc(p, 1 << 20, CXLPOOL_FAR);
	ok(a && !b && c, "fast allocations stop at the budget, far ones do not");
	cxlpool_stats(p, &st);
	ok(st.fast_used == 40 * 1024 && st.far_used == 1 << 20,
	   "the figures count placed bytes (%llu fast, %llu far)",
	   (unsigned long long)st.fast_used, (unsigned long long)st.far_used);
	cxlpool_free(p, a);
	b = cxlpool_alloc(p, 64 * 1024, CXLPOOL_FAST);
	ok(b != NULL, "freeing gives the budget back");
	cxlpool_close(p);
}

static void test_managed(void)
{
	struct cxlpool *p = open_pool(16 * 4096, 1000000);
	struct cxlpool_stats st;
	char *m = cxlpool_alloc(p, 64 * 4096, CXLPOOL_MANAGED);

	ok(m != NULL, "managed memory: 64 pages, 16 of them fast by budget");
	/* Pages 40..47 hot, the rest untouched: 8 of the first 16 must go. */
	for (int e = 0; e < 3; e++) {
		for (int k = 0; k < 100; k++)
			cxlpool_hint(p, m + 40 * 4096, 8 * 4096, 1);
		cxlpool_rebalance(p);
	}
	cxlpool_stats(p, &st);
	ok(st.promoted == 8 * 4096 && st.demoted == 8 * 4096,
	   "8 hot pages promoted, 8 cold ones demoted (%llu / %llu bytes)",
	   (unsigned long long)st.promoted, (unsigned long long)st.demoted);
	ok(st.fast_used == 16 * 4096, "the budget still holds");
	cxlpool_close(p);
}

/*
 * The helper sleeps epoch_us between epochs, longer while they move
 * nothing: 100 ms at a 20 ms period is at most 5 of them, here 2 or 3
 * (20 + 40 ms, then 80). Its deadline once was on the wrong clock and it
 * ran thousands. A busy host may delay the helper, never make it run
 * early.
 */
static void test_epoch_period(void)
{
	struct cxlpool *p = open_pool(16 * 4096, 20000);
	char *m = cxlpool_alloc(p, 64 * 4096, CXLPOOL_MANAGED);
	struct cxlpool_stats st;

	usleep(100000);
	cxlpool_stats(p, &st);
	ok(m && st.epochs >= 1 && st.epochs <= 5,
	   "the helper ran %llu epochs in 100 ms at epoch_us 20000 (at most 5)",
	   (unsigned long long)st.epochs);
	cxlpool_close(p);
}

/* Rows hold their own number: any torn or stale copy shows. */
static void test_objects(void)
{
	struct cxlpool *p = open_pool(ROWS / 4 * ROW, 200);
	uint32_t *table = cxlpool_alloc(p, ROWS * ROW, CXLPOOL_FAR);
	struct cxlpool_objs *o;
	struct cxlpool_stats st;
	uint64_t bad = 0, hits0 = 0, acc0 = 0;

	for (uint32_t r = 0; r < ROWS; r++)
		for (uint32_t w = 0; w < ROW / 4; w++)
			table[r * (ROW / 4) + w] = r * 1000 + w;
	o = cxlpool_objs_open(p, table, ROW, ROWS, ROWS / 4 * ROW);
	ok(o != NULL, "an object cache of a quarter of the rows");
	/* 90% of lookups on 5% of the rows, while the helper moves rows
	 * every 200 us. */
	for (int round = 0; round < 400; round++) {
		if (round == 200) {
			cxlpool_stats(p, &st);
			hits0 = st.hits;
			acc0 = st.accesses;
		}
		cxlpool_objs_begin(o);
		for (int k = 0; k < 256; k++) {
			uint32_t r = rnd(10) ? rnd(ROWS / 20) * 20 : rnd(ROWS);
			const uint32_t *row = cxlpool_obj(o, r);

			for (uint32_t w = 0; w < ROW / 4; w++)
				bad += row[w] != r * 1000 + w;
		}
		cxlpool_objs_end(o);
		usleep(50);
	}
	cxlpool_stats(p, &st);
	is_int(bad, 0, "every word of every row read right while rows moved");
	ok(st.epochs > 10 && st.copied > 0, "the helper ran %llu epochs and copied %llu bytes in",
	   (unsigned long long)st.epochs, (unsigned long long)st.copied);
	ok((double)(st.hits - hits0) / (double)(st.accesses - acc0) > 0.85,
	   "second half: %.1f%% of lookups served from the fast copies (90%% are of hot rows)",
	   100.0 * (double)(st.hits - hits0) / (double)(st.accesses - acc0));
	cxlpool_close(p);
}

static void test_stream(void)
{
	enum { NB = 8, BS = 64 * 1024 };
	struct cxlpool *p = open_pool(3 * BS, 1000000);
	struct cxlpool_stream *s;
	uint32_t order[3 * NB];
	struct cxlpool_stats st;
	uint64_t sum = 0, want = 0;
	uint32_t *home[NB];

	for (int b = 0; b < NB; b++) {
		home[b] = cxlpool_alloc(p, BS, CXLPOOL_FAR);
		for (int i = 0; i < BS / 4; i++)
			home[b][i] = (uint32_t)(b * 7 + i);
	}
	s = cxlpool_stream_open(p, BS, 3, 2);
	ok(s && !cxlpool_stream_open(p, BS, 1, 0), "a stream of 3 slots takes the whole budget");
	for (int b = 0; b < NB; b++)
		cxlpool_stream_block(s, home[b], BS);
	for (int k = 0; k < 3 * NB; k++)
		order[k] = (uint32_t)(k % NB);
	cxlpool_stream_order(s, order, 3 * NB, false);
	for (int k = 0; k < 3 * NB; k++) {
		uint32_t *blk = cxlpool_stream_get(s, order[k]);

		for (int i = 0; i < BS / 4; i++) {
			sum += blk[i];
			want += (uint64_t)(order[k] * 7 + i);
		}
		cxlpool_stream_put(s, order[k], false);
	}
	cxlpool_stream_close(s);
	cxlpool_stats(p, &st);
	ok(sum == want, "three sweeps through the stream read the right bytes");
	ok(st.pf_issued > 0 && st.pf_timely + st.pf_late + st.pf_useless == st.pf_issued,
	   "closed stream: %llu prefetches = %llu timely + %llu late + %llu useless",
	   (unsigned long long)st.pf_issued, (unsigned long long)st.pf_timely,
	   (unsigned long long)st.pf_late, (unsigned long long)st.pf_useless);
	ok(st.staged_in >= (uint64_t)3 * NB * BS - 3 * BS && st.mover_ns > 0,
	   "staged %llu bytes in, lanes busy %.2f ms", (unsigned long long)st.staged_in,
	   st.mover_ns / 1e6);
	cxlpool_close(p);
}

int main(void)
{
	struct cxlpool_tier t[CXLPOOL_MAX_TIERS];
	int n = cxlpool_tiers(t, CXLPOOL_MAX_TIERS);

	if (n <= 0)
		plan_skip_all("no NUMA sysfs on this host");
	plan(16);
	ok(t[0].kind == CXLPOOL_LOCAL && t[0].size > 0,
	   "tiers: node %d is local, %llu MiB", t[0].node,
	   (unsigned long long)(t[0].size >> 20));
	test_budget();
	test_managed();
	test_epoch_period();
	test_objects();
	test_stream();
	return done_testing();
}
