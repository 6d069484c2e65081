/* SPDX-License-Identifier: MIT */
/* Hot/cold classification and its hysteresis (classify.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* The plan an epoch must make with no free room, worked out the plain way
 * from the scores as they stand after the fold: every movable unit sorted
 * (slow ones hottest first, fast ones coldest first, the lower number on
 * a tie), pairs taken while each is worth a swap with the documented
 * noise bound z = max(p.z, sqrt(2 ln(slow x fast))). */
static const float *ref_key;
static int ref_desc;

static int ref_cmp(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	if (ref_key[a] != ref_key[b])
		return (ref_desc ? ref_key[a] > ref_key[b] : ref_key[a] < ref_key[b]) ? -1 : 1;
	return (a > b) - (a < b);
}

static void ref_plan(const struct rt_classifier *c, size_t max, uint32_t *rp, size_t *rnp,
		     uint32_t *rd, size_t *rnd_)
{
	static uint32_t slow[N], fast[N];
	size_t ns = 0, nf = 0, limit = c->p.max_moves ? c->p.max_moves : c->n, i = 0, j = 0;
	uint32_t epoch = c->epoch + 1;
	double pairs, z;

	for (uint32_t u = 0; u < c->n; u++) {
		if (epoch - c->moved[u] < c->p.dwell)
			continue;
		if (c->fast[u])
			fast[nf++] = u;
		else if (c->score[u] >= (float)c->p.min_score)
			slow[ns++] = u;
	}
	pairs = (double)(ns ? ns : 1) * (double)(nf ? nf : 1);
	z = sqrt(2.0 * log(pairs > 1 ? pairs : 1));
	if (z < c->p.z)
		z = c->p.z;
	ref_key = c->score;
	ref_desc = 1;
	qsort(slow, ns, sizeof(*slow), ref_cmp);
	ref_desc = 0;
	qsort(fast, nf, sizeof(*fast), ref_cmp);
	if (limit > max)
		limit = max;
	*rnp = *rnd_ = 0;
	while (i < ns && i < limit && j < nf &&
	       rt_class_worth_var(&c->p, c->score[slow[i]], c->score[fast[j]],
				  c->var[slow[i]] + c->var[fast[j]], z)) {
		rd[(*rnd_)++] = fast[j++];
		rp[(*rnp)++] = slow[i++];
	}
}

/*
 * A drifting skewed stream (the hot tenth of the units moves on every 10
 * epochs) over a full fast tier: counts folded in one pass make the same
 * plans as the same counts touched one by one, and both make the plan
 * worked out the plain way. Returns the epochs that moved anything, or -1
 * at the first difference; @most: the most swaps in one epoch.
 */
static int drift_plans(size_t *most)
{
	static uint32_t count[N], rp[N], rd[N], pro2[N], dem2[N];
	struct rt_class_params p;
	struct rt_classifier a, b;
	size_t rnp, rnd_, np2, nd2;
	int moving = 0;

	rt_class_params_default(&p);
	p.decay = 0.9;
	rt_class_init(&a, &p, N, N / 10);
	rt_class_init(&b, &p, N, N / 10);
	for (uint32_t u = 0; u < N / 10; u++) {
		rt_class_set_fast(&a, u, true);
		rt_class_set_fast(&b, u, true);
	}
	for (int e = 0; e < 100; e++) {
		uint32_t hot = (uint32_t)(e / 10) * (N / 10);

		for (int k = 0; k < 4 * N; k++) {
			/* graded heat (a product of two uniforms) so that many
			 * pairs lie near the margin, then sharp jumps (many
			 * swaps in one epoch) */
			uint32_t u = rnd(4) ? (hot + (e < 50 ? rnd(N / 5) * rnd(N / 5) / (N / 5)
							     : rnd(N / 10))) % N : rnd(N);

			count[u]++;
			rt_class_touch(&a, u, 1);
		}
		rt_class_fold_counts(&b, count);
		ref_plan(&b, N, rp, &rnp, rd, &rnd_);
		rt_class_epoch(&a, pro, &np, dem, &nd, N);
		rt_class_epoch(&b, pro2, &np2, dem2, &nd2, N);
		if (np != np2 || nd != nd2 || memcmp(pro, pro2, np * sizeof(*pro)) ||
		    memcmp(dem, dem2, nd * sizeof(*dem)) || np != rnp || nd != rnd_ ||
		    memcmp(pro, rp, np * sizeof(*pro)) || memcmp(dem, rd, nd * sizeof(*dem))) {
			diag("epoch %d: touched %zu/%zu, counted %zu/%zu, plain %zu/%zu moves",
			     e, np, nd, np2, nd2, rnp, rnd_);
			moving = -1;
			break;
		}
		for (uint32_t u = 0; u < N; u++)
			if (count[u])
				moving = -1;
		if (moving < 0) {
			diag("epoch %d: counts not zeroed by the fold", e);
			break;
		}
		moving += np > 0;
		*most = np > *most ? np : *most;
	}
	rt_class_fini(&a);
	rt_class_fini(&b);
	return moving;
}

int main(void)
{
	struct rt_class_params p;
	struct rt_classifier c;
	int good;
	uint64_t moves;
	size_t most = 0;

	plan(16);
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

	/* With no free room only the units that could pair are sorted: the
	 * plans are still those of sorting every movable unit. */
	/* Equal heat: the lower numbers first, as when every unit is sorted. */
	rt_class_params_default(&p);
	rt_class_init(&c, &p, 100, 10);
	for (uint32_t u = 90; u < 100; u++)
		rt_class_set_fast(&c, u, true);
	for (uint32_t u = 0; u < 90; u++)
		rt_class_touch(&c, u, 100);
	rt_class_epoch(&c, pro, &np, dem, &nd, N);
	good = np == 10;
	for (uint32_t u = 0; u < 10; u++)
		good &= contains(pro, np, u);
	ok(good, "90 units equally hot for 10 places: units 0-9 promoted (%zu moves)", np);
	rt_class_fini(&c);

	good = drift_plans(&most);
	ok(good >= 5 && most > 16, "a drifting hot set over a full fast tier, 100 epochs: every "
	   "plan the plain one, counted or touched (%d epochs moved units, at most %zu at once)",
	   good, most);
	return done_testing();
}
