/* SPDX-License-Identifier: MIT */
/*
 * What a memory backend provides to the runtime: memory per tier, one
 * synchronous copy on a given copy lane (the lane threads in lanes.c make
 * it asynchronous and shape it), and fences that mark a point in the
 * compute stream so a copy can wait until compute is done with a buffer.
 * Two backends exist: host (malloc + memcpy, for CPU tests) and CUDA.
 */
#ifndef RT_BACKEND_H
#define RT_BACKEND_H

#include <stddef.h>

#include "tier.h"

struct rt_backend;

struct rt_backend_ops {
	const char *name;
	void *(*alloc)(struct rt_backend *be, enum rt_tier_kind t, size_t n);
	void (*free)(struct rt_backend *be, enum rt_tier_kind t, void *p);
	/* Copy and return once the bytes have landed. Called on lane @lane's
	 * own thread only. Returns 0 or -1. */
	int (*copy)(struct rt_backend *be, int lane, void *dst, const void *src,
		    size_t n);
	void *(*fence_new)(struct rt_backend *be);
	void (*fence_record)(struct rt_backend *be, void *f);
	/* NULL: a fence never needs waiting for (compute done by release) */
	void (*fence_wait)(struct rt_backend *be, void *f);
	void (*fence_free)(struct rt_backend *be, void *f);
	/* Lane threads call these once at start/end (e.g. to bind a device). */
	void (*lane_start)(struct rt_backend *be, int lane);
};

struct rt_backend {
	const struct rt_backend_ops *ops;
	struct rt_tier tier[RT_TIER_COUNT];
	void *priv;
};

/* Budget-checked allocation in a tier; NULL when over budget or OOM. */
void *rt_balloc(struct rt_backend *be, enum rt_tier_kind t, size_t n);
void rt_bfree(struct rt_backend *be, enum rt_tier_kind t, void *p, size_t n);

/*
 * For backends whose compute runs on the CPU that calls rt_release (so it
 * is done by then): a copy is a memcpy on the lane thread, fences are
 * no-ops and their fence_wait is NULL (a lane then takes no wait's stamps).
 */
int rt_cpu_copy(struct rt_backend *be, int lane, void *dst, const void *src,
		size_t n);
void *rt_cpu_fence_new(struct rt_backend *be);
void rt_cpu_fence_nop(struct rt_backend *be, void *f);

/* The host backend: every tier is malloc'd host memory. */
int rt_host_backend_init(struct rt_backend *be, size_t fast_capacity);
void rt_host_backend_fini(struct rt_backend *be);

#endif
