/* SPDX-License-Identifier: MIT */
/* Order statistics of a path's TTFTs. */
#ifndef CXLBED_KV_STATS_H
#define CXLBED_KV_STATS_H

#include <stddef.h>

/* The @q quantile (0..1, nearest rank) of @x[0..n); @x is sorted in place. */
double kv_quantile(double *x, size_t n, double q);
double kv_mean(const double *x, size_t n);

#endif
