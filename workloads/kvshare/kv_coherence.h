/* SPDX-License-Identifier: MIT */
/*
 * Sharing the store without coherence (CXL 2.0/3.0 pools without
 * back-invalidate, docs/kv-share.md): the writer writes back every line
 * it wrote before it publishes, the reader invalidates every line before
 * it reads it, or it may read the copy its caches kept from before. Both
 * are clflushopt, line by line, then a fence. The timing model applies
 * each to the host's caches and counts the stale reads a skipped one
 * leaves (model_stale.h).
 */
#ifndef CXLBED_KV_COHERENCE_H
#define CXLBED_KV_COHERENCE_H

#include <stdint.h>

/* Write back [p, p + bytes): the other hosts may read it from memory. */
void kv_write_back(const void *p, uint64_t bytes);
/* Drop this host's copies of [p, p + bytes) before reading it. */
void kv_invalidate(const void *p, uint64_t bytes);

#endif
