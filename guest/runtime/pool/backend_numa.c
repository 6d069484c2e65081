/* SPDX-License-Identifier: MIT */
/*
 * The tiering core's backend inside a guest: the fast tier is the pool's
 * local node, the far tier its CXL node or devdax region, a copy is a
 * memcpy on a lane thread pinned to a helper CPU. Compute runs on the
 * caller's CPU and is done when it releases a block, so fences are
 * no-ops (as on the host backend). The fast-tier budget is the pool's,
 * checked by cp_alloc, so the backend's own tier capacities stay open.
 */
#include <string.h>

#include "pool_priv.h"

static struct cxlpool *pool_of(struct rt_backend *be)
{
	return be->priv;
}

static void *numa_alloc(struct rt_backend *be, enum rt_tier_kind t, size_t n)
{
	return cp_alloc(pool_of(be), n, t == RT_TIER_FAR ? CXLPOOL_FAR : CXLPOOL_FAST);
}

static void numa_free(struct rt_backend *be, enum rt_tier_kind t, void *p)
{
	cp_free(pool_of(be), p);
}

static void numa_lane_start(struct rt_backend *be, int lane)
{
	cp_pin_lane(pool_of(be), lane);
}

static const struct rt_backend_ops numa_ops = {
	.name = "numa",
	.alloc = numa_alloc,
	.free = numa_free,
	.copy = rt_cpu_copy,
	.fence_new = rt_cpu_fence_new,
	.fence_record = rt_cpu_fence_nop,
	.fence_wait = NULL,
	.fence_free = rt_cpu_fence_nop,
	.lane_start = numa_lane_start,
};

void cp_backend_init(struct cxlpool *p)
{
	memset(&p->be, 0, sizeof(p->be));
	p->be.ops = &numa_ops;
	p->be.priv = p;
	for (int t = 0; t < RT_TIER_COUNT; t++)
		rt_tier_init(&p->be.tier[t], (enum rt_tier_kind)t, 0);
}
