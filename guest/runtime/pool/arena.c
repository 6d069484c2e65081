/* SPDX-License-Identifier: MIT */
/* First-fit extent allocator; see arena.h. */
#include <stdlib.h>
#include <string.h>

#include "arena.h"

static size_t round_up(size_t n, size_t a)
{
	return (n + a - 1) / a * a;
}

int cp_arena_init(struct cp_arena *a, size_t size, size_t align)
{
	memset(a, 0, sizeof(*a));
	a->align = align ? align : 4096;
	a->size = size / a->align * a->align;
	a->cap = 16;
	a->free = malloc(a->cap * sizeof(*a->free));
	if (!a->free)
		return -1;
	if (a->size)
		a->free[a->nfree++] = (struct cp_extent){ 0, a->size };
	return 0;
}

void cp_arena_fini(struct cp_arena *a)
{
	free(a->free);
	memset(a, 0, sizeof(*a));
}

size_t cp_arena_alloc(struct cp_arena *a, size_t n)
{
	n = round_up(n ? n : 1, a->align);
	for (size_t i = 0; i < a->nfree; i++) {
		struct cp_extent *e = &a->free[i];
		size_t off = e->off;

		if (e->len < n)
			continue;
		e->off += n;
		e->len -= n;
		if (!e->len) {
			memmove(e, e + 1, (a->nfree - i - 1) * sizeof(*e));
			a->nfree--;
		}
		a->used += n;
		return off;
	}
	return CP_ARENA_NONE;
}

void cp_arena_free(struct cp_arena *a, size_t off, size_t n)
{
	size_t i = 0;

	n = round_up(n ? n : 1, a->align);
	while (i < a->nfree && a->free[i].off < off)
		i++;
	a->used -= n;
	/* Joins the extent before it, the one after it, or both. */
	if (i > 0 && a->free[i - 1].off + a->free[i - 1].len == off) {
		a->free[i - 1].len += n;
		if (i < a->nfree && off + n == a->free[i].off) {
			a->free[i - 1].len += a->free[i].len;
			memmove(&a->free[i], &a->free[i + 1],
				(a->nfree - i - 1) * sizeof(*a->free));
			a->nfree--;
		}
		return;
	}
	if (i < a->nfree && off + n == a->free[i].off) {
		a->free[i].off = off;
		a->free[i].len += n;
		return;
	}
	if (a->nfree == a->cap) {
		struct cp_extent *f = realloc(a->free, 2 * a->cap * sizeof(*f));

		if (!f)
			return;	/* the extent is lost to the arena, not to memory */
		a->free = f;
		a->cap *= 2;
	}
	memmove(&a->free[i + 1], &a->free[i], (a->nfree - i) * sizeof(*a->free));
	a->free[i] = (struct cp_extent){ off, n };
	a->nfree++;
}

size_t cp_arena_largest(const struct cp_arena *a)
{
	size_t best = 0;

	for (size_t i = 0; i < a->nfree; i++)
		if (a->free[i].len > best)
			best = a->free[i].len;
	return best;
}
