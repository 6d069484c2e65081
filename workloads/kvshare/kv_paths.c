// SPDX-License-Identifier: MIT
/* A prefix's blocks by one path (kv_paths.h). */
#include <string.h>

#include "cxlbed-copy.h"
#include "kv_coherence.h"
#include "kv_layout.h"
#include "kv_paths.h"

static const struct {
	const char *name, *engine;
} paths[KV_PATHS] = {
	[KV_CXL_DMA] = { "cxl-dma", "dma" },
	[KV_CXL_LOAD] = { "cxl-load", NULL },
	[KV_RDMA_200G] = { "rdma-200g", "rdma-200g" },
	[KV_RDMA_100G] = { "rdma-100g", "rdma-100g" },
	[KV_RECOMPUTE] = { "recompute", NULL },
};

const char *kv_path_name(enum kv_path p)
{
	return paths[p].name;
}

int kv_path_find(const char *name)
{
	for (int p = 0; p < KV_PATHS; p++)
		if (!strcmp(name, paths[p].name))
			return p;
	return -1;
}

bool kv_path_copies(enum kv_path p)
{
	return paths[p].engine != NULL;
}

const char *kv_path_engine(enum kv_path p)
{
	return paths[p].engine;
}

static bool is_cxl(enum kv_path p)
{
	return p == KV_CXL_DMA || p == KV_CXL_LOAD;
}

uint64_t kv_fetch(struct kv_fetch *f, uint32_t session)
{
	uint64_t bad = 0, first = f->tag;

	for (uint32_t b = 0; b < f->blocks; b++) {
		void *src = kv_block(f->store, f->blocks, f->block_bytes, session, b);

		if (is_cxl(f->path) && f->invalidate)
			kv_invalidate(src, f->block_bytes);
		if (f->path == KV_CXL_LOAD) {
			/* the loads are the fetch; their checksum is its use */
			bad += kv_checksum(src, f->block_bytes) !=
			       f->sums[(uint64_t)session * f->blocks + b];
			continue;
		}
		/* posted back to back: the engine pipelines them */
		cxlbed_copy((unsigned int)f->engine,
			    (char *)f->local + (uint64_t)b * f->block_bytes, src,
			    f->block_bytes, f->tag++);
	}
	for (uint64_t t = first; t < f->tag; t++)
		cxlbed_copy_wait(t);
	return bad;
}

uint64_t kv_fetch_verify(const struct kv_fetch *f, uint32_t session)
{
	uint64_t bad = 0;

	for (uint32_t b = 0; b < f->blocks; b++)
		bad += kv_checksum((const uint64_t *)((const char *)f->local +
						      (uint64_t)b * f->block_bytes),
				   f->block_bytes) !=
		       f->sums[(uint64_t)session * f->blocks + b];
	return bad;
}
