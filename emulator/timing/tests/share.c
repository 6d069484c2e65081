// SPDX-License-Identifier: MIT
/*
 * Sharing a link between requesters whose host threads progress at
 * different speeds: arbitration by modeled time (model_share.h) must give
 * each its modeled share whatever the host order, and a per-host cap
 * (a private "cap:" resource in front of the shared link) must hold.
 *
 * Host progress is simulated: in each round requester A gets several
 * steps and B one, as if A's QEMU ran several times faster. A step that
 * the arbitration (or the skew bound) holds back is lost, as a host
 * thread would spend it waiting.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "model_fabric.h"
#include "model_share.h"
#include "shm_links.h"

#define SKEW 2000
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
	uint64_t bytes_by;	/* bytes done by the common end */
	double end;
};

static void req_init(struct req *r, int slot, const char *link, double gbps,
		     int window, double gap)
{
	memset(r, 0, sizeof(*r));
	r->slot = slot;
	snprintf(r->t.name, sizeof(r->t.name), "dev%d", slot);
	r->t.media_ns[MF_READ] = r->t.media_ns[MF_WRITE] = 150;
	r->t.hops_ns = 90;
	r->t.res[r->t.nres++] = tm_shared_res(shm, link, gbps, gbps);
	mf_window_init(&r->w, window);
	r->gap = gap;
	tm_shared_use_slot(shm, slot);
	tm_sync_publish(&sync, slot, 0);
}

/* Put a private cap resource in front of @r's path. */
static void req_cap(struct req *r, const char *name, double gbps)
{
	memmove(&r->t.res[1], &r->t.res[0], r->t.nres * sizeof(r->t.res[0]));
	r->t.res[0] = tm_shared_res(shm, name, gbps, gbps);
	r->t.nres++;
}

/* One host-time step of @r; false when held back (or done). */
static bool step(struct req *r, bool arbitrate)
{
	double issue, done, min;

	if (r->clock >= r->end)
		return false;
	min = tm_sync_min(&sync, r->slot);
	if (min >= 0 && r->clock > min + SKEW)
		return false;		/* the skew bound */
	if (arbitrate && ms_blocker(&r->t, &sync, r->slot, r->clock, 0) >= 0)
		return false;
	issue = mf_window_slot(&r->w, r->clock);
	done = mf_access_by(&r->t, MF_READ, issue, LINE,
			    arbitrate ? r->slot : -1);
	mf_window_fill(&r->w, done);
	r->clock = issue + r->gap;
	if (done <= r->end)
		r->bytes_by += LINE;
	tm_sync_publish(&sync, r->slot, r->clock);
	return true;
}

/*
 * Run @a and @b to modeled time @end, @a getting @ratio steps per round
 * for @b's one. Returns @a's share of the bytes both moved by @end.
 */
static double contend(struct req *a, struct req *b, int ratio, double end,
		      bool arbitrate)
{
	a->end = b->end = end;
	while (a->clock < end || b->clock < end) {
		for (int i = 0; i < ratio; i++)
			step(a, arbitrate);
		step(b, arbitrate);
		/* one that finished holds nobody back (as at exit) */
		if (a->clock >= end)
			tm_sync_stop(&sync, a->slot);
		if (b->clock >= end)
			tm_sync_stop(&sync, b->slot);
	}
	return (double)a->bytes_by / (a->bytes_by + b->bytes_by);
}

static void fresh(void)
{
	char *err = NULL;

	if (shm)
		tm_shared_close(shm);
	shm = tm_shared_open(NULL, &err);
	tm_shared_sync(shm, &sync, SKEW, 0);
}

int main(void)
{
	struct req a, b;
	double share, gbps, end = 400000;

	plan(7);

	/* without arbitration: host order decides (shown, not asserted) */
	fresh();
	req_init(&a, 0, "link:l", 20, W, 0);
	req_init(&b, 1, "link:l", 20, W, 0);
	share = contend(&a, &b, 6, end, false);
	diag("no arbitration, A runs 6x faster in host time: A %.1f%%, B %.1f%%",
	     100 * share, 100 - 100 * share);

	for (int ratio = 2; ratio <= 8; ratio += 6) {
		fresh();
		req_init(&a, 0, "link:l", 20, W, 0);
		req_init(&b, 1, "link:l", 20, W, 0);
		share = contend(&a, &b, ratio, end, true);
		gbps = (a.bytes_by + b.bytes_by) / end;
		ok(fabs(share - 0.5) <= 0.10 && fabs(gbps - 20) / 20 < 0.02,
		   "A runs %dx faster in host time: A %.1f%%, B %.1f%% of "
		   "%.2f GB/s", ratio, 100 * share, 100 - 100 * share, gbps);
	}
	/* the other way round: B's host thread is the fast one */
	fresh();
	req_init(&a, 0, "link:l", 20, W, 0);
	req_init(&b, 1, "link:l", 20, W, 0);
	share = 1 - contend(&b, &a, 5, end, true);
	ok(fabs(share - 0.5) <= 0.10,
	   "B runs 5x faster in host time: A %.1f%%, B %.1f%%",
	   100 * share, 100 - 100 * share);

	/* a light sharer does not cost the heavy one its leftover capacity */
	fresh();
	req_init(&a, 0, "link:l", 20, W, 0);
	req_init(&b, 1, "link:l", 20, 1, 0);	/* a pointer chase */
	contend(&a, &b, 1, end, true);
	gbps = (a.bytes_by + b.bytes_by) / end;
	ok(fabs(gbps - 20) / 20 < 0.02 && b.bytes_by / end < 0.3,
	   "streaming next to a pointer chase: %.2f GB/s + %.2f GB/s",
	   a.bytes_by / end, b.bytes_by / end);

	/* QoS: A capped at 5 GB/s on a 20 GB/s link, B takes the rest */
	for (int ratio = 1; ratio <= 6; ratio += 5) {
		fresh();
		req_init(&a, 0, "link:l", 20, W, 0);
		req_init(&b, 1, "link:l", 20, W, 0);
		req_cap(&a, "cap:link:l:hA", 5);
		contend(&a, &b, ratio, end, true);
		ok(a.bytes_by / end <= 5 * 1.001 &&
		   fabs((a.bytes_by + b.bytes_by) / end - 20) / 20 < 0.02,
		   "capped host, %dx faster: %.3f GB/s (cap 5), other %.2f GB/s",
		   ratio, a.bytes_by / end, b.bytes_by / end);
	}
	/* the cap alone, no contention: exactly the cap */
	fresh();
	req_init(&a, 0, "link:l", 20, W, 0);
	req_cap(&a, "cap:link:l:hA", 5);
	a.end = end;
	while (step(&a, true))
		;
	ok(fabs(a.bytes_by / end - 5) / 5 < 0.01,
	   "capped host alone: %.3f GB/s (cap 5)", a.bytes_by / end);
	return done_testing();
}
