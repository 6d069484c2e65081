// SPDX-License-Identifier: MIT
#include <stdlib.h>

#include "cycle.h"
#include "wl.h"

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Sattolo's algorithm gives a single cycle through all n lines. The order
 * is built in local memory and written to the measured buffer sequentially,
 * which is far cheaper on slow (emulated) memory than scattered writes.
 */
void wl_cycle_build(const char *name, struct wl_line *buf, size_t n,
		    uint64_t seed)
{
	uint32_t *perm = malloc(n * sizeof(*perm));
	uint32_t *succ = malloc(n * sizeof(*succ));
	uint64_t rng = seed | 1;
	size_t i;

	if (n < 2 || n > UINT32_MAX)
		wl_fail(name, "a chase needs 2..2^32 lines of %d bytes", WL_LINE);
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
	free(perm);
	free(succ);
}
