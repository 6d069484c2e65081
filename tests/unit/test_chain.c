// SPDX-License-Identifier: MIT
/*
 * The workloads' chase chain (workloads/cycle.c), on the host: a lap of
 * either chain visits every line once, the stored cycle keeps its order,
 * the computed one feeds each load into the next address, and auto falls
 * back to computed when the memory does not keep what was written.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
/* the guest workloads are not a library of the host: take the source */
#include "../../workloads/cycle.c"

void wl_fail(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("Bail out! %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(255);
}

#define SEED	0x9e3779b97f4a7c15ULL	/* the programs' seed */

static struct wl_line *lines(size_t n)
{
	struct wl_line *b = calloc(n, sizeof(*b));

	if (!b) {
		printf("Bail out! out of memory for %zu lines\n", n);
		exit(255);
	}
	return b;
}

/* Bytes no build wrote: a fixed pseudo-random pattern. */
static void garbage(void *p, size_t bytes, uint64_t seed)
{
	uint64_t *w = p, x = seed | 1;

	for (size_t i = 0; i < bytes / sizeof(*w); i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		w[i] = x;
	}
}

/* One lap (n loads) from line 0: every line once, then back at line 0. */
static int one_lap(struct wl_chain *c)
{
	unsigned char *seen = calloc(c->n, 1);
	size_t twice = 0, pos = wl_chain_pos(c);
	int good = pos == 0;

	for (size_t i = 0; i < c->n && good; i++) {
		pos = wl_chain_pos(c);
		if (pos >= c->n) {
			diag("  step %zu: line %zu of %zu", i, pos, c->n);
			good = 0;
			break;
		}
		twice += seen[pos]++ != 0;
		wl_chain_walk(c, 1);
	}
	if (twice)
		diag("  %zu lines visited twice", twice);
	good = good && !twice && wl_chain_pos(c) == 0;
	free(seen);
	return good;
}

int main(void)
{
	static const size_t ns[] = { 2, 3, 1000, 4096, 1000003, 1 << 20 };
	/* the first lines of the stored cycle, taken before the chain API */
	static const size_t gold_1000[] = { 0, 370, 196, 294, 722, 195, 425,
					    157, 649, 143, 810, 823 };
	static const size_t gold_1m[] = { 0, 1033968, 764031, 807941, 235966,
					  530258, 894482, 319579, 109531,
					  672169, 361638, 776720 };
	enum { N = sizeof(ns) / sizeof(ns[0]), GOLD = 12 };
	struct wl_chain c;
	struct wl_line *a, *b;
	size_t n, bad;
	int same;

	plan(4 * N + 13);
	for (int i = 0; i < N; i++) {
		a = lines(ns[i]);
		garbage(a, ns[i] * sizeof(*a), 7);
		b = lines(ns[i]);
		memcpy(b, a, ns[i] * sizeof(*a));
		wl_chain_build("test", &c, a, ns[i], SEED, WL_CHAIN_COMPUTED);
		is_str(wl_chain_name(&c), "computed", "n=%zu: computed chain", ns[i]);
		ok(one_lap(&c), "n=%zu: a computed lap visits every line once", ns[i]);
		ok(!memcmp(a, b, ns[i] * sizeof(*a)),
		   "n=%zu: the computed chain writes nothing", ns[i]);
		wl_chain_build("test", &c, a, ns[i], SEED, WL_CHAIN_STORED);
		ok(one_lap(&c), "n=%zu: a stored lap visits every line once", ns[i]);
		free(a);
		free(b);
	}

	/* the stored order is the one the figures so far were taken with */
	for (int g = 0; g < 2; g++) {
		const size_t *gold = g ? gold_1m : gold_1000;

		n = g ? 1 << 20 : 1000;
		a = lines(n);
		wl_chain_build("test", &c, a, n, SEED, WL_CHAIN_STORED);
		same = 1;
		for (int i = 0; i < GOLD; i++) {
			same &= wl_chain_pos(&c) == gold[i];
			wl_chain_walk(&c, 1);
		}
		ok(same, "n=%zu: the stored cycle's order is unchanged", n);
		free(a);
	}

	/* the loaded word feeds the next address (were it not, the loads
	 * would not wait for each other) */
	n = 1 << 20;
	a = lines(n);
	for (size_t i = 0; i < n; i++)
		*(uint64_t *)&a[i] = WL_CHAIN_STEP;
	wl_chain_build("test", &c, a, n, SEED, WL_CHAIN_COMPUTED);
	{
		struct wl_chain d = c;

		wl_chain_walk(&c, 1);
		wl_chain_zero = ~0ULL;
		wl_chain_walk(&d, 1);
		wl_chain_zero = 0;
		ok(wl_chain_pos(&d) != wl_chain_pos(&c),
		   "the loaded word takes part in the next address");
	}

	/* auto: stored where memory keeps data */
	wl_chain_build("test", &c, a, n, SEED, WL_CHAIN_AUTO);
	is_str(wl_chain_name(&c), "stored", "auto on normal memory: stored");
	ok(c.nchecks == WL_CHAIN_CHECKS, "auto checks %d links", WL_CHAIN_CHECKS);
	is_int(wl_chain_verify(&c), 0, "verify finds the stored links intact");
	is_str(wl_chain_name(&c), "stored", "and keeps the stored chain");

	/* auto where writes are lost: the buffer read back is another one */
	b = lines(n);
	garbage(b, n * sizeof(*b), 11);
	c.buf = b;
	bad = wl_chain_verify(&c);
	ok(bad == c.nchecks, "verify on lost writes: %zu of %u links differ",
	   bad, c.nchecks);
	is_str(wl_chain_name(&c), "computed", "lost writes: computed chain");
	ok(one_lap(&c), "which laps the garbage buffer, every line once");

	/*
	 * Part of the memory lost: one way of a 2-way interleave at 16 KiB
	 * granules (CXL's largest) drops writes. A power-of-two sampling
	 * stride would land on the same way every time.
	 */
	wl_chain_build("test", &c, a, n, SEED, WL_CHAIN_STORED);
	for (size_t off = 16384; off < n * sizeof(*a); off += 2 * 16384)
		garbage((char *)a + off, 16384, off);
	bad = wl_chain_verify(&c);
	ok(bad > 0 && bad < c.nchecks, "one interleave way lost: %zu of %u "
	   "links differ", bad, c.nchecks);
	is_str(wl_chain_name(&c), "computed", "one way lost: computed chain");

	/* small chains check what they have */
	free(a);
	a = lines(3);
	wl_chain_build("test", &c, a, 3, SEED, WL_CHAIN_AUTO);
	ok(c.nchecks >= 3 && !wl_chain_verify(&c) && c.mode == WL_CHAIN_STORED,
	   "n=3: auto checks %u links and keeps the stored chain", c.nchecks);
	free(a);
	free(b);
	return done_testing();
}
