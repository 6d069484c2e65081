/* SPDX-License-Identifier: MIT */
/*
 * CUDA backend: FAST is cudaMalloc'd HBM, HOST and FAR are pinned host
 * memory (cudaHostAlloc) so copies run on the copy engines at full PCIe
 * speed; FAR differs only in that the lane threads shape its copies.
 * Each copy lane has its own non-blocking stream, apart from compute.
 * Fences are events recorded on the compute stream.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

static struct cuda_be *cb_of(struct rt_backend *be)
{
	return (struct cuda_be *)be->priv;
}

static void *cu_alloc(struct rt_backend *be, enum rt_tier_kind t, size_t n)
{
	void *p = NULL;
	cudaError_t e;

	if (t == RT_TIER_FAST)
		e = cudaMalloc(&p, n);
	else
		e = cudaHostAlloc(&p, n, cudaHostAllocDefault);
	if (e != cudaSuccess) {
		cudaGetLastError();	/* clear it: the caller handles NULL */
		return NULL;
	}
	return p;
}

static void cu_free(struct rt_backend *be, enum rt_tier_kind t, void *p)
{
	if (t == RT_TIER_FAST)
		cudaFree(p);
	else
		cudaFreeHost(p);
}

static int cu_copy(struct rt_backend *be, int lane, void *dst, const void *src,
		   size_t n)
{
	cudaStream_t s = cb_of(be)->lane[lane];

	if (cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, s) != cudaSuccess)
		return -1;
	return cudaStreamSynchronize(s) == cudaSuccess ? 0 : -1;
}

static void *cu_fence_new(struct rt_backend *be)
{
	cudaEvent_t e;

	if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) != cudaSuccess)
		return NULL;
	return (void *)e;
}

static void cu_fence_record(struct rt_backend *be, void *f)
{
	CK(cudaEventRecord((cudaEvent_t)f, cb_of(be)->compute));
}

static void cu_fence_wait(struct rt_backend *be, void *f)
{
	CK(cudaEventSynchronize((cudaEvent_t)f));
}

static void cu_fence_free(struct rt_backend *be, void *f)
{
	cudaEventDestroy((cudaEvent_t)f);
}

static void cu_lane_start(struct rt_backend *be, int lane)
{
	CK(cudaSetDevice(cb_of(be)->dev));
}

static const struct rt_backend_ops cuda_ops = {
	"cuda", cu_alloc, cu_free, cu_copy, cu_fence_new, cu_fence_record,
	cu_fence_wait, cu_fence_free, cu_lane_start,
};

int cuda_backend_init(struct rt_backend *be, struct cuda_be *cb, int dev,
		      size_t fast_budget)
{
	memset(be, 0, sizeof(*be));
	memset(cb, 0, sizeof(*cb));
	cb->dev = dev;
	CK(cudaSetDevice(dev));
	CK(cudaStreamCreateWithFlags(&cb->compute, cudaStreamNonBlocking));
	for (int i = 0; i < RT_MAX_LANES; i++)
		CK(cudaStreamCreateWithFlags(&cb->lane[i], cudaStreamNonBlocking));
	be->ops = &cuda_ops;
	be->priv = cb;
	rt_tier_init(&be->tier[RT_TIER_FAST], RT_TIER_FAST, fast_budget);
	rt_tier_init(&be->tier[RT_TIER_HOST], RT_TIER_HOST, 0);
	rt_tier_init(&be->tier[RT_TIER_FAR], RT_TIER_FAR, 0);
	return 0;
}

void cuda_backend_fini(struct rt_backend *be)
{
	struct cuda_be *cb = cb_of(be);

	cudaStreamDestroy(cb->compute);
	for (int i = 0; i < RT_MAX_LANES; i++)
		cudaStreamDestroy(cb->lane[i]);
	be->ops = NULL;
}
