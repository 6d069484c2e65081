/* SPDX-License-Identifier: MIT */
/* Hot/cold classification and its hysteresis (classify.c). */
#include <stdlib.h>

#include "classify.h"
#include "tap.h"

#define N 1000

static uint32_t pro[N], dem[N];
static size_t np, nd;

static int contains(const uint32_t *v, size_t n, uint32_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

/* xorshift: the same sequence on every machine */
static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* Hot units that end up fast after 10 epochs in which the first 10% of
 * the units take 90% of 10 N observations, each standing for @weight. */
static int skewed(const struct rt_class_params *p, float weight)
{
	struct rt_classifier c;
	int good = 0;

	rt_class_init(&c, p, N, N / 10);
	for (uint32_t u = N - N / 10; u < N; u++)
		rt_class_set_fast(&c, u, true);
	for (int e = 0; e < 10; e++) {
		/* weight 1: the same as a count of one (rt_class_touch) */
		for (int k = 0; k < 10 * N; k++)
			rt_class_sample(&c, rnd(10) ? rnd(N / 10) : rnd(N), weight);
		rt_class_epoch(&c, pro, &np, dem, &nd, N);
	}
	for (uint32_t u = 0; u < N / 10; u++)
		good += c.fast[u];
	rt_class_fini(&c);
	return good;
}

int main(void)
{
	struct rt_class_params p;
	struct rt_classifier c;
	int good;
	uint64_t moves;

	plan(14);
	rt_class_params_default(&p);

	/* Free room is filled with whatever was touched. */
	rt_class_init(&c, &p, 100, 10);
	for (uint32_t u = 0; u < 5; u++)
		rt_class_touch(&c, u, 4);
	rt_class_epoch(&c, pro, &np, dem, &nd, N);
	ok(np == 5 && nd == 0 && c.in_fast == 5, "free room: 5 touched units promoted, none demoted");
	rt_class_fini(&c);

	/* A hot set displaces a cold one. */
	rt_class_init(&c, &p, 100, 10);
	for (uint32_t u = 50; u < 60; u++)
		rt_class_set_fast(&c, u, true);
	for (uint32_t u = 0; u < 10; u++)
		rt_class_touch(&c, u, 100);
	rt_class_epoch(&c, pro, &np, dem, &nd, N);
	good = np == 10 && nd == 10;
	for (uint32_t u = 0; u < 10; u++)
		good &= contains(pro, np, u) && contains(dem, nd, 50 + u);
	ok(good, "10 hot units in, the 10 cold fast ones out");
	is_int(c.in_fast, 10, "the fast tier stays at its capacity");

	/* Dwell: just moved, they stay a while even when the heat moves on. */
	for (uint32_t u = 50; u < 60; u++)
		rt_class_touch(&c, u, 1000);
	rt_class_epoch(&c, pro, &np, dem, &nd, N);
	ok(np == 0 && nd == 0, "units moved last epoch do not move back at once (dwell %u)", p.dwell);
	rt_class_epoch(&c, pro, &np, dem, &nd, N);
	ok(np == 10 && nd == 10, "after the dwell the new hot set comes in");
	rt_class_fini(&c);

	/* Within the margin nothing moves, whatever the counts. */
	rt_class_init(&c, &p, 2, 1);
	rt_class_set_fast(&c, 0, true);
	moves = 0;
	for (int e = 0; e < 20; e++) {
		rt_class_touch(&c, 0, e % 2 ? 100 : 90);
		rt_class_touch(&c, 1, e % 2 ? 90 : 110);
		rt_class_epoch(&c, pro, &np, dem, &nd, N);
		moves += np;
	}
	is_int(moves, 0, "two units trading a 10-20%% lead never swap (margin %.0f%%)", p.margin * 100);
	rt_class_fini(&c);

	/* Clear lead but few samples: noise, not heat. */
	ok(!rt_class_worth(&p, 6, 2), "6 samples vs 2 is within noise at z=%.0f", p.z);
	ok(rt_class_worth(&p, 60, 20), "60 vs 20 is not");

	/* Uniform random access: nothing is worth moving. */
	rt_class_init(&c, &p, N, N / 4);
	for (uint32_t u = 0; u < N / 4; u++)
		rt_class_set_fast(&c, u, true);
	moves = 0;
	for (int e = 0; e < 30; e++) {
		for (int k = 0; k < 10 * N; k++)
			rt_class_touch(&c, rnd(N), 1);
		rt_class_epoch(&c, pro, &np, dem, &nd, N);
		moves += np;
	}
	ok(moves <= N / 100, "uniform access over 30 epochs: %llu moves of %u units",
	   (unsigned long long)moves, N);
	rt_class_fini(&c);

	/*
	 * Uniform access seen through a 1-in-16 sample (GUPS's hints): few
	 * observations per unit and epoch, each weighing 16. As counts they
	 * looked like clear leads (a unit sampled twice scored 32 against
	 * 0), and GUPS's pages moved back and forth: 46 MiB each way for a
	 * 4 MiB table.
	 */
	rt_class_init(&c, &p, N, N / 4);
	for (uint32_t u = 0; u < N / 4; u++)
		rt_class_set_fast(&c, u, true);
	moves = 0;
	for (int e = 0; e < 2000; e++) {
		for (int k = 0; k < N / 20; k++)
			rt_class_sample(&c, rnd(N), 16);
		rt_class_epoch(&c, pro, &np, dem, &nd, N);
		moves += np;
	}
	ok(moves <= N / 100, "uniform access sampled 1 in 16 over 2000 epochs: %llu moves of %u units",
	   (unsigned long long)moves, N);
	rt_class_fini(&c);

	/* Skewed access (the first 10% of units take 90% of accesses): the
	 * hot set ends up in the fast tier, counted or sampled 1 in 16 (as
	 * many observations either way). */
	good = skewed(&p, 1);
	ok(good >= N / 10 - 2, "skewed access: %d of the %u hot units are fast", good, N / 10);
	good = skewed(&p, 16);
	ok(good >= N / 10 - 2, "skewed access sampled 1 in 16: %d of the %u hot units are fast",
	   good, N / 10);

	/* The rate limit bounds promotions per epoch. */
	p.max_moves = 7;
	rt_class_init(&c, &p, 100, 50);
	for (uint32_t u = 0; u < 100; u++)
		rt_class_touch(&c, u, 10);
	rt_class_epoch(&c, pro, &np, dem, &nd, N);
	is_int(np, 7, "max_moves = 7: 7 promotions in one epoch");
	rt_class_epoch(&c, pro, &np, dem, &nd, 3);
	is_int(np, 3, "and the caller's room (3) bounds it too");
	rt_class_fini(&c);
	return done_testing();
}
