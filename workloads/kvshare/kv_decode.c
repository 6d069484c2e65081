// SPDX-License-Identifier: MIT
/*
 * The decode host: reads the store's header and index (invalidated
 * first), then serves the same requests over each path in turn, one at a
 * time. A request's time to first token (TTFT) is its prefix's fetch, or
 * its recompute on a miss or on the recompute path, plus the modeled
 * compute of its new tokens, on the guest clock (modeled time under
 * cxlbed's guest clock). Fetched blocks are checked against the index
 * after the clock stops.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cxlbed-copy.h"
#include "kv.h"
#include "kv_coherence.h"
#include "kv_stats.h"
#include "wl.h"

/* ROI ids are immediates: one marker per path */
#define PATH_MARK(op, p) do {						\
	switch (p) {							\
	case KV_CXL_DMA: cxlbed_roi_mark(op, KV_ROI_PATH + KV_CXL_DMA); break; \
	case KV_CXL_LOAD: cxlbed_roi_mark(op, KV_ROI_PATH + KV_CXL_LOAD); break; \
	case KV_RDMA_200G: cxlbed_roi_mark(op, KV_ROI_PATH + KV_RDMA_200G); break; \
	case KV_RDMA_100G: cxlbed_roi_mark(op, KV_ROI_PATH + KV_RDMA_100G); break; \
	default: cxlbed_roi_mark(op, KV_ROI_PATH + KV_RECOMPUTE); break; \
	}								\
} while (0)

bool kv_request_hits(double ratio, uint32_t i)
{
	return (uint64_t)((i + 1) * ratio + 0.5) > (uint64_t)(i * ratio + 0.5);
}

/* The store as published: its header, then its index. */
static const struct kv_header *read_store(const struct kv_opts *o, void *store,
					  uint64_t **sums)
{
	struct kv_header *h = store;
	struct kv_geometry g;
	const char *why;
	uint64_t n;

	if (!o->no_invalidate)
		kv_invalidate(h, sizeof(*h));
	if (h->magic != KV_MAGIC || __atomic_load_n(&h->round, __ATOMIC_ACQUIRE) != o->round)
		wl_fail(KV_NAME, "the store on %s holds round %llu, not %llu: "
			"run the prefill of round %llu first", o->dax,
			h->magic == KV_MAGIC ? (unsigned long long)h->round : 0ull,
			(unsigned long long)o->round, (unsigned long long)o->round);
	g = (struct kv_geometry){ h->sessions, h->prefix_tokens, h->block_tokens,
				  h->kv_per_token };
	why = kv_geometry_check(&g);
	if (why || h->blocks != kv_blocks(&g) || h->block_bytes != kv_block_bytes(&g))
		wl_fail(KV_NAME, "the store's header is not whole: %s",
			why ? why : "blocks or block size disagree");
	n = (uint64_t)h->sessions * h->blocks;
	if (!o->no_invalidate)
		kv_invalidate(kv_index(store), n * 8);
	*sums = malloc(n * 8);
	if (!*sums)
		wl_fail(KV_NAME, "out of memory");
	memcpy(*sums, kv_index(store), n * 8);
	return h;
}

static void serve(const struct kv_opts *o, struct kv_fetch *f,
		  const struct kv_header *h, struct kv_path_result *r)
{
	double *ttft = calloc(o->requests, sizeof(*ttft));
	double *sorted = calloc(o->requests, sizeof(*sorted));
	double *fetch = calloc(o->requests, sizeof(*fetch));
	uint64_t prefix_ns = (uint64_t)h->prefix_tokens * o->compute_ns_per_token;
	uint64_t new_ns = (uint64_t)o->new_tokens * o->compute_ns_per_token;

	if (!ttft || !sorted || !fetch)
		wl_fail(KV_NAME, "out of memory");
	r->path = f->path;
	r->requests = o->requests;
	PATH_MARK(CXLBED_ROI_BEGIN, f->path);
	for (uint32_t i = 0; i < o->requests; i++) {
		bool hit = f->path != KV_RECOMPUTE && kv_request_hits(o->hit_ratio, i);
		uint32_t session = i % h->sessions;
		uint64_t t0 = kv_now_ns();

		if (hit)
			r->checksum_errors += kv_fetch(f, session);
		else
			cxlbed_busy_ns(prefix_ns);
		if (hit)
			fetch[r->hits] = (double)(kv_now_ns() - t0) / 1e3;
		cxlbed_busy_ns(new_ns);
		ttft[i] = (double)(kv_now_ns() - t0) / 1e3;
		if (!hit)
			continue;
		r->hits++;
		r->blocks += h->blocks;
		r->fetched_bytes += (uint64_t)h->blocks * h->block_bytes;
		if (kv_path_copies(f->path))
			r->checksum_errors += kv_fetch_verify(f, session);
	}
	PATH_MARK(CXLBED_ROI_END, f->path);
	memcpy(sorted, ttft, o->requests * sizeof(*ttft));
	r->ttft_us = ttft;
	r->ttft_mean_us = kv_mean(sorted, o->requests);
	r->ttft_median_us = kv_quantile(sorted, o->requests, 0.5);
	r->ttft_p99_us = kv_quantile(sorted, o->requests, 0.99);
	r->requests_per_s = r->ttft_mean_us > 0 ? 1e6 / r->ttft_mean_us : 0;
	r->fetch_median_us = kv_quantile(fetch, r->hits, 0.5);
	free(sorted);
	free(fetch);
}

void kv_decode(const struct kv_opts *o, struct kv_decode_result *r)
{
	void *store = kv_map(o->dax, KV_WATCHED);
	uint64_t *sums;
	const struct kv_header *h = read_store(o, store, &sums);
	uint64_t local_bytes = (uint64_t)h->blocks * h->block_bytes;
	void *local = mmap(NULL, local_bytes, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (local == MAP_FAILED)
		wl_fail(KV_NAME, "no %llu bytes of local memory",
			(unsigned long long)local_bytes);
	memset(local, 0, local_bytes);
	memset(r, 0, sizeof(*r));
	r->h = *h;
	for (uint32_t i = 0; i < o->requests; i++)
		r->hits += kv_request_hits(o->hit_ratio, i);
	for (int p = 0; p < KV_PATHS; p++) {
		struct kv_fetch f = {
			.path = p, .engine = o->engine[p], .invalidate = !o->no_invalidate,
			.store = store, .blocks = h->blocks, .block_bytes = h->block_bytes,
			.sums = sums, .local = local, .tag = 1,
		};

		if (!(o->paths & (1u << p)))
			continue;
		serve(o, &f, h, &r->path[r->npaths]);
		r->checksum_errors += r->path[r->npaths++].checksum_errors;
	}
	free(sums);
}
