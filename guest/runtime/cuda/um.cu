/* SPDX-License-Identifier: MIT */
/*
 * The Unified Memory baseline of kv and adam: blocks in managed memory,
 * advised for the device, the next `window` positions of the access
 * stream prefetched on a side stream, each kernel reading its block in
 * place (the layer sweep has its own in wl_layers.cu).
 */
#include <stdlib.h>

#include "gpu.h"

void um_advise_dev(void *p, size_t n, int dev, bool read_mostly)
{
#if CUDART_VERSION >= 13000
	struct cudaMemLocation loc = {};

	loc.type = cudaMemLocationTypeDevice;
	loc.id = dev;
	if (read_mostly)
		CK(cudaMemAdvise(p, n, cudaMemAdviseSetReadMostly, loc));
	CK(cudaMemAdvise(p, n, cudaMemAdviseSetAccessedBy, loc));
#else
	if (read_mostly)
		CK(cudaMemAdvise(p, n, cudaMemAdviseSetReadMostly, dev));
	CK(cudaMemAdvise(p, n, cudaMemAdviseSetAccessedBy, dev));
#endif
}

static void um_prefetch(const void *p, size_t n, int dev, cudaStream_t s)
{
#if CUDART_VERSION >= 13000
	struct cudaMemLocation loc = {};

	loc.type = cudaMemLocationTypeDevice;
	loc.id = dev;
	CK(cudaMemPrefetchAsync(p, n, loc, 0, s));
#else
	CK(cudaMemPrefetchAsync(p, n, dev, s));
#endif
}

double um_pass(const uint32_t *stream, size_t len, void *const *ptrs,
	       const size_t *sizes, int window, int dev, compute_fn fn,
	       void *ctx, cudaStream_t s)
{
	cudaStream_t pf;
	cudaEvent_t *ready;
	size_t w = window > 0 ? (size_t)window : 0, nev, next = 0;
	double t0, ms;

	if (!len)
		return 0;
	/* Position k's event is recorded when position k - w is reached and
	 * waited for at k, so w + 1 events in a ring are enough. */
	nev = w + 1 < len ? w + 1 : len;
	CK(cudaStreamCreateWithFlags(&pf, cudaStreamNonBlocking));
	ready = (cudaEvent_t *)calloc(nev, sizeof(cudaEvent_t));
	for (size_t k = 0; k < nev; k++)
		CK(cudaEventCreateWithFlags(&ready[k], cudaEventDisableTiming));

	CK(cudaDeviceSynchronize());
	t0 = now_ms();
	for (size_t i = 0; i < len; i++) {
		size_t last = i + w < len ? i + w : len - 1;
		uint32_t id = stream[i];

		for (; next <= last; next++) {
			uint32_t b = stream[next];

			um_prefetch(ptrs[b], sizes[b], dev, pf);
			CK(cudaEventRecord(ready[next % nev], pf));
		}
		CK(cudaStreamWaitEvent(s, ready[i % nev], 0));
		fn(ctx, i, id, ptrs[id], s);
	}
	CK(cudaStreamSynchronize(s));
	ms = now_ms() - t0;

	CK(cudaStreamSynchronize(pf));
	for (size_t k = 0; k < nev; k++)
		CK(cudaEventDestroy(ready[k]));
	free(ready);
	CK(cudaStreamDestroy(pf));
	return ms;
}
