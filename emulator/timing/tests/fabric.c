// SPDX-License-Identifier: MIT
/* Fabric model: interleave decode, idle latency, link bandwidth, sharing. */
#include <math.h>
#include <stdlib.h>

#include "tap.h"
#include "model_fabric.h"
#include "model_mem.h"
#include "shm_links.h"

#define BASE 0x110000000ull

static struct tm_shared *shm;

/* Device behind one switch: media 150 ns, bridge+switch+2 links = 90 ns. */
static void make_dev(struct mf_target *t, const char *name, double link_gbps)
{
	char res[MF_NAME];

	memset(t, 0, sizeof(*t));
	strcpy(t->name, name);
	t->cxl = true;
	t->media_ns[MF_READ] = 150;
	t->media_ns[MF_WRITE] = 170;
	t->hops_ns = 90;
	t->res[t->nres++] = tm_shared_res(shm, "link:sw0", link_gbps, link_gbps, 0);
	snprintf(res, sizeof(res), "media:%s", name);
	t->res[t->nres++] = tm_shared_res(shm, res, 1000, 1000, 0);
}

static double stream(struct mf_target *t, int window, int n)
{
	struct mf_window w;
	double first = -1, last = 0;

	mf_window_init(&w, window);
	for (int i = 0; i < n; i++) {
		double issue = mf_window_slot(&w, 0);
		double done = mf_access(t, MF_READ, issue, 64);

		if (first < 0)
			first = issue;
		mf_window_fill(&w, done);
		if (done > last)
			last = done;
	}
	return n * 64.0 / (last - first);
}

/*
 * An access of a stream over a contiguous buffer: at a page's start the
 * plugin tells the model the stream came from the page before (a claim).
 */
static double seq_access(struct tm_host_mem *h, struct tm_cpu_mem *c,
			 uint64_t pa, bool store, double now)
{
	if (!(pa & 4095))
		tm_mem_page_claim(h, c, pa >> h->line_shift);
	return tm_mem_access(h, c, pa, store, now);
}

static bool near(double got, double want, double tol)
{
	return fabs(got - want) <= tol * want;
}

int main(void)
{
	struct mf_target dev[4], local = { .name = "local", .path = "local" };
	struct mf_region reg = { .name = "r0", .base = BASE, .size = 1ull << 30,
				 .gran = 4096, .ways = 4 };
	struct mf_fabric fab = { .ntargets = 1, .targets = &local,
				 .local = &local, .nregions = 1,
				 .regions = &reg };
	char *err = NULL;
	double gbps, got;

	plan(19);
	shm = tm_shared_open(NULL, &err);
	for (int i = 0; i < 4; i++) {
		char name[16];

		snprintf(name, sizeof(name), "mem%d", i);
		make_dev(&dev[i], name, 32);
		reg.t[i] = &dev[i];
	}
	local.media_ns[0] = local.media_ns[1] = 100;

	/* 4-way at 4 KiB: chunk k of the region lives on device k mod 4 */
	ok(mf_decode(&fab, BASE + 0x5123, true) == &dev[1],
	   "4-way/4K interleave: base+0x5123 decodes to the 2nd device");
	ok(mf_decode(&fab, BASE + 3 * 4096 + 4095, true) == &dev[3] &&
	   mf_decode(&fab, BASE + 4 * 4096, true) == &dev[0],
	   "granule edges: base+0x3fff on device 3, base+0x4000 back on 0");
	ok(mf_decode(&fab, 0x1000, false) == &local &&
	   mf_decode(&fab, 0xfed00000, true) == NULL,
	   "outside the region: RAM is local, other MMIO is not memory");
	/* the shift-and-mask shortcut picks what division picks, line by line */
	{
		static const uint32_t grans[] = { 256, 1024, 4096, 16384 };
		static const int ways[] = { 1, 2, 3, 4, 6, 8, 12, 16 };
		struct mf_region fast;
		int wrong = 0, shortcuts = 0;

		for (unsigned gi = 0; gi < 4; gi++)
			for (unsigned wi = 0; wi < 8; wi++) {
				struct mf_fabric f1 = fab, f2 = fab;

				reg.gran = grans[gi];
				reg.ways = ways[wi];
				fast = reg;
				mf_region_init(&fast);
				shortcuts += fast.gran_shift_plus1 > 0;
				f1.regions = &reg;	/* zeroed shortcut: divides */
				f2.regions = &fast;
				for (uint64_t off = 0; off < 64ull << 20; off += 64)
					wrong += mf_decode(&f1, BASE + off, true) !=
						 mf_decode(&f2, BASE + off, true);
			}
		ok(wrong == 0, "decoding by shift and mask agrees with division "
		   "on every line of 64 MiB, 4 granularities x 8 ways (%d differ)", wrong);
		ok(shortcuts == 4 * 5, "the shortcut is taken for powers of two only "
		   "(%d of 32 layouts)", shortcuts);
		reg.gran = 4096;
		reg.ways = 4;
	}

	/* idle dependent miss: media + hops, nothing more */
	got = mf_access(&dev[2], MF_READ, 1000, 64) - 1000;
	ok(got == 240.0, "idle read miss costs media + hops exactly (%.3f ns)",
	   got);
	got = mf_access(&dev[2], MF_WRITE, 5000, 64) - 5000;
	ok(got == 260.0, "idle write costs its own latency (%.3f ns)", got);

	/* a stream with enough misses in flight runs at the link's rate */
	make_dev(&dev[0], "solo", 20);
	dev[0].res[0] = tm_shared_res(shm, "link:solo", 20, 20, 0);
	gbps = stream(&dev[0], 128, 200000);
	ok(fabs(gbps - 20) / 20 < 0.01, "stream on a 20 GB/s link: %.3f GB/s",
	   gbps);
	/* too few misses in flight: latency-bound, window x line / latency */
	make_dev(&dev[0], "solo2", 20);
	dev[0].res[0] = tm_shared_res(shm, "link:solo2", 20, 20, 0);
	gbps = stream(&dev[0], 10, 50000);
	ok(fabs(gbps - 10 * 64 / 240.0) / (10 * 64 / 240.0) < 0.01,
	   "10 misses in flight: %.3f GB/s (Little's law: %.3f)", gbps,
	   10 * 64 / 240.0);

	/* two streams interleaved in modeled time share the link */
	{
		struct mf_target a, b;
		struct mf_window wa, wb;
		double ta = 0, tb = 0, end = 2e6;
		uint64_t na = 0, nb = 0;

		make_dev(&a, "a", 20);
		make_dev(&b, "b", 20);
		a.res[0] = b.res[0] = tm_shared_res(shm, "link:shared", 20, 20, 0);
		mf_window_init(&wa, 128);
		mf_window_init(&wb, 128);
		while (ta < end || tb < end) {
			bool pick_a = ta <= tb;
			struct mf_window *w = pick_a ? &wa : &wb;
			double *t = pick_a ? &ta : &tb;
			double issue = mf_window_slot(w, *t);
			double done = mf_access(pick_a ? &a : &b, MF_READ,
						issue, 64);

			mf_window_fill(w, done);
			*t = issue;
			if (done <= end && pick_a)
				na++;
			else if (done <= end)
				nb++;
		}
		got = (double)na / (na + nb);
		ok(fabs(got - 0.5) < 0.05, "two streams share a link: %.1f%% / %.1f%%",
		   100 * got, 100 - 100 * got);
		gbps = (na + nb) * 64.0 / end;
		ok(fabs(gbps - 20) / 20 < 0.02, "together they fill it: %.2f GB/s",
		   gbps);
	}

	/* through the caches: a core's sequential stream and a pointer chase */
	{
		struct tm_mem_cfg cfg = {
			.line_bytes = 64, .l1_bytes = 32 << 10, .l1_ways = 8,
			.l2_bytes = 1 << 20, .l2_ways = 16,
			.llc_bytes = 8 << 20, .llc_ways = 16,
			.mlp = 160, .prefetch_distance = 128,
		};
		struct tm_host_mem h;
		struct tm_cpu_mem c;
		double now = 0, t0, go;
		uint64_t reqs0, bytes = 64ull << 20;
		struct mf_res *link;
		bool exact = true;
		int misses = 0;

		make_dev(&dev[0], "c0", 30);
		for (int i = 1; i < 4; i++) {
			char name[16];

			snprintf(name, sizeof(name), "c%d", i);
			make_dev(&dev[i], name, 30);
		}
		link = dev[0].res[0];
		for (int i = 0; i < 4; i++)
			dev[i].res[0] = tm_shared_res(shm, "link:core", 30, 30, 0);
		tm_host_mem_init(&h, &cfg, &fab);
		tm_cpu_mem_init(&c, &h);
		t0 = now;
		for (uint64_t off = 0; off < bytes; off += 8)
			now = seq_access(&h, &c, BASE + off, false, now) + 0.25;
		gbps = bytes / (now - t0);
		ok(fabs(gbps - 30) / 30 < 0.01,
		   "core reading a 30 GB/s path sequentially: %.2f GB/s", gbps);

		/* pointer chase: every miss pays exactly the path latency */
		now += 10000;	/* let the stream's tail drain first */
		srand(1);
		for (int i = 0; i < 2000; i++) {
			uint64_t pa = BASE + 256ull * 1024 * 1024 +
				      ((uint64_t)rand() % (1u << 23)) * 64;

			go = tm_mem_access(&h, &c, pa, false, now);
			if (go > now) {
				misses++;
				exact &= fabs(go - now - 240.0) < 1e-6;
			}
			now = go;
		}
		ok(misses > 1900 && exact,
		   "dependent misses cost media + hops exactly (%d misses)",
		   misses);

		/* a hit does not reach memory and costs nothing */
		now = tm_mem_access(&h, &c, BASE + 8, false, now);
		reqs0 = dev[0].res[0]->total.reqs[0] + link->total.reqs[0];
		go = tm_mem_access(&h, &c, BASE + 8, false, now);
		ok(go == now && dev[0].res[0]->total.reqs[0] +
		   link->total.reqs[0] == reqs0,
		   "a cache hit costs nothing at memory");

		/* dirty lines leave L2 while the prefetcher fills it */
		for (uint64_t off = 0; off < (4u << 20); off += 64)
			now = seq_access(&h, &c, BASE + off, true, now) + 1;
		for (uint64_t off = 8u << 20; off < (12u << 20); off += 64)
			now = seq_access(&h, &c, BASE + off, false, now) + 1;
		ok(c.st.mem_writes[1] > 0,
		   "dirty victims are written back during a prefetched stream "
		   "(%lu writes)", (unsigned long)c.st.mem_writes[1]);
		tm_cpu_mem_free(&c);
		tm_host_mem_free(&h);
	}

	/*
	 * Writes: a store stream whose LLC is full of dirty lines of the same
	 * device runs at the path's write bandwidth, not its read bandwidth
	 * (each fill waits for its victim's write-back to get through).
	 */
	{
		struct tm_mem_cfg cfg = {
			.line_bytes = 64, .l1_bytes = 32 << 10, .l1_ways = 8,
			.l2_bytes = 256 << 10, .l2_ways = 16,
			.llc_bytes = 1 << 20, .llc_ways = 16,
			.mlp = 32, .prefetch_distance = 32,
		};
		struct mf_target w = { .name = "w", .path = "hb0/rp0/w",
				       .cxl = true, .hops_ns = 20,
				       .media_ns = { 150, 160 } };
		struct mf_region wr = { .name = "rw", .base = BASE,
					.size = 1ull << 30, .gran = 4096,
					.ways = 1, .t = { &w } };
		struct mf_fabric wf = { .ntargets = 1, .targets = &local,
					.local = &local, .nregions = 1,
					.regions = &wr };
		struct tm_host_mem h;
		struct tm_cpu_mem c;
		double now = 0, t0;
		uint64_t off;

		w.res[w.nres++] = tm_shared_res(shm, "media:w", 12, 3, 0);
		tm_host_mem_init(&h, &cfg, &wf);
		tm_cpu_mem_init(&c, &h);
		for (off = 0; off < (2u << 20); off += 8)	/* dirty the LLC */
			now = seq_access(&h, &c, BASE + off, true, now) + 0.25;
		t0 = now;
		for (; off < (10u << 20); off += 8)
			now = seq_access(&h, &c, BASE + off, true, now) + 0.25;
		gbps = (8u << 20) / (now - t0);
		ok(near(gbps, 3, 0.10),
		   "a store stream on a device that reads at 12 GB/s and writes "
		   "at 3: %.2f GB/s", gbps);
		tm_cpu_mem_free(&c);
		tm_host_mem_free(&h);
	}

	/* the queueing term: M/D/1, held at rho = MF_RHO_MAX */
	ok(mf_md1_wait(40, 0) == 0 && mf_md1_wait(40, 0.5) == 20 &&
	   fabs(mf_md1_wait(40, 0.9) - 180) < 1e-9 &&
	   mf_md1_wait(40, 0.99) == mf_md1_wait(40, MF_RHO_MAX),
	   "M/D/1 wait: 0, 20, 180 ns at rho 0, 0.5, 0.9 (q = 40 ns), held "
	   "at rho %.2f", MF_RHO_MAX);
	/* ... which leaves an idle miss at its exact latency */
	{
		struct mf_target q;

		make_dev(&q, "q", 32);
		q.res[1] = tm_shared_res(shm, "media:queued", 20, 20, 50);
		got = mf_access(&q, MF_READ, 1e6, 64) - 1e6;
		ok(got == 240.0, "an idle miss on a queueing medium: %.3f ns", got);
	}
	/*
	 * The miss window against a plain array whose earliest slot is
	 * found by a scan: the same earliest time after every fill, with
	 * completions in and out of order, ties, and windows of 1 to 24.
	 */
	{
		int bad = 0, fills = 0;

		srand(3);
		for (int n = 1; n <= 24; n++) {
			struct mf_window w;
			double ref[24] = { 0 }, now = 0;

			mf_window_init(&w, n);
			for (int i = 0; i < 2000; i++, fills++) {
				int min = 0;
				double want;

				for (int k = 1; k < n; k++)
					if (ref[k] < ref[min])
						min = k;
				want = ref[min] > now ? ref[min] : now;

				if (mf_window_earliest(&w) != ref[min] ||
				    mf_window_slot(&w, now) != want)
					bad++;
				now += rand() % 7;
				/* mostly later than all in flight, some not, some ties */
				ref[min] = now + (rand() % 4 ? 300 + rand() % 50 :
							       rand() % 400);
				if (rand() % 9 == 0)
					ref[min] = mf_window_slot(&w, now) + 100;
				mf_window_fill(&w, ref[min]);
			}
		}
		ok(!bad, "miss window: the earliest slot as a scan of every slot "
		   "finds it, %d fills of windows of 1-24 (%d differ)", fills, bad);
	}
	return done_testing();
}
