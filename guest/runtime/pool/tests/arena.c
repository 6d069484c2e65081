/* SPDX-License-Identifier: MIT */
/* The devdax arena: first fit, rounding, coalescing (arena.c). */
#include "arena.h"
#include "tap.h"

int main(void)
{
	struct cp_arena a;
	size_t x, y, z;

	plan(9);
	cp_arena_init(&a, 64 * 4096 + 100, 4096);
	is_int(a.size, 64 * 4096, "the arena is whole pages");
	x = cp_arena_alloc(&a, 1);
	y = cp_arena_alloc(&a, 4097);
	z = cp_arena_alloc(&a, 4096);
	ok(x == 0 && y == 4096 && z == 3 * 4096, "first fit, sizes rounded up to pages");
	is_int(a.used, 4 * 4096, "used counts the rounded sizes");
	ok(cp_arena_alloc(&a, 61 * 4096) == CP_ARENA_NONE, "more than is left is refused");
	cp_arena_free(&a, y, 4097);
	is_int(cp_arena_largest(&a), 60 * 4096, "a hole of 2 pages does not merge with the tail");
	cp_arena_free(&a, x, 1);
	ok(a.nfree == 2 && a.free[0].off == 0 && a.free[0].len == 3 * 4096,
	   "freeing the neighbour before the hole merges them");
	cp_arena_free(&a, z, 4096);
	ok(a.nfree == 1 && cp_arena_largest(&a) == 64 * 4096,
	   "freeing the last block in between leaves one extent");
	is_int(a.used, 0, "nothing used");
	ok(cp_arena_alloc(&a, 64 * 4096) == 0, "the whole arena can be taken again");
	cp_arena_fini(&a);
	return done_testing();
}
