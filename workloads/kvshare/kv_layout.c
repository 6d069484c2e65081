// SPDX-License-Identifier: MIT
/* The KV-block store's geometry, contents and checksum (kv_layout.h). */
#include "kv_layout.h"

uint32_t kv_blocks(const struct kv_geometry *g)
{
	return (g->prefix_tokens + g->block_tokens - 1) / g->block_tokens;
}

uint64_t kv_block_bytes(const struct kv_geometry *g)
{
	return (uint64_t)g->block_tokens * g->kv_per_token;
}

uint64_t kv_store_bytes(const struct kv_geometry *g)
{
	return KV_DATA + (uint64_t)g->sessions * kv_blocks(g) * kv_block_bytes(g);
}

const char *kv_geometry_check(const struct kv_geometry *g)
{
	if (!g->sessions || g->sessions > KV_MAX_SESSIONS)
		return "--sessions must be 1..256";
	if (!g->prefix_tokens || !g->block_tokens)
		return "--prefix-tokens and --block-tokens must be at least 1";
	if (!g->kv_per_token || g->kv_per_token % 64)
		return "--kv-per-token must be a positive multiple of 64 bytes";
	if (kv_blocks(g) > KV_MAX_BLOCKS)
		return "a prefix holds at most 64 blocks: raise --block-tokens";
	if ((uint64_t)g->sessions * kv_blocks(g) * 8 > KV_DATA - KV_INDEX)
		return "the index does not fit below 1 MiB";
	if (kv_store_bytes(g) > KV_WATCHED)
		return "the store is larger than the 64 MiB of a pool the timing "
		       "model watches for stale reads: fewer sessions or tokens";
	return 0;
}

/* splitmix64: every word differs with round, session, block and place */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

void kv_fill(uint64_t *w, uint64_t bytes, uint64_t round, uint32_t session,
	     uint32_t b)
{
	uint64_t seed = mix(mix(mix(round) ^ session) ^ b);

	for (uint64_t i = 0; i < bytes / 8; i++)
		w[i] = seed ^ (i * 0x9e3779b97f4a7c15ull);
}

uint64_t kv_checksum(const uint64_t *w, uint64_t bytes)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (uint64_t i = 0; i < bytes / 8; i++)
		h = (h ^ w[i]) * 0x100000001b3ull;
	return h;
}
