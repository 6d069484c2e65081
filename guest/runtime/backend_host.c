/* SPDX-License-Identifier: MIT */
/*
 * Host-memory backend: lets the scheduler run for real (threads, copies,
 * shaping) on a machine without a GPU. Compute runs on the caller's thread
 * and is finished by the time it releases a block, so fences are no-ops.
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"

static void *host_alloc(struct rt_backend *be, enum rt_tier_kind t, size_t n)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, n ? n : 1))
		return NULL;
	return p;
}

static void host_free(struct rt_backend *be, enum rt_tier_kind t, void *p)
{
	free(p);
}

static void host_lane_start(struct rt_backend *be, int lane) { }

static const struct rt_backend_ops host_ops = {
	.name = "host",
	.alloc = host_alloc,
	.free = host_free,
	.copy = rt_cpu_copy,
	.fence_new = rt_cpu_fence_new,
	.fence_record = rt_cpu_fence_nop,
	.fence_wait = NULL,
	.fence_free = rt_cpu_fence_nop,
	.lane_start = host_lane_start,
};

int rt_host_backend_init(struct rt_backend *be, size_t fast_capacity)
{
	memset(be, 0, sizeof(*be));
	be->ops = &host_ops;
	rt_tier_init(&be->tier[RT_TIER_FAST], RT_TIER_FAST, fast_capacity);
	rt_tier_init(&be->tier[RT_TIER_HOST], RT_TIER_HOST, 0);
	rt_tier_init(&be->tier[RT_TIER_FAR], RT_TIER_FAR, 0);
	return 0;
}

void rt_host_backend_fini(struct rt_backend *be)
{
	be->ops = NULL;
}
