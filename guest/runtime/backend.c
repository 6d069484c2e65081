/* SPDX-License-Identifier: MIT */
/* Budget-checked allocation shared by all backends; CPU backends' parts. */
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "backend.h"

void *rt_balloc(struct rt_backend *be, enum rt_tier_kind t, size_t n)
{
	void *p;

	if (!rt_tier_reserve(&be->tier[t], n))
		return NULL;
	p = be->ops->alloc(be, t, n);
	if (!p)
		rt_tier_unreserve(&be->tier[t], n);
	return p;
}

void rt_bfree(struct rt_backend *be, enum rt_tier_kind t, void *p, size_t n)
{
	if (!p)
		return;
	be->ops->free(be, t, p);
	rt_tier_unreserve(&be->tier[t], n);
}

/*
 * A lane's copy is read by another thread (a prefetch into the fast tier)
 * or by nobody soon (a demotion): its stores go past the lane's caches
 * (non-temporal, where the CPU has them), so that the reader finds the
 * data in memory, not in the lane core's L2 behind a cross-core transfer,
 * and no line is read for ownership first. The fence orders them before
 * the lane's release of the copy (lanes.c).
 */
int rt_cpu_copy(struct rt_backend *be, int lane, void *dst, const void *src,
		size_t n)
{
#if defined(__x86_64__) && defined(__SSE2__)
	size_t head = (16 - ((uintptr_t)dst & 15)) & 15, body;

	if (n < 256) {
		memcpy(dst, src, n);
		return 0;
	}
	body = (n - head) & ~(size_t)15;
	memcpy(dst, src, head);
	for (size_t i = head; i < head + body; i += 16)
		_mm_stream_si128((__m128i *)((char *)dst + i),
				 _mm_loadu_si128((const __m128i *)((const char *)src + i)));
	memcpy((char *)dst + head + body, (const char *)src + head + body,
	       n - head - body);
	_mm_sfence();
#else
	memcpy(dst, src, n);
#endif
	return 0;
}

static char cpu_fence;

void *rt_cpu_fence_new(struct rt_backend *be)
{
	return &cpu_fence;
}

void rt_cpu_fence_nop(struct rt_backend *be, void *f)
{
}
