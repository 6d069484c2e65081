// SPDX-License-Identifier: MIT
/* cxlbed-kvshare's parts on the host: geometry, contents and checksums,
 * which requests hit, and the TTFT statistics. */
#include <stdlib.h>

#include "kv.h"
#include "kv_stats.h"
#include "tap.h"

static void geometry(void)
{
	struct kv_geometry g = { 8, 64, 16, 16384 };

	ok(!kv_geometry_check(&g), "8 sessions of 64 tokens x 16 KiB fit");
	ok(kv_blocks(&g) == 4 && kv_block_bytes(&g) == 256 << 10,
	   "4 blocks of 256 KiB a prefix");
	ok(kv_store_bytes(&g) == (1 << 20) + (8u << 20), "store: 1 MiB + 8 MiB");
	g.sessions = 64;
	ok(kv_geometry_check(&g) != NULL, "64 x 1 MiB is past the watched 64 MiB");
	g = (struct kv_geometry){ 1, 65, 1, 64 };
	ok(kv_geometry_check(&g) != NULL, "65 blocks a prefix refused");
	g = (struct kv_geometry){ 1, 1, 1, 100 };
	ok(kv_geometry_check(&g) != NULL, "KV per token not a multiple of 64 refused");
}

static void contents(void)
{
	uint64_t a[512], b[512];
	uint64_t sum;

	kv_fill(a, sizeof(a), 1, 3, 2);
	kv_fill(b, sizeof(b), 2, 3, 2);
	sum = kv_checksum(a, sizeof(a));
	ok(sum != kv_checksum(b, sizeof(b)), "another round, another checksum");
	kv_fill(b, sizeof(b), 1, 3, 2);
	ok(sum == kv_checksum(b, sizeof(b)), "the same block, the same checksum");
	b[100] ^= 1ull << 17;
	ok(sum != kv_checksum(b, sizeof(b)), "one bit flipped is caught");
}

static void hit_plan(void)
{
	const double ratios[] = { 0, 0.25, 0.5, 0.75, 1, 0.3 };

	for (size_t r = 0; r < sizeof(ratios) / sizeof(*ratios); r++) {
		unsigned int n = 0, first_half = 0;

		for (uint32_t i = 0; i < 16; i++) {
			n += kv_request_hits(ratios[r], i);
			first_half += i < 8 && kv_request_hits(ratios[r], i);
		}
		ok(n == (unsigned int)(16 * ratios[r] + 0.5),
		   "ratio %.2f: %u of 16 hit", ratios[r], n);
		ok(abs((int)(2 * first_half) - (int)n) <= 1,
		   "ratio %.2f: spread evenly (%u in the first half)", ratios[r], first_half);
	}
}

static void stats(void)
{
	double x[100];

	for (int i = 0; i < 100; i++)
		x[i] = 100 - i;		/* 100 .. 1 */
	ok(kv_mean(x, 100) == 50.5, "mean");
	ok(kv_quantile(x, 100, 0.5) == 50, "median (nearest rank)");
	ok(kv_quantile(x, 100, 0.99) == 99, "p99 (nearest rank)");
	ok(kv_quantile(x, 3, 0.99) == 3, "p99 of three: the largest");
}

int main(void)
{
	plan(25);
	geometry();
	contents();
	hit_plan();
	stats();
	return done_testing();
}
