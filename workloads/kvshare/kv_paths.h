/* SPDX-License-Identifier: MIT */
/*
 * How the decode host gets a prefix's KV blocks (docs/kv-share.md):
 *
 *   cxl-dma    the host's DMA engine copies them from the shared pool to
 *              local memory (after invalidating the host's copies)
 *   cxl-load   the CPU loads them from the pool (after invalidating)
 *   rdma-200g  fetched over the 200G NIC from the prefill host's memory
 *   rdma-100g  the same over the 100G NIC
 *   recompute  not fetched: the prefix is computed again
 *
 * The copy engines are the timing model's (cxlbed-copy.h): the program
 * moves the bytes itself (from the pool: the prefill host's copy of them)
 * and the model charges the engine's time. A fetched block's checksum is
 * compared with the index's.
 */
#ifndef CXLBED_KV_PATHS_H
#define CXLBED_KV_PATHS_H

#include <stdbool.h>
#include <stdint.h>

enum kv_path { KV_CXL_DMA, KV_CXL_LOAD, KV_RDMA_200G, KV_RDMA_100G,
	       KV_RECOMPUTE, KV_PATHS };

const char *kv_path_name(enum kv_path p);
/* -1 for a name that is no path */
int kv_path_find(const char *name);
/* Does @p copy with an engine (and so need one)? */
bool kv_path_copies(enum kv_path p);
/* The engine name a path uses ("dma", "rdma-200g", ...); NULL: none. */
const char *kv_path_engine(enum kv_path p);

struct kv_fetch {
	enum kv_path path;
	int engine;			/* the host's engine index */
	bool invalidate;		/* CXL paths: drop stale copies first */
	void *store;
	uint32_t blocks;
	uint64_t block_bytes;
	const uint64_t *sums;		/* the index, as the reader read it */
	void *local;			/* blocks x block_bytes of local memory */
	uint64_t tag;			/* next copy tag */
};

/*
 * Fetch @session's prefix (all its blocks) into fetch->local, or load it
 * in place (cxl-load): what a hit costs before the new tokens' compute.
 * Returns the blocks whose checksum the load path found wrong (the copy
 * paths verify afterwards, kv_fetch_verify, outside the timed part).
 */
uint64_t kv_fetch(struct kv_fetch *f, uint32_t session);
/* Blocks of fetch->local whose checksum differs from @session's index. */
uint64_t kv_fetch_verify(const struct kv_fetch *f, uint32_t session);

#endif
