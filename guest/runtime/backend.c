/* SPDX-License-Identifier: MIT */
/* Budget-checked allocation shared by all backends. */
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
