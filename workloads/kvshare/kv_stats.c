// SPDX-License-Identifier: MIT
/* Order statistics of a path's TTFTs (kv_stats.h). */
#include <math.h>
#include <stdlib.h>

#include "kv_stats.h"

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double kv_quantile(double *x, size_t n, double q)
{
	size_t rank;

	if (!n)
		return 0;
	qsort(x, n, sizeof(*x), cmp);
	/* nearest rank: the smallest value with at least q of them at or below */
	rank = (size_t)ceil(q * (double)n);
	return x[rank ? rank - 1 : 0];
}

double kv_mean(const double *x, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += x[i];
	return n ? s / (double)n : 0;
}
