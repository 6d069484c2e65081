// SPDX-License-Identifier: MIT
/*
 * cxlbed-chase: idle load-to-use latency of one NUMA node. A pointer chase
 * through one random cycle over a working set much larger than the caches:
 * every load depends on the previous one, so ns/access is the latency.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "roi.h"
#include "wl.h"

#define LINE 64	/* one pointer per cache line */

struct line {
	struct line *next;
	char pad[LINE - sizeof(struct line *)];
};

/* Keeps the chase from being optimised away. */
static volatile uintptr_t sink;
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t xorshift(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/*
 * Sattolo's algorithm gives a single cycle through all n lines. The order
 * is built in local memory and written to the measured buffer sequentially,
 * which is far cheaper on slow (emulated) memory than scattered writes.
 */
static void build_cycle(struct line *buf, size_t n)
{
	uint32_t *perm = malloc(n * sizeof(*perm));
	uint32_t *succ = malloc(n * sizeof(*succ));
	size_t i;

	if (!perm || !succ)
		wl_fail("chase", "out of memory for %zu lines", n);
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) {
		size_t j = xorshift() % i;
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

int main(int argc, char **argv)
{
	/*
	 * Defaults sized for emulated CXL memory under TCG (~1 us an access,
	 * up to 1 s a MiB to fault in); elsewhere pass --bytes 256M or more.
	 */
	struct wl_opts o = { .node = -1, .bytes = 4 << 20, .accesses = 200000 };
	struct line *buf, *p;
	uint64_t done = 0, chunk;
	double t0, t1, placed;
	size_t n;

	wl_parse("chase", argc, argv, &o);
	n = o.bytes / LINE;
	if (n < 2 || n > UINT32_MAX)
		wl_fail("chase", "--bytes must hold 2..2^32 lines of %d bytes", LINE);
	buf = wl_alloc_on_node("chase", n * LINE, o.node);
	placed = wl_on_node(buf, n * LINE, o.node);
	build_cycle(buf, n);

	p = &buf[0];
	for (chunk = 0; chunk < 10000; chunk++)	/* warm the TLB a little */
		p = p->next;
	/* With --seconds, run in chunks until the time is up. */
	chunk = o.seconds > 0 ? 65536 : o.accesses;
	roi_begin();
	t0 = wl_now();
	do {
		for (uint64_t i = 0; i < chunk; i++)
			p = p->next;
		done += chunk;
		t1 = wl_now();
	} while (o.seconds > 0 && t1 - t0 < o.seconds);
	roi_end();

	printf("{\"workload\":\"chase\",\"node\":%d,\"bytes\":%zu,\"accesses\":%llu,"
	       "\"ns_per_access\":%.1f,\"seconds\":%.3f,\"on_node\":%.2f,"
	       "\"clock\":\"guest\"}\n",
	       o.node, n * LINE, (unsigned long long)done,
	       (t1 - t0) * 1e9 / done, t1 - t0, placed);
	sink = (uintptr_t)p;
	return 0;
}
