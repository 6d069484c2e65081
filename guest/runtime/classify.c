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
	c->var = calloc(n ? n : 1, sizeof(*c->var));
	c->fresh_var = calloc(n ? n : 1, sizeof(*c->fresh_var));
	c->fast = calloc(n ? n : 1, sizeof(*c->fast));
	c->moved = calloc(n ? n : 1, sizeof(*c->moved));
	c->order = calloc(n ? n : 1, sizeof(*c->order));
	if (!c->score || !c->fresh || !c->var || !c->fresh_var || !c->fast || !c->moved || !c->order) {
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
	free(c->var);
	free(c->fresh_var);
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
	return rt_class_worth_var(p, hot, cold, hot + cold, p->z);
}

bool rt_class_worth_var(const struct rt_class_params *p, double hot,
			double cold, double var, double z)
{
	if (hot <= cold * (1.0 + p->margin))
		return false;
	return hot - cold > z * sqrt(var);
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

/* acc[i] = acc[i] * decay + add[i], four at a time (GCC's and clang's
 * vector types: SSE on x86-64, NEON on arm64, plain code elsewhere). */
typedef float f4 __attribute__((vector_size(16)));
typedef int32_t i4 __attribute__((vector_size(16)));

static void fold(float *acc, const float *add, float decay, uint32_t n)
{
	uint32_t i = 0;

	for (; i + 4 <= n; i += 4) {
		f4 a, b;

		memcpy(&a, acc + i, sizeof(a));
		memcpy(&b, add + i, sizeof(b));
		a = a * decay + b;
		memcpy(acc + i, &a, sizeof(a));
	}
	for (; i < n; i++)
		acc[i] = acc[i] * decay + add[i];
}

void rt_class_fold_counts(struct rt_classifier *c, uint32_t *count)
{
	const float decay = (float)c->p.decay;

	/*
	 * The counts go on being written by the threads that count: each is
	 * read and zeroed on its own (a count landing in between is lost, as
	 * one landing between a touch and its zeroing always was).
	 */
	if (c->touched) {
		/* touches and samples too: all of it through fresh[], folded
		 * by the epoch as usual */
		for (uint32_t i = 0; i < c->n; i++) {
			uint32_t k = __atomic_exchange_n(&count[i], 0, __ATOMIC_RELAXED);

			c->fresh[i] += (float)k;
			c->fresh_var[i] += (float)k;
		}
		return;
	}
	/* score = score x decay + count, the variance alike (a count is its
	 * own variance), in one pass, four units at a time as fold() */
	float *score = c->score, *var = c->var;
	uint32_t n = c->n, i = 0;

	for (; i + 4 <= n; i += 4) {
		i4 u;
		f4 k, a;

		for (int j = 0; j < 4; j++)
			u[j] = (int32_t)__atomic_load_n(&count[i + j], __ATOMIC_RELAXED);
		if (!(u[0] | u[1] | u[2] | u[3])) {
			k = (f4){ 0, 0, 0, 0 };
		} else {
			for (int j = 0; j < 4; j++)
				__atomic_store_n(&count[i + j], 0, __ATOMIC_RELAXED);
			k = __builtin_convertvector(u, f4);
		}
		memcpy(&a, score + i, sizeof(a));
		a = a * decay + k;
		memcpy(score + i, &a, sizeof(a));
		memcpy(&a, var + i, sizeof(a));
		a = a * decay + k;
		memcpy(var + i, &a, sizeof(a));
	}
	for (; i < n; i++) {
		float k = (float)__atomic_exchange_n(&count[i], 0, __ATOMIC_RELAXED);

		score[i] = score[i] * decay + k;
		var[i] = var[i] * decay + k;
	}
	c->folded = true;
}

/* Plan one swap: @in into the fast tier, @out of it. */
static void plan_swap(struct rt_classifier *c, uint32_t in, uint32_t out, uint32_t *promote,
		      size_t *np, uint32_t *demote, size_t *nd)
{
	demote[(*nd)++] = out;
	rt_class_set_fast(c, out, false);
	c->moved[out] = c->epoch;
	promote[(*np)++] = in;
	rt_class_set_fast(c, in, true);
	c->moved[in] = c->epoch;
}

/*
 * The first TOPK units of @idx[0..n) in select_first's order, into @best,
 * by one pass that keeps a small sorted buffer: far cheaper than
 * select_first, which moves every unit. Returns how many (min(TOPK, n)).
 */
#define TOPK 16

static size_t top_few(const uint32_t *idx, size_t n, const float *key, int desc,
		      uint32_t *best)
{
	struct sel s = { key, desc };
	size_t m = 0, k = TOPK;

	for (size_t i = 0; i < n; i++) {
		size_t at;

		if (m == k && cmp_units(&idx[i], &best[m - 1], &s) >= 0)
			continue;
		at = m < k ? m++ : m - 1;
		while (at > 0 && cmp_units(&idx[i], &best[at - 1], &s) < 0) {
			best[at] = best[at - 1];
			at--;
		}
		best[at] = idx[i];
	}
	return m;
}

/*
 * The swaps of a full fast tier, planned from the few hottest slow units
 * and coldest fast ones (top_few) when the pairs stop being worth it
 * within them, as in most epochs that move anything. Returns false when
 * that cannot be told from so few (then every unit is sorted).
 */
static bool few_swaps(struct rt_classifier *c, const uint32_t *slow, size_t ns,
		      const uint32_t *fast, size_t nf, size_t limit, double z,
		      uint32_t *promote, size_t *np, uint32_t *demote, size_t *nd)
{
	uint32_t hot[TOPK], cold[TOPK];
	size_t ks = top_few(slow, ns, c->score, 1, hot);
	size_t kf = top_few(fast, nf, c->score, 0, cold);
	size_t i = 0;

	while (i < ks && i < kf && i < limit &&
	       rt_class_worth_var(&c->p, c->score[hot[i]], c->score[cold[i]],
				  c->var[hot[i]] + c->var[cold[i]], z))
		i++;
	/* ran out of a buffer that did not hold every unit of its side */
	if (i < limit && ((i == ks && ks < ns) || (i == kf && kf < nf)))
		return false;
	for (size_t k = 0; k < i; k++)
		plan_swap(c, hot[k], cold[k], promote, np, demote, nd);
	return true;
}

void rt_class_epoch(struct rt_classifier *c, uint32_t *promote, size_t *np,
		    uint32_t *demote, size_t *nd, size_t max)
{
	uint32_t *slow = c->order, *fast = c->order + c->n;
	size_t ns = 0, nf = 0, want, i = 0, j = 0;
	size_t limit = c->p.max_moves ? c->p.max_moves : c->n;
	/* the first pair the swap loop would compare: hottest slow unit,
	 * coldest fast one, the lower number on a tie (as select_first) */
	uint32_t top = UINT32_MAX, bottom = UINT32_MAX;
	const float decay = (float)c->p.decay, min_score = (float)c->p.min_score;
	double z;

	*np = *nd = 0;
	c->epoch++;
	/*
	 * Fold this epoch's accesses in (single precision, a loop the
	 * compiler can vectorise: every instruction of the helper's is
	 * modeled time, and an epoch over 16384 objects cost 0.5 ms), then
	 * sort the movable units, slow ones to the front of order[], fast
	 * ones to the back. The variance decays like the score (not with
	 * decay squared): for plain counts it then equals the score, the
	 * Poisson bound as it always was, erring wide.
	 */
	if (!c->folded) {
		fold(c->score, c->fresh, decay, c->n);
		fold(c->var, c->fresh_var, decay, c->n);
		memset(c->fresh, 0, c->n * sizeof(*c->fresh));
		memset(c->fresh_var, 0, c->n * sizeof(*c->fresh_var));
		c->touched = false;
	}
	c->folded = false;
	for (uint32_t u = 0; u < c->n; u++) {
		float sc = c->score[u];

		if (c->epoch - c->moved[u] < c->p.dwell)
			continue;
		if (c->fast[u]) {
			*--fast = u;
			if (bottom == UINT32_MAX || sc < c->score[bottom])
				bottom = u;
		} else if (sc >= min_score) {
			slow[ns++] = u;
			if (top == UINT32_MAX || sc > c->score[top])
				top = u;
		}
	}
	nf = (size_t)(c->order + c->n - fast);
	if (limit > max)
		limit = max;
	z = pair_z(&c->p, ns, nf);
	if (c->in_fast >= c->capacity) {
		/*
		 * No free room and the first pair not worth a swap: the swap
		 * loop would stop there, so skip the sorting (most epochs of a
		 * steady workload; GUPS's sorted 768 units for nothing, 100 us
		 * an epoch).
		 */
		if (!ns || !nf || !rt_class_worth_var(&c->p, c->score[top], c->score[bottom],
						      c->var[top] + c->var[bottom], z))
			goto out;
		/*
		 * Else a few swaps at most, most epochs. Sorting every unit for
		 * them (16384 rows, 4096 slots) cost 2-4 million instructions an
		 * epoch that moved anything, all of it modeled time of the helper.
		 */
		if (few_swaps(c, slow, ns, fast, nf, limit, z, promote, np, demote, nd))
			goto out;
	}
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
	while (i < want && j < nf && *np < limit &&
	       rt_class_worth_var(&c->p, c->score[slow[i]], c->score[fast[j]],
				  c->var[slow[i]] + c->var[fast[j]], z)) {
		plan_swap(c, slow[i], fast[j], promote, np, demote, nd);
		i++;
		j++;
	}
out:
	c->promotions += *np;
	c->demotions += *nd;
}
