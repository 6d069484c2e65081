/* SPDX-License-Identifier: MIT */
/*
 * The KV-block store in the shared pool (docs/kv-share.md): a header line,
 * a small index of per-block checksums, then each session's blocks back
 * to back. The prefill host writes it, the decode host reads it; both map
 * the same devdax bytes, so offsets are the same on every host.
 *
 *   0        header (one line): magic, round, geometry
 *   4 KiB    index: sessions x blocks checksums (8 bytes each)
 *   1 MiB    blocks: session s, block b at KV_DATA + (s x blocks + b) x block_bytes
 *
 * The timing model watches the first 64 MiB of a pool for stale reads
 * (model_stale.h), so the store must fit there.
 */
#ifndef CXLBED_KV_LAYOUT_H
#define CXLBED_KV_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#define KV_MAGIC	0x314552414853564bull	/* "KVSHARE1" */
#define KV_INDEX	4096u
#define KV_DATA		(1u << 20)
#define KV_WATCHED	(64u << 20)	/* the model's stale-read window */
#define KV_MAX_SESSIONS	256
#define KV_MAX_BLOCKS	64		/* per session */

/* Line 0 of the store; the writer sets round last (the store is whole). */
struct kv_header {
	uint64_t magic;
	uint64_t round;
	uint32_t sessions, blocks;	/* blocks per session */
	uint32_t prefix_tokens, block_tokens;
	uint64_t kv_per_token;		/* bytes of KV cache per token */
	uint64_t block_bytes;
};

struct kv_geometry {
	uint32_t sessions, prefix_tokens, block_tokens;
	uint64_t kv_per_token;
};

/* Blocks per session and their size; NULL when it fits, else why not. */
const char *kv_geometry_check(const struct kv_geometry *g);
uint32_t kv_blocks(const struct kv_geometry *g);
uint64_t kv_block_bytes(const struct kv_geometry *g);
/* Bytes of the mapping the store needs. */
uint64_t kv_store_bytes(const struct kv_geometry *g);

static inline uint64_t *kv_index(void *store)
{
	return (uint64_t *)((char *)store + KV_INDEX);
}

static inline void *kv_block(void *store, uint32_t blocks, uint64_t block_bytes,
			     uint32_t session, uint32_t b)
{
	return (char *)store + KV_DATA +
	       ((uint64_t)session * blocks + b) * block_bytes;
}

/* Fill block @b of @session for @round with its words (any host, any time:
 * the contents are a function of the three). */
void kv_fill(uint64_t *w, uint64_t bytes, uint64_t round, uint32_t session,
	     uint32_t b);
/* The block's checksum, as the index keeps it. */
uint64_t kv_checksum(const uint64_t *w, uint64_t bytes);

#endif
