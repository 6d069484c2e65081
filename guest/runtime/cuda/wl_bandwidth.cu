/* SPDX-License-Identifier: MIT */
/*
 * Host<->device bandwidth: plain cudaMemcpy from pageable and from pinned
 * memory, and the runtime's own path (block-sized copies through a copy
 * lane, unshaped), so the lane machinery's overhead shows as a ratio.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

#define REPS 5

static double gbps(size_t bytes, double ms)
{
	return ms > 0 ? (double)bytes / (ms * 1e6) : 0;
}

static double plain(void *dst, const void *src, size_t n, cudaMemcpyKind k)
{
	double t0;

	CK(cudaMemcpy(dst, src, n, k));		/* warm-up */
	t0 = now_ms();
	for (int r = 0; r < REPS; r++)
		CK(cudaMemcpy(dst, src, n, k));
	return gbps(n * REPS, now_ms() - t0);
}

/* @n bytes in @blk pieces through lane 0 of the CUDA backend. */
static double lanes(struct rt_backend *be, void *dst, const void *src,
		    size_t n, size_t blk)
{
	struct rt_lanes ls;
	struct rt_ticket t = {};
	double t0, ms;

	if (rt_lanes_start(&ls, be, 1, NULL, NULL))
		return 0;
	t0 = now_ms();
	for (int r = 0; r < REPS; r++)
		for (size_t off = 0; off < n; off += blk) {
			struct rt_copy c = {};

			c.dst = (char *)dst + off;
			c.src = (const char *)src + off;
			c.bytes = n - off < blk ? n - off : blk;
			t = rt_lanes_submit(&ls, 0, &c);
		}
	rt_ticket_wait(&ls, t);
	ms = now_ms() - t0;
	rt_lanes_stop(&ls);
	return gbps(n * REPS, ms);
}

int wl_bandwidth(const struct gpu_opts *o, struct jw *j)
{
	size_t n = 256u << 20, blk = 64u << 20;
	struct rt_backend be;
	struct cuda_be cb;
	void *dev, *pinned, *pageable;
	double h2d_page, d2h_page, h2d_pin, d2h_pin, h2d_lane, d2h_lane;

	cuda_backend_init(&be, &cb, o->dev, 0);
	CK(cudaMalloc(&dev, n));
	CK(cudaHostAlloc(&pinned, n, cudaHostAllocDefault));
	pageable = malloc(n);
	memset(pageable, 1, n);
	memset(pinned, 1, n);

	h2d_page = plain(dev, pageable, n, cudaMemcpyHostToDevice);
	d2h_page = plain(pageable, dev, n, cudaMemcpyDeviceToHost);
	h2d_pin = plain(dev, pinned, n, cudaMemcpyHostToDevice);
	d2h_pin = plain(pinned, dev, n, cudaMemcpyDeviceToHost);
	h2d_lane = lanes(&be, dev, pinned, n, blk);
	d2h_lane = lanes(&be, pinned, dev, n, blk);

	jw_obj(j, NULL);
	jw_str(j, "name", "bandwidth");
	jw_int(j, "bytes", (long long)n);
	jw_int(j, "block_bytes", (long long)blk);
	jw_num(j, "h2d_pageable_gbps", h2d_page);
	jw_num(j, "d2h_pageable_gbps", d2h_page);
	jw_num(j, "h2d_pinned_gbps", h2d_pin);
	jw_num(j, "d2h_pinned_gbps", d2h_pin);
	jw_num(j, "h2d_runtime_gbps", h2d_lane);
	jw_num(j, "d2h_runtime_gbps", d2h_lane);
	jw_num(j, "h2d_runtime_vs_cudamemcpy", h2d_pin > 0 ? h2d_lane / h2d_pin : 0);
	jw_end_obj(j);
	target_add("bandwidth.h2d runtime / pinned cudaMemcpy",
		   h2d_pin > 0 ? h2d_lane / h2d_pin : 0, ">=", 0.9,
		   "%.1f vs %.1f GB/s in %zu MiB blocks", h2d_lane, h2d_pin, blk >> 20);
	check_add("bandwidth.h2d measured", h2d_pin > 0 && h2d_lane > 0,
		  "pinned cudaMemcpy %.1f GB/s, runtime lane %.1f GB/s", h2d_pin, h2d_lane);

	free(pageable);
	cudaFreeHost(pinned);
	cudaFree(dev);
	cuda_backend_fini(&be);
	return 0;
}
