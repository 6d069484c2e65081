// SPDX-License-Identifier: MIT
/*
 * The prefill host: writes every session's KV blocks and their checksums
 * into the store, writes them back, then publishes the round in the
 * header (written back last), as a writer sharing without coherence must.
 */
#include "cxlbed-roi.h"
#include "kv.h"
#include "kv_coherence.h"

void kv_prefill(const struct kv_opts *o, struct kv_prefill_result *r)
{
	const struct kv_geometry *g = &o->g;
	uint32_t blocks = kv_blocks(g);
	uint64_t bb = kv_block_bytes(g), t0;
	void *store = kv_map(o->dax, kv_store_bytes(g));
	struct kv_header *h = store;
	uint64_t *index = kv_index(store);
	bool back = !o->no_flush;

	t0 = kv_now_ns();
	cxlbed_roi_begin(KV_ROI_PREFILL);
	/* withdrawn while it changes: a reader sees a whole round or none */
	h->round = 0;
	if (back)
		kv_write_back(h, sizeof(*h));
	for (uint32_t s = 0; s < g->sessions; s++)
		for (uint32_t b = 0; b < blocks; b++) {
			uint64_t *w = kv_block(store, blocks, bb, s, b);

			kv_fill(w, bb, o->round, s, b);
			index[(uint64_t)s * blocks + b] = kv_checksum(w, bb);
			if (back)
				kv_write_back(w, bb);
		}
	if (back)
		kv_write_back(index, (uint64_t)g->sessions * blocks * 8);
	*h = (struct kv_header){
		.magic = KV_MAGIC, .sessions = g->sessions, .blocks = blocks,
		.prefix_tokens = g->prefix_tokens, .block_tokens = g->block_tokens,
		.kv_per_token = g->kv_per_token, .block_bytes = bb,
	};
	__atomic_store_n(&h->round, o->round, __ATOMIC_RELEASE);
	if (back)
		kv_write_back(h, sizeof(*h));
	cxlbed_roi_end(KV_ROI_PREFILL);
	r->seconds = (double)(kv_now_ns() - t0) / 1e9;
	r->bytes_written = (uint64_t)g->sessions * blocks * bb;
	r->lines_written_back = back ? 2 + (r->bytes_written +
			(uint64_t)g->sessions * blocks * 8 + 63) / 64 : 0;
}
