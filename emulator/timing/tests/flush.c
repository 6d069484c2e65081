// SPDX-License-Identifier: MIT
/*
 * clflush in the model (tm_mem_flush): a cached line read again after
 * its flush misses and pays the path's latency (without the flush it
 * hits), a flushed dirty line is written to memory once, a clean one not
 * at all, and another core's copy goes too.
 */
#include <string.h>

#include "tap.h"
#include "model_mem.h"
#include "shm_links.h"

#define LAT 250.0	/* a pool's: media + path */

int main(void)
{
	struct tm_mem_cfg cfg = {
		.line_bytes = 64, .l1_bytes = 32 << 10, .l1_ways = 8,
		.l2_bytes = 256 << 10, .l2_ways = 16, .llc_bytes = 1 << 20,
		.llc_ways = 16, .mlp = 16, .prefetch_distance = 0,
		.snoop_ns = 40,
	};
	struct mf_target pool = { .name = "pool", .path = "pool", .cxl = true,
				  .media_ns = { LAT, LAT } };
	struct mf_fabric fab = { .ntargets = 1, .targets = &pool,
				 .local = &pool };
	struct tm_host_mem h;
	struct tm_cpu_mem a, b;
	struct tm_shared *shm;
	char *err = NULL;
	uint64_t pa = 0x40000, w0;
	double now = 0, t;

	plan(5);
	shm = tm_shared_open(NULL, &err);
	pool.res[pool.nres++] = tm_shared_res(shm, "media", 20, 20, 0);
	tm_host_mem_init(&h, &cfg, &fab);
	tm_cpu_mem_init(&a, &h);
	tm_cpu_mem_init(&b, &h);
	a.who = 0, b.who = 1;
	tm_host_mem_add_core(&h, &a);
	tm_host_mem_add_core(&h, &b);

	now = tm_mem_access(&h, &a, pa, false, now) + 10;
	t = tm_mem_access(&h, &a, pa + 64 * 100, false, now);	/* not a repeat */
	now = t + 10;
	t = tm_mem_access(&h, &a, pa, false, now);
	ok(t == now, "cached: the second read hits");
	now = tm_mem_flush(&h, &a, pa, t + 10);
	t = tm_mem_access(&h, &a, pa, false, now);
	ok(t - now >= LAT && t - now < LAT + 5,
	   "flushed: the next read misses (%.1f ns)", t - now);

	/* dirty: written back once; clean: nothing written */
	now = tm_mem_access(&h, &a, pa + 64, true, t + 10) + 10;
	w0 = a.st.mem_writes[1];
	now = tm_mem_flush(&h, &a, pa + 64, now);
	ok(a.st.mem_writes[1] == w0 + 1, "a dirty line is written back");
	now = tm_mem_flush(&h, &a, pa + 64, now + 10);
	ok(a.st.mem_writes[1] == w0 + 1, "a clean (or absent) one is not");

	/* the other core's copy goes too */
	now = tm_mem_access(&h, &b, pa + 128, false, now + 10) + 10;
	now = tm_mem_flush(&h, &a, pa + 128, now);
	t = tm_mem_access(&h, &b, pa + 128, false, now + 10);
	ok(t - (now + 10) >= LAT, "another core's copy goes with it (%.1f ns)",
	   t - (now + 10));
	tm_cpu_mem_free(&a);
	tm_cpu_mem_free(&b);
	tm_host_mem_free(&h);
	tm_shared_close(shm);
	return tap_failed ? 1 : 0;
}
