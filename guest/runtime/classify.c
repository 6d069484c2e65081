/* SPDX-License-Identifier: MIT */
/* Hot/cold classification with hysteresis; see classify.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"

void rt_class_params_default(struct rt_class_params *p)
{
	p->decay = 0.5;
	p->margin = 0.25;
	p->z = 3.0;
	p->min_score = 1.0;
	p->dwell = 2;
	p->max_moves = 0;
}

int rt_class_init(struct rt_classifier *c, const struct rt_class_params *p,
		  uint32_t n, uint32_t capacity)
{
	memset(c, 0, sizeof(*c));
	c->p = *p;
	c->n = n;
	c->capacity = capacity;
	c->score = calloc(n ? n : 1, sizeof(*c->score));
	c->fresh = calloc(n ? n : 1, sizeof(*c->fresh));
	c->fast = calloc(n ? n : 1, sizeof(*c->fast));
	c->moved = calloc(n ? n : 1, sizeof(*c->moved));
	c->order = calloc(n ? n : 1, sizeof(*c->order));
	if (!c->score || !c->fresh || !c->fast || !c->moved || !c->order) {
		rt_class_fini(c);
		return -1;
	}
	/* Nothing has moved yet: dwell does not hold anything in place. */
	c->epoch = p->dwell;
	return 0;
}

void rt_class_fini(struct rt_classifier *c)
{
	free(c->score);
	free(c->fresh);
	free(c->fast);
	free(c->moved);
	free(c->order);
	memset(c, 0, sizeof(*c));
}

void rt_class_set_fast(struct rt_classifier *c, uint32_t unit, bool fast)
{
	if (unit >= c->n || c->fast[unit] == fast)
		return;
	c->fast[unit] = fast;
	c->in_fast += fast ? 1 : -1;
}

bool rt_class_worth(const struct rt_class_params *p, double hot, double cold)
{
	return rt_class_worth_z(p, hot, cold, p->z);
}

bool rt_class_worth_z(const struct rt_class_params *p, double hot, double cold,
		      double z)
{
	if (hot <= cold * (1.0 + p->margin))
		return false;
	return hot - cold > z * sqrt(hot + cold);
}

/*
 * The hottest of many slow units and the coldest of many fast ones are
 * extremes: among n equal Poisson units the largest sits about
 * sqrt(2 ln n) deviations out. Comparing those two is comparing
 * ns x nf pairs, so the bound grows with that.
 */
static double pair_z(const struct rt_class_params *p, size_t ns, size_t nf)
{
	double pairs = (double)(ns ? ns : 1) * (double)(nf ? nf : 1);
	double z = sqrt(2.0 * log(pairs > 1 ? pairs : 1));

	return z > p->z ? z : p->z;
}

/*
 * Partial selection: move the @k units of @idx[0..n) that sort first by
 * @key (descending when @desc) to the front, then sort just those k.
 * O(n) expected, so an epoch over many cold units stays cheap.
 */
struct sel {
	const float *key;
	int desc;
};

static int cmp_units(const void *pa, const void *pb, void *arg)
{
	const struct sel *s = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	float x = s->key[a], y = s->key[b];

	if (x != y)
		return (s->desc ? x > y : x < y) ? -1 : 1;
	return (a > b) - (a < b);
}

static void swap_u(uint32_t *x, uint32_t *y)
{
	uint32_t t = *x;

	*x = *y;
	*y = t;
}

static void select_first(uint32_t *idx, size_t n, size_t k, const float *key,
			 int desc)
{
	struct sel s = { key, desc };
	size_t lo = 0, hi = n;

	if (k < n) {
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2, store = lo;

			swap_u(&idx[mid], &idx[hi - 1]);
			for (size_t i = lo; i < hi - 1; i++)
				if (cmp_units(&idx[i], &idx[hi - 1], &s) < 0)
					swap_u(&idx[i], &idx[store++]);
			swap_u(&idx[store], &idx[hi - 1]);
			if (store == k)
				break;
			if (store < k)
				lo = store + 1;
			else
				hi = store;
		}
	}
	qsort_r(idx, k < n ? k : n, sizeof(*idx), cmp_units, &s);
}

void rt_class_epoch(struct rt_classifier *c, uint32_t *promote, size_t *np,
		    uint32_t *demote, size_t *nd, size_t max)
{
	uint32_t *slow = c->order, *fast;
	size_t ns = 0, nf = 0, want, i = 0, j = 0;
	size_t limit = c->p.max_moves ? c->p.max_moves : c->n;
	double z;

	*np = *nd = 0;
	c->epoch++;
	for (uint32_t u = 0; u < c->n; u++) {
		c->score[u] = (float)(c->score[u] * c->p.decay + c->fresh[u]);
		c->fresh[u] = 0;
	}
	/* Movable units: slow ones from the front of order[], fast ones
	 * from the back. */
	fast = c->order + c->n;
	for (uint32_t u = 0; u < c->n; u++) {
		if (c->epoch - c->moved[u] < c->p.dwell)
			continue;
		if (c->fast[u])
			*--fast = u;
		else if (c->score[u] >= c->p.min_score)
			slow[ns++] = u;
	}
	nf = (size_t)(c->order + c->n - fast);
	if (limit > max)
		limit = max;
	want = ns < limit ? ns : limit;
	select_first(slow, ns, want, c->score, 1);
	select_first(fast, nf, want, c->score, 0);

	/* Free room first: no one has to leave. */
	while (i < want && c->in_fast < c->capacity) {
		uint32_t u = slow[i++];

		promote[(*np)++] = u;
		rt_class_set_fast(c, u, true);
		c->moved[u] = c->epoch;
	}
	/* Then swaps, hottest slow unit against coldest fast one. */
	z = pair_z(&c->p, ns, nf);
	while (i < want && j < nf && *np < limit &&
	       rt_class_worth_z(&c->p, c->score[slow[i]], c->score[fast[j]], z)) {
		uint32_t in = slow[i++], out = fast[j++];

		demote[(*nd)++] = out;
		rt_class_set_fast(c, out, false);
		c->moved[out] = c->epoch;
		promote[(*np)++] = in;
		rt_class_set_fast(c, in, true);
		c->moved[in] = c->epoch;
	}
	c->promotions += *np;
	c->demotions += *nd;
}
