// SPDX-License-Identifier: MIT
#include "model_fabric.h"
#include "model_degrade.h"

#include <sched.h>
#include <string.h>

void mf_res_init(struct mf_res *r, const char *name, double read_gbps,
		 double write_gbps, double queue_ns)
{
	memset(r, 0, sizeof(*r));
	strncpy(r->name, name, sizeof(r->name) - 1);
	r->gbps[MF_READ] = read_gbps;
	r->gbps[MF_WRITE] = write_gbps;
	r->queue_ns = queue_ns;
	for (int d = 0; d < 2; d++)
		mf_lane_init(&r->lane[d], r->gbps[d], queue_ns);
}

/* Spin lock usable across processes (the segment may be shared). */
static void res_lock(struct mf_res *r)
{
	while (__atomic_exchange_n(&r->lock, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&r->lock, __ATOMIC_RELAXED))
			sched_yield();
}

static void res_unlock(struct mf_res *r)
{
	__atomic_store_n(&r->lock, 0, __ATOMIC_RELEASE);
}

static void count(struct mf_counters *c, enum mf_dir dir, uint32_t bytes,
		  double wait)
{
	c->bytes[dir] += bytes;
	c->reqs[dir]++;
	c->wait_ns[dir] += wait;
}

/* Note @who as a user at @t: its entry, a free one, or the stalest. (Lock held.) */
static void note_user(struct mf_res *r, int who, double t)
{
	struct mf_user *u = NULL, *old = &r->users[0];

	for (int i = 0; i < MF_USERS; i++) {
		struct mf_user *e = &r->users[i];

		if (e->who == who + 1 || !e->who) {
			u = e;
			break;
		}
		if (e->last < old->last)
			old = e;
	}
	if (!u)
		u = old;
	if (u->who != who + 1 || (uint64_t)t > u->last)
		__atomic_store_n(&u->last, (uint64_t)t, __ATOMIC_RELAXED);
	__atomic_store_n(&u->who, who + 1, __ATOMIC_RELEASE);
}

/*
 * mf_res_reserve's work, the resource locked or used by one requester
 * (@solo: nobody arbitrates with it, so nobody reads the users). Inline in
 * mf_access_by, which calls it for every resource of every miss.
 */
static inline __attribute__((always_inline)) double
reserve(struct mf_res *r, enum mf_dir dir, double t, uint32_t bytes,
	struct mf_counters *mine, int who, double *queue, bool solo)
{
	struct mf_grant g;

	if (who >= 0 && !solo)
		note_user(r, who, t);
	g = mf_lane_take(&r->lane[dir], who < 0 ? 0 : who / MF_FLOW_SLOTS, t,
			 bytes);
	count(&r->total, dir, bytes, g.pass - t + g.queue);
	if (mine)
		count(mine, dir, bytes, g.pass - t + g.queue);
	if (queue)
		*queue = g.queue;
	return g.pass;
}

double mf_res_reserve(struct mf_res *r, enum mf_dir dir, double t,
		      uint32_t bytes, struct mf_counters *mine, int who,
		      double *queue)
{
	double pass;

	res_lock(r);
	pass = reserve(r, dir, t, bytes, mine, who, queue, false);
	res_unlock(r);
	return pass;
}

void mf_region_init(struct mf_region *g)
{
	bool pow2 = g->gran && !(g->gran & (g->gran - 1)) &&
		    g->ways > 0 && !(g->ways & (g->ways - 1));

	g->gran_shift_plus1 = pow2 ? __builtin_ctz(g->gran) + 1 : 0;
	g->ways_mask = pow2 ? (uint32_t)g->ways - 1 : 0;
}

struct mf_target *mf_decode(const struct mf_fabric *f, uint64_t pa,
			    bool is_io)
{
	for (int i = 0; i < f->nregions; i++) {
		const struct mf_region *g = &f->regions[i];
		uint64_t off;

		if (pa - g->base >= g->size)
			continue;
		off = pa - g->base;
		if (g->gran_shift_plus1)
			return g->t[(off >> (g->gran_shift_plus1 - 1)) & g->ways_mask];
		return g->t[(off / g->gran) % g->ways];
	}
	return is_io ? NULL : f->local;
}

double mf_access(struct mf_target *t, enum mf_dir dir, double issue,
		 uint32_t bytes)
{
	return mf_access_by(t, dir, issue, bytes, -1, NULL);
}

double mf_access_by(struct mf_target *t, enum mf_dir dir, double issue,
		    uint32_t bytes, int who, double *passed)
{
	double at = issue, queued = 0, degraded = 0;

	for (int i = 0; i < t->nres; i++) {
		double q;

		uint32_t b = mf_degraded_bytes(t->res[i], bytes);

		at = t->solo ?
		     reserve(t->res[i], dir, at, b, t->mine[i], who, &q, true) :
		     mf_res_reserve(t->res[i], dir, at, b, t->mine[i], who, &q);
		queued += q;
		degraded += mf_degraded_ns(t->res[i]);
	}
	if (t->solo)
		t->misses[dir]++;
	else
		__atomic_fetch_add(&t->misses[dir], 1, __ATOMIC_RELAXED);
	if (passed)
		*passed = at;
	return at + queued + degraded + mf_target_latency(t, dir);
}

void mf_window_init(struct mf_window *w, int n)
{
	memset(w, 0, sizeof(*w));
	w->n = n < 1 ? 1 : n > MF_MAX_WINDOW ? MF_MAX_WINDOW : n;
}

void mf_window_fill(struct mf_window *w, double done)
{
	int n = w->n, pos = w->head, prev;

	/*
	 * The earliest slot leaves; its place is the ring's latest end. Move
	 * the later times up one until @done fits: the times stay sorted
	 * from the new head (the slot after the old one) on.
	 */
	for (int k = 1; k < n; k++) {
		prev = pos == 0 ? n - 1 : pos - 1;
		if (w->done[prev] <= done)
			break;
		w->done[pos] = w->done[prev];
		pos = prev;
	}
	w->done[pos] = done;
	w->head = w->head + 1 == n ? 0 : w->head + 1;
}
