// SPDX-License-Identifier: MIT
/*
 * cxlbed-verify: does memory on a node (or a dax device) hold what is
 * written to it? Writes a pattern derived from each word's offset and a
 * seed, reads it all back, counts mismatches. An emulator can enumerate a
 * device whose accesses go nowhere (QEMU 10 decodes one switch level
 * only); latency and bandwidth would not notice, this does.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "wl.h"

static uint64_t pattern(uint64_t seed, size_t i)
{
	uint64_t x = seed ^ (i * 0x9e3779b97f4a7c15ull);

	x ^= x >> 31;
	return x * 0xbf58476d1ce4e5b9ull;
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .node = -1, .bytes = 4 << 20 };
	uint64_t seed = (uint64_t)time(NULL) * 2654435761u;
	volatile uint64_t *buf;
	size_t n, bad = 0, first_bad = (size_t)-1;
	uint64_t got_first = 0;
	double t0;

	wl_parse("verify", argc, argv, &o, WL_OPT_DAX);
	n = o.bytes / sizeof(uint64_t);
	t0 = wl_now();
	buf = o.dax ? wl_map_dax("verify", o.dax, o.bytes) :
		wl_alloc_on_node("verify", o.bytes, o.node);
	for (size_t i = 0; i < n; i++)
		buf[i] = pattern(seed, i);
	for (size_t i = 0; i < n; i++)
		if (buf[i] != pattern(seed, i)) {
			if (!bad++) {
				first_bad = i * sizeof(uint64_t);
				got_first = buf[i];
			}
		}
	printf("{\"workload\":\"verify\",\"node\":%d,%s%s%s\"bytes\":%zu,"
	       "\"mismatched_words\":%zu,\"first_bad_offset\":%lld,"
	       "\"first_bad_value\":\"0x%016llx\",\"on_node\":%.2f,\"seconds\":%.3f,"
	       "\"clock\":\"guest\"}\n", o.node, o.dax ? "\"dax\":\"" : "",
	       o.dax ? o.dax : "", o.dax ? "\"," : "", o.bytes, bad,
	       bad ? (long long)first_bad : -1LL, (unsigned long long)got_first,
	       o.dax ? 1.0 : wl_on_node((void *)buf, o.bytes, o.node),
	       wl_now() - t0);
	return bad ? 1 : 0;
}
