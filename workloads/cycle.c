// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>

#include "cycle.h"
#include "wl.h"

volatile uint64_t wl_chain_zero;

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The line the computed walk loads next from counter state k. */
static size_t computed_line(const struct wl_chain *c, uint64_t k)
{
	uint64_t x;

	for (;; k += WL_CHAIN_STEP)
		if ((x = wl_chain_scramble(k, c->mask, c->shift)) < c->n)
			return x;
}

/*
 * Lines whose links auto reads back: the first, the last, and lines
 * spread by the computed order. A regular stride could fall on the same
 * way of an interleave set every time and miss the ways that drop data.
 */
static void pick_checks(struct wl_chain *c)
{
	c->nchecks = 0;
	c->check_at[c->nchecks++] = 0;
	c->check_at[c->nchecks++] = c->n - 1;
	for (uint64_t k = 1; k <= c->mask && c->nchecks < WL_CHAIN_CHECKS; k++) {
		uint64_t x = wl_chain_scramble(k * WL_CHAIN_STEP, c->mask,
					       c->shift);

		if (x < c->n)
			c->check_at[c->nchecks++] = x;
	}
}

/*
 * Sattolo's algorithm gives a single cycle through all n lines. The order
 * is built in local memory and written to the measured buffer sequentially,
 * which is far cheaper on slow (emulated) memory than scattered writes.
 */
static void build_stored(const char *name, struct wl_chain *c, uint64_t seed)
{
	struct wl_line *buf = c->buf;
	size_t n = c->n, i;
	uint32_t *perm = malloc(n * sizeof(*perm));
	uint32_t *succ = malloc(n * sizeof(*succ));
	uint64_t rng = seed | 1;

	if (!perm || !succ)
		wl_fail(name, "out of memory for %zu lines", n);
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) {
		size_t j = xorshift(&rng) % i;
		uint32_t t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (i = 0; i < n; i++)
		succ[perm[i]] = perm[(i + 1) % n];
	for (i = 0; i < n; i++)
		buf[i].next = &buf[succ[i]];
	pick_checks(c);
	for (i = 0; i < c->nchecks; i++)
		c->check_next[i] = succ[c->check_at[i]];
	free(perm);
	free(succ);
	c->mode = WL_CHAIN_STORED;
}

void wl_chain_build(const char *name, struct wl_chain *c, struct wl_line *buf,
		    size_t n, uint64_t seed, enum wl_chain_mode mode)
{
	unsigned int bits = 1;
	size_t bad;

	if (n < 2 || n > UINT32_MAX)
		wl_fail(name, "a chase needs 2..2^32 lines of %d bytes", WL_LINE);
	while ((1ULL << bits) < n)
		bits++;
	*c = (struct wl_chain){
		.mode = WL_CHAIN_COMPUTED, .buf = buf, .n = n, .p = buf,
		.mask = (1ULL << bits) - 1, .shift = (bits + 1) / 2,
	};
	if (mode == WL_CHAIN_COMPUTED)
		return;
	build_stored(name, c, seed);
	if (mode == WL_CHAIN_AUTO && (bad = wl_chain_verify(c)))
		fprintf(stderr, "%s: %zu of %u links read back wrong (memory "
			"that keeps no data?): computed chain\n", name, bad,
			c->nchecks);
}

size_t wl_chain_verify(struct wl_chain *c)
{
	size_t bad = 0;

	if (c->mode != WL_CHAIN_STORED)
		return 0;
	for (uint32_t i = 0; i < c->nchecks; i++) {
		/* volatile: ask the memory, not what the compiler saw stored */
		struct wl_line *const volatile *link =
			&c->buf[c->check_at[i]].next;

		bad += *link != &c->buf[c->check_next[i]];
	}
	if (bad) {
		c->mode = WL_CHAIN_COMPUTED;
		c->k = 0;
	}
	return bad;
}

const char *wl_chain_name(const struct wl_chain *c)
{
	return c->mode == WL_CHAIN_STORED ? "stored" : "computed";
}

size_t wl_chain_pos(const struct wl_chain *c)
{
	if (c->mode == WL_CHAIN_STORED)
		return c->p - c->buf;
	return computed_line(c, c->k);
}
