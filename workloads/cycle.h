/* SPDX-License-Identifier: MIT */
/*
 * The pointer chase shared by cxlbed-chase and cxlbed-loaded: a chain of
 * dependent loads through every cache line of a buffer in a scattered
 * order, so every load waits for the one before and a lap touches each
 * line once.
 *
 * Two ways to find the next line:
 *   stored    one random cycle (Sattolo) through next pointers kept in the
 *             lines: the classic chase, the address comes from memory.
 *   computed  a bijection of a counter picks the line; the loaded word is
 *             folded into the counter through a zero the compiler cannot
 *             see, so each load still waits for the one before, but the
 *             addresses do not depend on what memory holds. For memory
 *             that is enumerated but keeps no data (QEMU 10 routes CXL
 *             accesses through one switch level only): the timing model
 *             still times every load on its path.
 * auto builds the stored cycle, reads a sample of it back and falls back
 * to computed if the memory did not keep it.
 */
#ifndef CXLBED_WL_CYCLE_H
#define CXLBED_WL_CYCLE_H

#include <stddef.h>
#include <stdint.h>

#include "pass.h"

struct wl_line {
	struct wl_line *next;
	char pad[WL_LINE - sizeof(struct wl_line *)];
};

enum wl_chain_mode { WL_CHAIN_STORED, WL_CHAIN_COMPUTED, WL_CHAIN_AUTO };

#define WL_CHAIN_CHECKS	256	/* links auto reads back */

struct wl_chain {
	enum wl_chain_mode mode;	/* stored or computed once built */
	struct wl_line *buf;
	size_t n;			/* lines */
	struct wl_line *p;		/* stored: the line loaded next */
	uint64_t k;			/* computed: counter x WL_CHAIN_STEP */
	uint64_t mask;			/* computed: 2^bits - 1 >= n - 1 */
	unsigned int shift;		/* computed: xorshift distance */
	/* stored: sampled lines and the successors the build wrote there */
	uint32_t nchecks;
	uint32_t check_at[WL_CHAIN_CHECKS], check_next[WL_CHAIN_CHECKS];
};

/* Always 0; volatile so that the compiler cannot fold it away. */
extern volatile uint64_t wl_chain_zero;

/*
 * Lay a chain over the n lines of buf (2..2^32) as @mode says; the stored
 * cycle depends on @seed only. Auto keeps the stored cycle if
 * wl_chain_verify() finds it intact. Exits on error.
 */
void wl_chain_build(const char *name, struct wl_chain *c, struct wl_line *buf,
		    size_t n, uint64_t seed, enum wl_chain_mode mode);
/*
 * Auto's check: read back the sampled links of a stored chain. If any of
 * them does not hold what the build wrote, @c becomes the computed chain
 * over the same lines. Returns how many differed (0 for a computed chain).
 */
size_t wl_chain_verify(struct wl_chain *c);
/* "stored" or "computed". */
const char *wl_chain_name(const struct wl_chain *c);
/* The line the next step loads (for tests). */
size_t wl_chain_pos(const struct wl_chain *c);

/*
 * The computed order. Odd multiplies and xorshifts modulo 2^bits are each
 * invertible, so line = scramble(counter x WL_CHAIN_STEP) is a bijection
 * of [0, 2^bits); the counter keeps the product (it steps by the odd
 * constant), which saves a multiply per load. bits <= 32, so only the
 * constants' low 32 bits count; below 2^31 they are immediates.
 */
#define WL_CHAIN_STEP	0x61c88647u

static inline uint64_t wl_chain_scramble(uint64_t k, uint64_t mask,
					 unsigned int shift)
{
	uint64_t x = k & mask;

	x ^= x >> shift;
	x = (x * 0x5bd1e995u) & mask;
	x ^= x >> shift;
	return x;
}

/*
 * Load @steps lines. Returns where the walk stands (a value that depends
 * on every load: keep it, e.g. in a volatile, so the chase stays live).
 */
static inline uint64_t wl_chain_walk(struct wl_chain *c, uint64_t steps)
{
	/* the lines may hold the stored cycle's pointers */
	typedef uint64_t __attribute__((may_alias)) word;
	const char *base = (const char *)c->buf;
	uint64_t k, mask, n, zero;
	unsigned int shift;

	if (c->mode == WL_CHAIN_STORED) {
		struct wl_line *p = c->p;

		while (steps--)
			p = p->next;
		c->p = p;
		return (uintptr_t)p;
	}
	k = c->k;
	mask = c->mask;
	n = c->n;
	shift = c->shift;
	zero = wl_chain_zero;	/* once: it lives in a register */
	while (steps--) {
		uint64_t x;

		/* counter values past the last line are skipped */
		do {
			x = wl_chain_scramble(k, mask, shift);
			k += WL_CHAIN_STEP;
		} while (x >= n);
		k += *(const word *)(base + x * WL_LINE) & zero;
	}
	c->k = k;
	return k;
}

#endif
