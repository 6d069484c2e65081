// SPDX-License-Identifier: MIT
/*
 * Sharing a link between hosts whose threads progress at different
 * speeds: each requester's share (model_share.h) must give it its
 * modeled share whatever the host order, and the very same bytes; the
 * share is round robin between hosts (model_lane.h): equal when both can
 * draw more than half, whatever their latency or misses in flight, else
 * one's Little's-law limit and the rest to the other; a per-host cap (a
 * private "cap:" resource) must hold while the other host takes the rest.
 *
 * Host progress is simulated: in each round requester A gets several
 * steps and B one, as if A's QEMU ran several times faster. A step that
 * the skew bound holds back is lost, as a host thread would spend it
 * waiting; nothing else waits.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "model_fabric.h"
#include "model_share.h"
#include "shm_links.h"

#define SKEW 2000
/*
 * Shares follow a new sharer two epochs late (model_share.h): rates are
 * measured from here on, past that start.
 */
#define WARM (10.0 * SKEW)
#define LINE 64
/* misses in flight: enough to saturate 20 GB/s at 240 ns (75 lines) */
#define W 128

static struct tm_shared *shm;
static struct tm_sync sync;

struct req {
	int slot;
	struct mf_target t;
	struct mf_window w;
	double clock;
	double gap;		/* ns of compute between issues (0: streaming) */
	uint64_t bytes_by;	/* bytes done after WARM, by the common end */
	double end;
};

/* Host @host's vCPU @vcpu (its sync slot), hops_ns of path after 150 of media. */
#define SLOT(host, vcpu) ((host) * TM_MAX_VCPUS + (vcpu))

static void req_path(struct req *r, int slot, const char *link, double gbps,
		     int window, double gap, double hops_ns)
{
	memset(r, 0, sizeof(*r));
	r->slot = slot;
	snprintf(r->t.name, sizeof(r->t.name), "dev%d", slot);
	r->t.media_ns[MF_READ] = r->t.media_ns[MF_WRITE] = 150;
	r->t.hops_ns = hops_ns;
	r->t.res[r->t.nres++] = tm_shared_res(shm, link, gbps, gbps, 0);
	mf_window_init(&r->w, window);
	r->gap = gap;
	tm_shared_use_slot(shm, slot);
	tm_sync_publish(&sync, slot, 0);
}

static void req_init(struct req *r, int slot, const char *link, double gbps,
		     int window, double gap)
{
	req_path(r, slot, link, gbps, window, gap, 90);
}

/* Give @r a private cap resource, taken after the shared ones (tm_config.c). */
static void req_cap(struct req *r, const char *name, double gbps)
{
	r->t.res[r->t.nres++] = tm_shared_res(shm, name, gbps, gbps, 0);
}

/* One host-time step of @r; false when held back (or done). */
static bool step(struct req *r)
{
	double issue, done, min;

	if (r->clock >= r->end)
		return false;
	min = tm_sync_min(&sync, r->slot);
	if (min >= 0 && r->clock > min + SKEW)
		return false;		/* the skew bound */
	/* issued when a miss slot is free (a full window waits) */
	issue = mf_window_slot(&r->w, r->clock);
	done = mf_access_by(&r->t, MF_READ, issue, LINE, r->slot, NULL);
	mf_window_fill(&r->w, done);
	r->clock = issue + r->gap;
	if (done <= r->end && done > WARM)
		r->bytes_by += LINE;
	tm_sync_publish(&sync, r->slot, r->clock);
	return true;
}

/*
 * Run @n requesters to modeled time @end, requester i getting @steps[i]
 * steps per round (its host thread's speed). Each one's bytes_by says
 * what it moved by then.
 */
static void contend_n(struct req **r, const int *steps, int n, double end)
{
	bool running = true;

	for (int i = 0; i < n; i++)
		r[i]->end = end;
	while (running) {
		running = false;
		for (int i = 0; i < n; i++) {
			for (int k = 0; k < steps[i]; k++)
				step(r[i]);
			/* one that finished holds nobody back (as at exit) */
			if (r[i]->clock >= end)
				tm_sync_stop(&sync, r[i]->slot);
			else
				running = true;
		}
	}
}

/* @a and @b, @a getting @ratio steps per round; returns @a's share. */
static double contend(struct req *a, struct req *b, int ratio, double end)
{
	struct req *r[] = { a, b };
	const int steps[] = { ratio, 1 };

	contend_n(r, steps, 2, end);
	return (double)a->bytes_by / (a->bytes_by + b->bytes_by);
}

static void fresh(void)
{
	char *err = NULL;

	if (shm)
		tm_shared_close(shm);
	shm = tm_shared_open(NULL, &err);
	tm_shared_sync(shm, &sync, SKEW, 0);
	mf_epoch_ns = 2 * SKEW;
}

static bool near(double got, double want, double tol)
{
	return fabs(got - want) <= tol * want;
}

int main(void)
{
	struct req a, b, a2;
	double share, gbps, end = 400000, first = 0;

	plan(11);

	for (int ratio = 2; ratio <= 8; ratio += 6) {
		fresh();
		req_init(&a, SLOT(0, 0), "link:l", 20, W, 0);
		req_init(&b, SLOT(1, 0), "link:l", 20, W, 0);
		share = contend(&a, &b, ratio, end);
		gbps = (a.bytes_by + b.bytes_by) / (end - WARM);
		ok(fabs(share - 0.5) <= 0.10 && fabs(gbps - 20) / 20 < 0.02,
		   "A runs %dx faster in host time: A %.1f%%, B %.1f%% of "
		   "%.2f GB/s", ratio, 100 * share, 100 - 100 * share, gbps);
		if (ratio == 2)
			first = a.bytes_by;
		else
			ok(a.bytes_by == first,
			   "the same modeled bytes whatever the host speeds "
			   "(%lu and %lu)", (unsigned long)first,
			   (unsigned long)a.bytes_by);
	}
	/* the other way round: B's host thread is the fast one */
	fresh();
	req_init(&a, SLOT(0, 0), "link:l", 20, W, 0);
	req_init(&b, SLOT(1, 0), "link:l", 20, W, 0);
	share = 1 - contend(&b, &a, 5, end);
	ok(fabs(share - 0.5) <= 0.10,
	   "B runs 5x faster in host time: A %.1f%%, B %.1f%%",
	   100 * share, 100 - 100 * share);

	/*
	 * Unequal paths to one pool (230 and 268 ns), both drawing more than
	 * half: round robin gives each half, as it would first come first
	 * served only by chance.
	 */
	fresh();
	req_path(&a, SLOT(0, 0), "media:pool", 1.6, 16, 0, 80);
	req_path(&b, SLOT(1, 0), "media:pool", 1.6, 16, 0, 118);
	share = contend(&a, &b, 3, end);
	ok(fabs(share - 0.5) <= 0.05 &&
	   near((a.bytes_by + b.bytes_by) / (end - WARM), 1.6, 0.02),
	   "unequal paths (230, 268 ns), both saturating: %.1f%% / %.1f%% of "
	   "%.3f GB/s", 100 * share, 100 - 100 * share,
	   (a.bytes_by + b.bytes_by) / (end - WARM));
	/* ... and one host with twice the misses in flight (two vCPUs) */
	fresh();
	req_path(&a, SLOT(0, 0), "media:pool", 1.6, 16, 0, 80);
	req_path(&a2, SLOT(0, 1), "media:pool", 1.6, 16, 0, 80);
	req_path(&b, SLOT(1, 0), "media:pool", 1.6, 16, 0, 118);
	{
		struct req *r[] = { &a, &a2, &b };
		const int steps[] = { 1, 1, 2 };

		contend_n(r, steps, 3, end);
	}
	share = (double)(a.bytes_by + a2.bytes_by) /
		(a.bytes_by + a2.bytes_by + b.bytes_by);
	ok(fabs(share - 0.5) <= 0.05,
	   "a host with two streaming vCPUs against one with one: %.1f%% / "
	   "%.1f%% (round robin between hosts)", 100 * share,
	   100 - 100 * share);
	/*
	 * A host whose Little's-law limit is below half gets that limit (its
	 * misses in flight over its latency, which under round robin is the
	 * path's plus one turn: the other host's transfer before its own).
	 */
	fresh();
	req_path(&a, SLOT(0, 0), "media:pool", 1.6, 2, 0, 118);
	req_path(&b, SLOT(1, 0), "media:pool", 1.6, 16, 0, 80);
	contend(&a, &b, 1, end);
	gbps = 2 * 64 / (268 + 64 / 1.6);
	ok(near(a.bytes_by / (end - WARM), gbps, 0.02) &&
	   near((a.bytes_by + b.bytes_by) / (end - WARM), 1.6, 0.02),
	   "2 misses in flight at 268 ns: %.3f GB/s (Little's law %.3f), the "
	   "other %.3f GB/s (the rest)", a.bytes_by / (end - WARM), gbps,
	   b.bytes_by / (end - WARM));

	/* a light sharer does not cost the heavy one its leftover capacity */
	fresh();
	req_init(&a, SLOT(0, 0), "link:l", 20, W, 0);
	req_init(&b, SLOT(1, 0), "link:l", 20, 1, 0);	/* a pointer chase */
	contend(&a, &b, 1, end);
	gbps = (a.bytes_by + b.bytes_by) / (end - WARM);
	ok(fabs(gbps - 20) / 20 < 0.02 && near(b.bytes_by / (end - WARM), 64 / 240.0, 0.05),
	   "streaming next to a pointer chase: %.2f GB/s + %.3f GB/s (the "
	   "chase waits at most a turn: %.1f ns a hop)", a.bytes_by / (end - WARM),
	   b.bytes_by / (end - WARM), 64 / (b.bytes_by / (end - WARM)));

	/*
	 * QoS: A capped at 0.73 GB/s on a 1.6 GB/s pool, against a host with
	 * twice its misses in flight: A still gets its cap, B the rest.
	 */
	for (int ratio = 1; ratio <= 6; ratio += 5) {
		fresh();
		req_path(&a, SLOT(0, 0), "media:pool", 1.6, 16, 0, 118);
		req_path(&b, SLOT(1, 0), "media:pool", 1.6, 32, 0, 80);
		req_cap(&a, "cap:media:pool:hA", 0.73);
		contend(&a, &b, ratio, end);
		ok(near(a.bytes_by / (end - WARM), 0.73, 0.05) && a.bytes_by / (end - WARM) <= 0.731 &&
		   near(b.bytes_by / (end - WARM), 1.6 - 0.73, 0.05),
		   "capped host, %dx faster: %.3f GB/s (cap 0.73), other %.3f "
		   "GB/s (the rest: 0.87)", ratio, a.bytes_by / (end - WARM),
		   b.bytes_by / (end - WARM));
	}
	/* the cap alone, no contention: exactly the cap */
	fresh();
	req_init(&a, SLOT(0, 0), "link:l", 20, W, 0);
	req_cap(&a, "cap:link:l:hA", 5);
	a.end = end;
	while (step(&a))
		;
	ok(fabs(a.bytes_by / (end - WARM) - 5) / 5 < 0.01,
	   "capped host alone: %.3f GB/s (cap 5)", a.bytes_by / (end - WARM));
	return done_testing();
}
