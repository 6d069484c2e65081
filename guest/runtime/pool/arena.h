/* SPDX-License-Identifier: MIT */
/*
 * A first-fit allocator over one range (a devdax mapping has no kernel
 * allocator behind it): extents are page multiples, freeing coalesces
 * with both neighbours. The free list is kept sorted by offset.
 */
#ifndef CXLPOOL_ARENA_H
#define CXLPOOL_ARENA_H

#include <stddef.h>
#include <stdint.h>

#define CP_ARENA_NONE SIZE_MAX

struct cp_extent {
	size_t off, len;
};

struct cp_arena {
	size_t size, align, used;
	struct cp_extent *free;
	size_t nfree, cap;
};

int cp_arena_init(struct cp_arena *a, size_t size, size_t align);
void cp_arena_fini(struct cp_arena *a);
/* Offset of @n bytes (rounded up to align), or CP_ARENA_NONE. */
size_t cp_arena_alloc(struct cp_arena *a, size_t n);
void cp_arena_free(struct cp_arena *a, size_t off, size_t n);
/* The largest extent that could be allocated now. */
size_t cp_arena_largest(const struct cp_arena *a);

#endif
