/* SPDX-License-Identifier: MIT */
/*
 * Benchmark: what the runtime's furthest-next-use eviction costs per
 * access, with the victim index and with a pass over every slot, as the
 * fast tier grows from 128 slots (the 1x KV scenarios) to 8192 (64x).
 * Host wall time on the host backend, blocks of 256 B so that the copies
 * are small beside the bookkeeping. The stream draws from twice as many
 * blocks as slots, so that about half the accesses fetch once the slots
 * are full (the first pass over the slots is left out).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "runtime.h"

#define BS 256

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ns per access over @len accesses, the index on or off. */
static double run(int nslots, bool index, size_t len, uint32_t *ids, char *home,
		  double *fetches)
{
	struct shp_params fast = { 0, 0 };
	uint32_t nblocks = 2 * (uint32_t)nslots;
	struct rt_backend be;
	struct runtime rt;
	struct shaper far;
	struct rt_config c;
	double t0 = 0, t1;
	uint64_t ev0 = 0;

	for (size_t i = 0; i < len; i++)
		ids[i] = (uint32_t)rand() % nblocks;
	rt_config_default(&c);
	c.nslots = nslots;
	c.window = 8;
	c.slot_size = BS;
	rt_host_backend_init(&be, (size_t)nslots * BS);
	shp_init(&far, &fast);
	if (rt_init(&rt, &be, &c, &far, NULL))
		return -1;
	for (uint32_t b = 0; b < nblocks; b++)
		rt_add_block(&rt, BS, home + (size_t)b * BS, RT_TIER_FAR);
	rt_set_stream(&rt, ids, len, false);
	rt.victims_live = index && rt.victims_live;
	for (size_t i = 0; i < len; i++) {
		if (i == (size_t)nslots * 4) {	/* slots long full */
			rt_lanes_drain(&rt.lanes);
			ev0 = rt.st.evictions;
			t0 = now_s();
		}
		if (rt_access(&rt, ids[i]))
			rt_release(&rt, ids[i], false);
	}
	rt_lanes_drain(&rt.lanes);
	t1 = now_s();
	*fetches = (double)(rt.st.evictions - ev0) / (double)(len - (size_t)nslots * 4);
	rt_fini(&rt);
	return (t1 - t0) * 1e9 / (double)(len - (size_t)nslots * 4);
}

int main(void)
{
	static const int sizes[] = { 128, 1024, 8192 };
	size_t len = 100000;
	uint32_t *ids = malloc(len * sizeof(*ids));
	char *home = calloc(2 * 8192, BS);

	if (!ids || !home)
		return 1;
	printf("runtime eviction cost, furthest next use, host wall time per access\n");
	printf("  %6s %14s %14s %18s\n", "slots", "pass ns", "index ns", "fetches/access");
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		double f, pass, idx;

		srand(1);
		pass = run(sizes[k], false, len, ids, home, &f);
		srand(1);
		idx = run(sizes[k], true, len, ids, home, &f);
		printf("  %6d %14.0f %14.0f %18.2f\n", sizes[k], pass, idx, f);
	}
	free(ids);
	free(home);
	return 0;
}
