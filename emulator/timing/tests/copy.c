// SPDX-License-Identifier: MIT
/*
 * Copy engines (model_copy.h): a transfer alone takes latency + bytes /
 * bandwidth at every size from 4 KiB to 64 MiB (within 5%, the issue's
 * bound; the model is exact), transfers in flight split a NIC's
 * bandwidth, one that joins late slows those still moving, a queue depth
 * of one serves them in turn, a transfer's own cap leaves the rest to the
 * others, and a transfer crossing two NICs is held by the busier one.
 * Figures: the rdma-200g preset's (23 GB/s, 2.5 us; docs/kv-share.md).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "model_copy.h"

#define GBPS 23.0
#define LAT 2500.0
#define KIB 1024.0
#define MIB (1024.0 * 1024.0)

static struct ce_fabric *fresh(void)
{
	struct ce_fabric *f = calloc(1, sizeof(*f));

	if (!f)
		abort();
	return f;
}

/*
 * Two transfers of @s bytes posted at 0 on a fresh resource of @depth,
 * the first capped at @cap (0: none): when each is done.
 */
static void two_posts(double s, int depth, double cap, double *d1, double *d2)
{
	struct ce_fabric *f = fresh();
	int r = ce_res_get(f, "nic:h0", GBPS, depth);
	int h1 = ce_post(f, 0, s, &r, 1, cap, LAT, 0, 1);
	int h2 = ce_post(f, 0, s, &r, 1, 0, LAT, 1, 2);

	*d1 = ce_done(f, h1);
	*d2 = ce_done(f, h2);
	free(f);
}

static bool near(double got, double want, double rel)
{
	return fabs(got - want) <= rel * want;
}

int main(void)
{
	struct ce_fabric *f;
	int nic, a, b, nic2, h1, h2, h3;
	double d1, d2, s = 8 * MIB, worst = 0;
	bool all = true;

	plan(13);

	/* 1: alone, every power of two from 4 KiB to 64 MiB */
	for (double n = 4 * KIB; n <= 64 * MIB; n *= 2) {
		double want = LAT + n / GBPS, got, err;

		f = fresh();
		nic = ce_res_get(f, "nic:h0", GBPS, 16);
		h1 = ce_post(f, 1000, n, &nic, 1, 0, LAT, 0, 1);
		got = ce_done(f, h1) - 1000;
		err = fabs(got - want) / want;
		if (err > worst)
			worst = err;
		all &= err <= 0.05;
		free(f);
	}
	ok(all, "alone: latency + bytes/bandwidth from 4 KiB to 64 MiB, worst error %.4f%%",
	   100 * worst);

	/* 2-3: two transfers posted together split the NIC */
	two_posts(s, 16, 0, &d1, &d2);
	ok(near(d1, LAT + 2 * s / GBPS, 1e-9) && near(d2, d1, 1e-9),
	   "two together: each at half the rate (%.0f and %.0f ns, want %.0f)",
	   d1, d2, LAT + 2 * s / GBPS);
	ok(near(2 * s / (d1 - LAT), GBPS, 1e-9),
	   "two together fill the NIC: %.3f GB/s", 2 * s / (d1 - LAT));

	/* 4-5: a second joins halfway: the first slows from then on */
	f = fresh();
	nic = ce_res_get(f, "nic:h0", GBPS, 16);
	h1 = ce_post(f, 0, s, &nic, 1, 0, LAT, 0, 1);
	d1 = ce_done(f, h1);
	ok(near(d1, LAT + s / GBPS, 1e-9), "alone so far: %.0f ns", d1);
	h2 = ce_post(f, s / 2 / GBPS, s, &nic, 1, 0, LAT, 1, 2);
	d1 = ce_done(f, h1);
	d2 = ce_done(f, h2);
	/* half moved alone; the other half at half the rate; then the
	 * second's remaining half alone */
	ok(near(d1, LAT + 1.5 * s / GBPS, 1e-9) &&
	   near(d2, LAT + 2 * s / GBPS, 1e-9),
	   "joined halfway: first done at %.0f (want %.0f), second at %.0f (want %.0f)",
	   d1, LAT + 1.5 * s / GBPS, d2, LAT + 2 * s / GBPS);
	free(f);

	/* 6-7: queue depth 1: in turn */
	two_posts(s, 1, 0, &d1, &d2);
	ok(near(d1, LAT + s / GBPS, 1e-9), "depth 1: the first at the full rate");
	ok(near(d2, LAT + 2 * s / GBPS, 1e-9),
	   "depth 1: the second after it (%.0f ns)", d2);

	/* 8: a cap of its own leaves the rest to the other */
	two_posts(s, 16, 5.0, &d1, &d2);
	ok(near(d1, LAT + s / 5.0, 1e-9) && near(d2, LAT + s / (GBPS - 5.0), 1e-9),
	   "capped at 5 GB/s: %.3f GB/s, the other %.3f (the rest)",
	   s / (d1 - LAT), s / (d2 - LAT));

	/* 9: across two NICs, the busier one holds it */
	f = fresh();
	a = ce_res_get(f, "nic:h0", GBPS, 16);
	b = ce_res_get(f, "nic:h1", GBPS, 16);
	{
		int both[2] = { a, b };

		h1 = ce_post(f, 0, s, both, 2, 0, LAT, 0, 1);
	}
	h2 = ce_post(f, 0, s, &b, 1, 0, LAT, 1, 2);
	h3 = ce_post(f, 0, s, &b, 1, 0, LAT, 2, 3);
	d1 = ce_done(f, h1);
	ok(near(d1, LAT + 3 * s / GBPS, 1e-9) && near(ce_done(f, h3), d1, 1e-9),
	   "two NICs, the far one shared three ways: %.3f GB/s (want %.3f)",
	   s / (d1 - LAT), GBPS / 3);
	free(f);

	/* 10: the first host's figures win; a full table says so */
	f = fresh();
	nic = ce_res_get(f, "nic:h0", GBPS, 16);
	nic2 = ce_res_get(f, "nic:h0", 1.0, 1);
	ok(nic == nic2 && f->res[nic].gbps == GBPS, "same name, same resource");
	ok(ce_res_get(f, "bad", 0, 16) < 0 && ce_res_get(f, "bad", 1, 0) < 0,
	   "no bandwidth or no depth: refused");

	/* 12: posts from before the present are served from it */
	h1 = ce_post(f, 1e6, s, &nic, 1, 0, LAT, 0, 1);
	h2 = ce_post(f, 10, 4 * KIB, &nic, 1, 0, LAT, 1, 2);
	ok(f->x[h2].posted == 1e6, "a late post starts at the present");

	/* 13: collected handles are found no more, others still are */
	ce_collect(f, h2);
	ok(ce_find(f, 1, 2) < 0 && ce_find(f, 0, 1) == h1,
	   "collect forgets one transfer only");
	free(f);
	return tap_failed ? 1 : 0;
}
