/* SPDX-License-Identifier: MIT */
/* Budget-checked allocation shared by all backends; CPU backends' parts. */
#include <string.h>

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

int rt_cpu_copy(struct rt_backend *be, int lane, void *dst, const void *src,
		size_t n)
{
	memcpy(dst, src, n);
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
