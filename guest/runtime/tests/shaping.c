/* SPDX-License-Identifier: MIT */
/* The far-link shaper: latency per transfer, bandwidth cap, fair share. */
#include <math.h>

#include "shaping.h"
#include "tap.h"

static uint64_t finish(struct shaper *s, int id)
{
	uint64_t t;

	shp_advance(s, 1000000000ull);
	return shp_done(s, id, &t) ? t : 0;
}

int main(void)
{
	struct shp_params p = { .latency_ns = 1000, .gbps = 10 };	/* 10 B/ns */
	struct shaper s;
	int a, b;
	uint64_t ta, tb, t0, t1;

	plan(9);

	shp_init(&s, &p);
	a = shp_submit(&s, 100000, 0);
	is_int(finish(&s, a), 1000 + 10000, "lone transfer: latency + bytes / bandwidth");
	is_int(shp_alone_ns(&p, 100000), 11000, "shp_alone_ns agrees with the model");
	shp_destroy(&s);

	/* Two streams at once: each gets half the link, both end together. */
	shp_init(&s, &p);
	a = shp_submit(&s, 100000, 0);
	b = shp_submit(&s, 100000, 0);
	ta = finish(&s, a);
	tb = finish(&s, b);
	is_int(ta, 1000 + 20000, "two concurrent streams: each sees half the bandwidth");
	is_int(tb, ta, "fair share: equal transfers finish together");
	shp_destroy(&s);

	/* Second stream arrives halfway: the first slows from then on. */
	shp_init(&s, &p);
	a = shp_submit(&s, 100000, 0);			/* drains from 1000 */
	b = shp_submit(&s, 100000, 6000);		/* drains from 7000 */
	ta = finish(&s, a);
	tb = finish(&s, b);
	/* a: 60000 B alone by 7000, 40000 B left at 5 B/ns -> 15000. */
	is_int(ta, 15000, "late arrival halves the first stream's rate only while both drain");
	/* b: 40000 B by 15000 at 5 B/ns, 60000 B left alone -> 21000. */
	is_int(tb, 21000, "the survivor gets the whole link back");
	shp_destroy(&s);

	/* No bandwidth cap: only the latency. */
	p.gbps = 0;
	shp_init(&s, &p);
	a = shp_submit(&s, 1 << 30, 500);
	is_int(finish(&s, a), 1500, "unlimited link: latency only");
	shp_destroy(&s);

	/* Real time: a 2 ms transfer takes at least 2 ms of wall clock. */
	p.latency_ns = 500000;
	p.gbps = 1;			/* 1 B/ns */
	shp_init(&s, &p);
	t0 = shp_clock_ns();
	a = shp_rt_begin(&s, 1500000);
	shp_rt_wait(&s, a);
	t1 = shp_clock_ns();
	ok(t1 - t0 >= 2000000, "real-time wait lasts the modelled 2 ms (took %.3f ms)",
	   (t1 - t0) / 1e6);
	ok(t1 - t0 < 50000000, "and does not oversleep wildly");
	shp_destroy(&s);
	return done_testing();
}
