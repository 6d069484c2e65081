/* SPDX-License-Identifier: MIT */
/*
 * Embedding gather: a table of R rows of 64 floats (256 B); each sample
 * sums a bag of BAG rows. Row ids are Zipf-distributed with exponent
 * --zipf (0.99; 0 = uniform) over ranks, ranks mapped to rows by a fixed
 * random permutation (popularity has nothing to do with the row number).
 * The lookups are drawn before the timed region.
 *
 * libcxlpool: the table's home is the far tier; an object cache holds the
 * hottest rows in the fast tier, classified from the lookups themselves.
 *
 * Figures: the fast-tier hit ratio (lookups served from the fast tier)
 * and the oracle's: the share of lookups that go to the K most frequent
 * rows of this very lookup stream, K = the rows the local limit holds.
 * Check: the bag sums against the sums computed from the row formula
 * (exact: every value is a multiple of 1/4 well inside float precision).
 */
#include <emmintrin.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pw.h"

#define DIM 64
#define ROW (DIM * sizeof(float))
#define BAG 16

static float cell(uint32_t r, int c)
{
	return (float)((r * 37 + (uint32_t)c * 11) % 101) * 0.25f;
}

static uint64_t rng;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double uniform01(void)
{
	return (double)(next_rand() >> 11) / 9007199254740992.0;
}

/* @n lookups over @rows rows, Zipf(@s) by rank, into @ids. */
static int draw(uint16_t *ids, size_t n, uint32_t rows, double s)
{
	double *cdf = malloc(rows * sizeof(*cdf)), acc = 0;
	uint32_t *perm = malloc(rows * sizeof(*perm));

	if (!cdf || !perm)
		return -1;
	for (uint32_t k = 0; k < rows; k++) {
		acc += 1.0 / pow((double)k + 1, s);
		cdf[k] = acc;
		perm[k] = k;
	}
	for (uint32_t k = rows - 1; k > 0; k--) {
		uint32_t j = (uint32_t)(next_rand() % (k + 1)), t = perm[k];

		perm[k] = perm[j];
		perm[j] = t;
	}
	for (size_t i = 0; i < n; i++) {
		double u = uniform01() * acc;
		uint32_t lo = 0, hi = rows - 1;

		while (lo < hi) {
			uint32_t mid = (lo + hi) / 2;

			if (cdf[mid] < u)
				lo = mid + 1;
			else
				hi = mid;
		}
		ids[i] = (uint16_t)perm[lo];
	}
	free(cdf);
	free(perm);
	return 0;
}

static int cmp_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Share of lookups to the @k most frequent rows. */
static double oracle(const uint16_t *ids, size_t n, uint32_t rows, uint32_t k)
{
	uint32_t *cnt = calloc(rows, sizeof(*cnt));
	uint64_t top = 0;

	for (size_t i = 0; i < n; i++)
		cnt[ids[i]]++;
	qsort(cnt, rows, sizeof(*cnt), cmp_desc);
	for (uint32_t r = 0; r < k && r < rows; r++)
		top += cnt[r];
	free(cnt);
	return (double)top / (double)n;
}

int wl_embed(struct pw *w)
{
	uint32_t rows = w->o.scale ? (uint32_t)w->o.scale : 16384;
	int steps = w->o.steps ? w->o.steps : 8;
	/* a step looks up as many rows as the table has: --steps is how many
	 * lookups each row gets on average */
	size_t n = (size_t)rows * (size_t)steps, per_step;
	double s = w->o.zipf, want = 0, got = 0, orc;
	float *table, *acc;
	uint16_t *ids;
	struct cxlpool_objs *o = NULL;
	uint32_t k;

	if (rows > 65536 || rows < 64)
		return pw_fail(w, "--scale (rows) must be 64..65536"), -1;
	n = n / (BAG * steps) * (BAG * steps);
	per_step = n / steps;
	w->data_bytes = (size_t)rows * ROW;
	w->local_limit = (size_t)(w->o.local_fraction * (double)w->data_bytes);
	k = (uint32_t)(w->local_limit / ROW);
	rng = 0x2545F4914F6CDD1Dull;
	ids = pw_aux(w, n * sizeof(*ids));
	acc = pw_aux(w, ROW);
	if (!ids || !acc || draw(ids, n, rows, s))
		return pw_fail(w, "cannot draw the lookups"), -1;
	orc = oracle(ids, n, rows, k);
	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < DIM; c++)
			want += cell(ids[i], c);
	pw_limit(w);
	table = pw_data(w, (size_t)rows * ROW);
	if (!table)
		return pw_fail(w, "cannot place the table"), -1;
	for (uint32_t r = 0; r < rows; r++)
		for (int c = 0; c < DIM; c++)
			table[(size_t)r * DIM + c] = cell(r, c);
	if (w->policy == PW_LIBCXLPOOL) {
		o = cxlpool_objs_open(w->pool, table, ROW, rows, w->local_limit);
		if (!o)
			return pw_fail(w, "object cache: %s", cxlpool_error()), -1;
		w->counts_itself = true;
	}

	pw_begin(w);
	for (int st = 0; st < steps; st++) {
		for (size_t b = st * per_step; b < (st + 1) * per_step; b += BAG) {
			__m128 a[DIM / 4];

			for (int j = 0; j < DIM / 4; j++)
				a[j] = _mm_setzero_ps();
			if (o)
				cxlpool_objs_begin(o);
			for (int i = 0; i < BAG; i++) {
				const float *row = o ? cxlpool_obj(o, ids[b + i]) :
					table + (size_t)ids[b + i] * DIM;

				for (int j = 0; j < DIM / 4; j++)
					a[j] = _mm_add_ps(a[j], _mm_loadu_ps(row + 4 * j));
				if (!o)
					pw_touch(w, row, ROW);
			}
			if (o)
				cxlpool_objs_end(o);
			for (int j = 0; j < DIM / 4; j++)
				_mm_storeu_ps(acc + 4 * j, a[j]);
			for (int c = 0; c < DIM; c++)
				got += acc[c];
		}
		pw_step(w);
	}
	pw_end(w);

	w->checksum = got;
	pw_verify(w, got == want,
		 "bag sums %.2f, from the row formula %.2f", got, want);
	pw_field(w, "\"rows\":%u,\"row_bytes\":%zu,\"lookups\":%zu,\"bag\":%d,"
		 "\"zipf\":%.2f,\"oracle_rows\":%u,\"oracle_hit_ratio\":%.4f",
		 rows, ROW, n, BAG, s, k, orc);
	if (o)
		cxlpool_objs_close(o);
	return 0;
}
