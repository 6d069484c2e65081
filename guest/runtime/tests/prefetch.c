/* SPDX-License-Identifier: MIT */
/*
 * Prefetch accuracy accounting on the host backend: every prefetch ends
 * as timely, late or useless (or is still pending), whatever the access
 * order and the far link's speed.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime.h"
#include "tap.h"

#define L 12
#define K 1024

static float *home[L];

struct run {
	struct rt_backend be;
	struct runtime rt;
	struct shaper far;
	uint32_t stream[L];
};

static void setup(struct run *r, const struct shp_params *sp)
{
	struct rt_config c;

	rt_config_default(&c);
	c.nslots = 3;
	c.window = 2;
	c.slot_size = K * sizeof(float);
	rt_host_backend_init(&r->be, 3 * c.slot_size);
	shp_init(&r->far, sp);
	rt_init(&r->rt, &r->be, &c, &r->far, NULL);
	for (int i = 0; i < L; i++) {
		rt_add_block(&r->rt, K * sizeof(float), home[i], RT_TIER_FAR);
		r->stream[i] = i;
	}
	rt_set_stream(&r->rt, r->stream, L, false);
}

static void nap(long ns)
{
	struct timespec ts = { 0, ns };

	nanosleep(&ts, NULL);
}

static void access_ids(struct run *r, const uint32_t *ids, int n, long compute_ns)
{
	for (int i = 0; i < n; i++) {
		rt_access(&r->rt, ids[i]);
		if (compute_ns)
			nap(compute_ns);
		rt_release(&r->rt, ids[i], false);
	}
}

/* timely + late + useless + pending == prefetches */
static int balanced(struct run *r)
{
	const struct rt_stats *s = &r->rt.st;

	return s->pf_timely + s->pf_late + s->pf_useless + rt_pf_pending(&r->rt) ==
	       s->prefetches;
}

int main(void)
{
	static const struct shp_params fast = { 0, 0 };
	static const struct shp_params slow = { .latency_ns = 2000000, .gbps = 0.01 };
	uint32_t even[L / 2];
	struct run r;

	plan(9);
	for (int i = 0; i < L; i++)
		home[i] = calloc(K, sizeof(float));

	/* In order, compute slower than the copies: every prefetch in time. */
	setup(&r, &fast);
	access_ids(&r, r.stream, L, 2000000);
	ok(r.rt.st.prefetches == L - 1, "declared order: every block after the first prefetched (%llu)",
	   (unsigned long long)r.rt.st.prefetches);
	is_int(r.rt.st.pf_timely, L - 1, "with slow compute all of them arrive before use");
	ok(balanced(&r), "timely + late + useless + pending = prefetches");
	rt_fini(&r.rt);
	rt_host_backend_fini(&r.be);

	/* In order, no compute, a link far slower than the loop: late. */
	setup(&r, &slow);
	access_ids(&r, r.stream, L, 0);
	ok(r.rt.st.pf_late >= L / 2, "no compute on a 2 ms, 10 MB/s link: prefetches are late (%llu of %llu)",
	   (unsigned long long)r.rt.st.pf_late, (unsigned long long)r.rt.st.prefetches);
	is_int(r.rt.st.pf_useless, 0, "and none is wasted");
	ok(balanced(&r), "the sum still holds");
	rt_fini(&r.rt);
	rt_host_backend_fini(&r.be);

	/* Only even blocks are used: the odd ones come in for nothing. */
	setup(&r, &fast);
	for (int i = 0; i < L / 2; i++)
		even[i] = 2 * i;
	access_ids(&r, even, L / 2, 1000000);
	ok(balanced(&r), "skipping blocks: the sum holds before the end");
	rt_fini(&r.rt);
	ok(r.rt.st.pf_useless >= L / 2 - 1,
	   "every skipped block that was prefetched is useless (%llu)",
	   (unsigned long long)r.rt.st.pf_useless);
	ok(r.rt.st.pf_timely + r.rt.st.pf_late + r.rt.st.pf_useless == r.rt.st.prefetches,
	   "after rt_fini nothing is pending: %llu timely, %llu late, %llu useless of %llu",
	   (unsigned long long)r.rt.st.pf_timely, (unsigned long long)r.rt.st.pf_late,
	   (unsigned long long)r.rt.st.pf_useless, (unsigned long long)r.rt.st.prefetches);
	rt_host_backend_fini(&r.be);
	shp_destroy(&r.far);
	return done_testing();
}
