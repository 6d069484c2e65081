/* SPDX-License-Identifier: MIT */
/* Device kernels of the three workloads (launch wrappers). */
#ifndef RT_KERNELS_H
#define RT_KERNELS_H

#include <cuda_runtime.h>
#include <stdint.h>

/* Deterministic pseudo-random fill in [-scale, scale): same (seed, i) gives
 * the same value on any run, so reference and tiered runs share inputs. */
void k_fill(float *p, size_t n, uint64_t seed, float scale, cudaStream_t s);

/* y[b x n] = tanh(x[b x k] * w[k x n]); b, n multiples of 64, k of 16. */
void k_layer(const float *x, const float *w, float *y, int b, int k, int n,
	     cudaStream_t s);

/* One KV page of decode attention for @heads heads of width 128: scores
 * for @tokens tokens into @scratch, then an online-softmax merge into the
 * per-head running state (m, l, acc[128]). Page layout: K then V, each
 * [tokens][heads][128]. */
void k_attn_page(const float *q, const float *page, int tokens, int heads,
		 float *scratch, float *state, cudaStream_t s);
void k_attn_init(float *state, int heads, cudaStream_t s);
void k_attn_final(const float *state, float *out, int heads, cudaStream_t s);

/* Adam on @n params; @mv holds m then v for the chunk. */
void k_adam(float *p, const float *g, float *mv, long n, int step,
	    cudaStream_t s);

/* Largest |a - b| over n floats, computed on the host (pinned or managed
 * or host copies). */
double max_abs_diff(const float *a, const float *b, size_t n);

#endif
