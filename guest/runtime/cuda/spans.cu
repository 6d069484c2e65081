/* SPDX-License-Identifier: MIT */
/* Compute spans: CUDA events around kernels, mapped onto the host clock for the timeline. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

void spans_init(struct spans *s, int cap, cudaStream_t st)
{
	memset(s, 0, sizeof(*s));
	s->cap = cap;
	s->ev = (cudaEvent_t *)calloc((size_t)cap * 2, sizeof(cudaEvent_t));
	s->block = (uint32_t *)calloc((size_t)cap, sizeof(uint32_t));
	/* Created up front so the timed pass only records them. */
	for (int i = 0; i < 2 * cap; i++)
		CK(cudaEventCreate(&s->ev[i]));
	CK(cudaEventCreate(&s->base));
	CK(cudaEventRecord(s->base, st));
	CK(cudaEventSynchronize(s->base));
	s->base_ns = shp_clock_ns();
}

void spans_begin(struct spans *s, cudaStream_t st, uint32_t block)
{
	if (s->n >= s->cap)
		return;
	CK(cudaEventRecord(s->ev[2 * s->n], st));
	s->block[s->n] = block;
}

void spans_end(struct spans *s, cudaStream_t st)
{
	if (s->n >= s->cap)
		return;
	CK(cudaEventRecord(s->ev[2 * s->n + 1], st));
	s->n++;
}

void spans_flush(struct spans *s, struct rt_trace *t)
{
	for (int i = 0; i < s->n; i++) {
		float a = 0, b = 0;

		CK(cudaEventElapsedTime(&a, s->base, s->ev[2 * i]));
		CK(cudaEventElapsedTime(&b, s->base, s->ev[2 * i + 1]));
		rt_trace_add(t, RT_EV_COMPUTE, -1, s->block[i],
			     s->base_ns + (uint64_t)(a * 1e6),
			     s->base_ns + (uint64_t)(b * 1e6));
	}
}

void spans_fini(struct spans *s)
{
	for (int i = 0; i < 2 * s->cap; i++)
		cudaEventDestroy(s->ev[i]);
	cudaEventDestroy(s->base);
	free(s->ev);
	free(s->block);
	memset(s, 0, sizeof(*s));
}
