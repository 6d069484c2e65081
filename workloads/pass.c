// SPDX-License-Identifier: MIT
#include "pass.h"

#define WORDS (WL_LINE / sizeof(uint64_t))

/* Keeps the read sums from being optimised away. */
static volatile uint64_t sink;

static const struct {
	const char *label, *roi;
	unsigned int period;	/* lines in one read/write pattern */
	int write_slot;		/* which of them is written; -1: none */
} kinds[WL_NKINDS] = {
	[WL_READ]  = { "read", "read", 1, -1 },
	[WL_WRITE] = { "write", "write", 1, 0 },
	[WL_MIX21] = { "2:1", "mix", 3, 2 },
	[WL_MIX11] = { "1:1", "mix", 2, 1 },
};

const char *wl_kind_label(int kind)
{
	return kinds[kind].label;
}

const char *wl_kind_roi(int kind)
{
	return kinds[kind].roi;
}

/*
 * A bijection on [0, 2^bits): odd multiplies and xorshifts modulo 2^bits
 * are each invertible. Walking it until the value is below n (cycle
 * walking) makes it a bijection on [0, n) with no table in memory, whose
 * reads would be traffic of their own.
 */
struct order {
	uint64_t mask, seed;
	unsigned int shift;
};

static inline uint64_t scramble(const struct order *o, uint64_t x)
{
	x = ((x ^ o->seed) * 0x9e3779b97f4a7c15ULL) & o->mask;
	x ^= x >> o->shift;
	x = (x * 0xbf58476d1ce4e5b9ULL) & o->mask;
	x ^= x >> o->shift;
	return x;
}

static inline size_t line_at(const struct order *o, size_t n, size_t k)
{
	uint64_t x = k;

	do
		x = scramble(o, x);
	while (x >= n);
	return x;
}

void wl_pass(void *buf, size_t lines, int kind, bool random, uint64_t seed,
	     struct wl_moved *m)
{
	uint64_t (*line)[WORDS] = buf;
	unsigned int bits = 1, phase = 0, period = kinds[kind].period;
	int wslot = kinds[kind].write_slot;
	uint64_t s0 = 0, s1 = 0, nw = 0;
	struct order o;

	while (bits < 64 && (1ULL << bits) < lines)
		bits++;
	o.mask = bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
	o.seed = seed & o.mask;
	o.shift = bits / 2 + 1;
	for (size_t k = 0; k < lines; k++) {
		uint64_t *l = line[random ? line_at(&o, lines, k) : k];

		if ((int)phase == wslot) {
			/* distinct values: no memset, no non-temporal stores */
			for (unsigned int w = 0; w < WORDS; w++)
				l[w] = k + w;
			nw++;
		} else {
			for (unsigned int w = 0; w < WORDS; w += 2) {
				s0 += l[w];
				s1 += l[w + 1];
			}
		}
		if (++phase == period)
			phase = 0;
	}
	sink = s0 + s1;
	m->write_bytes += nw * WL_LINE;
	m->read_bytes += (lines - nw) * WL_LINE;
}
