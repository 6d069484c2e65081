// SPDX-License-Identifier: MIT
#include "model_fabric.h"
#include "model_degrade.h"
#include "model_share.h"
#include "spin_lock.h"

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

static void res_lock(struct mf_res *r)
{
	tm_spin_lock(&r->lock);
}

static void res_unlock(struct mf_res *r)
{
	tm_spin_unlock(&r->lock);
}

double mf_epoch_ns = 4000;	/* twice the default skew bound */

static void count(struct mf_counters *c, enum mf_dir dir, uint32_t bytes,
		  double wait)
{
	c->bytes[dir] += bytes;
	c->reqs[dir]++;
	c->wait_ns[dir] += wait;
}

struct mf_user *mf_res_user(struct mf_res *r, int who)
{
	for (int i = 0; i < MF_USERS; i++) {
		struct mf_user *u = &r->users[i];
		int32_t w = __atomic_load_n(&r->user_who[i], __ATOMIC_ACQUIRE), free = 0;

		if (w == who + 1)
			return u;
		if (w)
			continue;
		/* entries fill in order: this free one is ours if nobody beats us */
		if (__atomic_compare_exchange_n(&r->user_who[i], &free, who + 1, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			for (int d = 0; d < 2; d++)
				mf_lane_init(&u->lane[d], r->gbps[d], r->queue_ns);
			return u;
		}
		if (free == who + 1)
			return u;
	}
	return NULL;
}

/*
 * Bytes of user @u's transfer at @t counted in its epoch (model_share.h),
 * and whether it queued behind the user's earlier transfers there: a
 * requester whose transfers queue on its lane would take more than its
 * share; one held back elsewhere (its own misses in flight, a cap) would not.
 */
static void used(struct mf_user *u, enum mf_dir dir, double t, uint32_t bytes,
		 uint64_t ahead)
{
	int64_t e = (int64_t)(t / mf_epoch_ns);
	int k = (int)(e % MF_EPOCHS);

	if (u->used_epoch[dir][k] != e) {
		__atomic_store_n(&u->used[dir][k], 0, __ATOMIC_RELAXED);
		__atomic_store_n(&u->queued[dir][k], 0, __ATOMIC_RELAXED);
		__atomic_store_n(&u->ahead[dir][k], 0, __ATOMIC_RELAXED);
		__atomic_store_n(&u->reqs[dir][k], 0, __ATOMIC_RELAXED);
		__atomic_store(&u->share[dir][k], &u->lane[dir].rate, __ATOMIC_RELAXED);
		__atomic_store_n(&u->used_epoch[dir][k], e, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&u->used[dir][k], u->used[dir][k] + bytes, __ATOMIC_RELAXED);
	__atomic_store_n(&u->reqs[dir][k], u->reqs[dir][k] + 1, __ATOMIC_RELAXED);
	if (ahead) {
		__atomic_store_n(&u->queued[dir][k], u->queued[dir][k] + bytes,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&u->ahead[dir][k], u->ahead[dir][k] + ahead,
				 __ATOMIC_RELAXED);
	}
}

/*
 * mf_res_reserve's work. Inline in mf_access_by, which calls it for every
 * resource of every miss. @solo: the only requester of the resource (no
 * share to take, no lock), on the resource's own lanes.
 */
static inline __attribute__((always_inline)) double
reserve(struct mf_res *r, enum mf_dir dir, double t, uint32_t bytes,
	int who, double *queue, bool solo)
{
	struct mf_user *u = who >= 0 ? mf_res_user(r, who) : NULL;
	struct mf_counters *c = u ? &u->count : &r->total;
	struct mf_grant g;

	if (solo) {
		g = mf_lane_take(&r->lane[dir], 0, t, bytes);
	} else if (u) {
		struct mf_lane *l = &u->lane[dir];
		double waited;

		ms_share(r, u, dir, t);
		g = mf_lane_take(l, 0, t, bytes);
		/* how long it waited for its lane; beyond rounding, it queued */
		waited = g.pass - bytes * (l->per_byte - l->rho_per_byte) - t;
		if (waited > 0.01)
			used(u, dir, t, bytes, (uint64_t)(waited * l->rate + 0.5));
		else {
			used(u, dir, t, bytes, 0);
			/* an idle lane of its own: behind its host's queued bytes */
			g.pass += u->mates_ahead[dir] * l->rho_per_byte;
		}
	} else {
		res_lock(r);
		g = mf_lane_take(&r->lane[dir], who < 0 ? 0 : who / MF_FLOW_SLOTS,
				 t, bytes);
		count(&r->total, dir, bytes, g.pass - t + g.queue);
		res_unlock(r);
		*queue = g.queue;
		return g.pass;
	}
	count(c, dir, bytes, g.pass - t + g.queue);
	*queue = g.queue;
	return g.pass;
}

double mf_res_reserve(struct mf_res *r, enum mf_dir dir, double t,
		      uint32_t bytes, int who, double *queue)
{
	double q;
	double pass = reserve(r, dir, t, bytes, who, &q, false);

	if (queue)
		*queue = q;
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

		at = t->solo ? reserve(t->res[i], dir, at, b, who, &q, true) :
			       reserve(t->res[i], dir, at, b, who, &q, false);
		queued += q;
		degraded += mf_degraded_ns(t->res[i]);
	}
	if (who >= 0) {	/* only this requester's thread writes its count */
		uint64_t *n = &t->misses_by[who % MF_FLOW_SLOTS].n[dir];

		__atomic_store_n(n, __atomic_load_n(n, __ATOMIC_RELAXED) + 1,
				 __ATOMIC_RELAXED);
	} else {
		__atomic_fetch_add(&t->misses_by[0].n[dir], 1, __ATOMIC_RELAXED);
	}
	if (passed)
		*passed = at;
	return at + queued + degraded + mf_target_latency(t, dir);
}

uint64_t mf_target_misses(const struct mf_target *t, enum mf_dir dir)
{
	uint64_t n = 0;

	for (int i = 0; i < MF_FLOW_SLOTS; i++)
		n += __atomic_load_n(&t->misses_by[i].n[dir], __ATOMIC_RELAXED);
	return n;
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
