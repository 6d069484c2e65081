/* SPDX-License-Identifier: MIT */
/* Small helpers for the GPU binary: errors, clock, HBM ballast, resident passes. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

void gpu_check(cudaError_t e, const char *what, const char *file, int line)
{
	if (e == cudaSuccess)
		return;
	fprintf(stderr, "cxlbed-gpu: %s:%d: %s: %s\n", file, line, what,
		cudaGetErrorString(e));
	exit(1);
}

double now_ms(void)
{
	return shp_clock_ns() / 1e6;
}

/* ---- ballast ---- */
void *ballast_take(size_t keep)
{
	size_t fr = 0, tot = 0;
	void *p = NULL;

	CK(cudaMemGetInfo(&fr, &tot));
	if (fr <= keep)
		return NULL;
	/* Step down if the allocator cannot give one piece that large. */
	for (size_t n = fr - keep; n > (64u << 20); n -= 64u << 20) {
		if (cudaMalloc(&p, n) == cudaSuccess)
			return p;
		cudaGetLastError();
	}
	return NULL;
}

void ballast_drop(void *p)
{
	if (p)
		cudaFree(p);
}

double resident_pass(const uint32_t *stream, size_t len, void *const *ptrs,
		     compute_fn fn, void *ctx, cudaStream_t s)
{
	double t0;

	CK(cudaDeviceSynchronize());
	t0 = now_ms();
	for (size_t i = 0; i < len; i++)
		fn(ctx, i, stream[i], ptrs[stream[i]], s);
	CK(cudaStreamSynchronize(s));
	return now_ms() - t0;
}
