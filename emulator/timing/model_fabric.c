// SPDX-License-Identifier: MIT
#include "model_fabric.h"
#include "model_degrade.h"

#include <sched.h>
#include <string.h>

void mf_res_init(struct mf_res *r, const char *name, double read_gbps,
		 double write_gbps)
{
	memset(r, 0, sizeof(*r));
	strncpy(r->name, name, sizeof(r->name) - 1);
	r->gbps[MF_READ] = read_gbps;
	r->gbps[MF_WRITE] = write_gbps;
	for (int d = 0; d < 2; d++)	/* GB/s is bytes per ns */
		r->bucket_ns[d] = r->gbps[d] > 0 ?
			MF_BUCKET_BYTES / r->gbps[d] : 0;
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

/* Called with the lock held. */
static double reserve_locked(struct mf_res *r, enum mf_dir dir, double t,
			     uint32_t bytes)
{
	double bns = r->bucket_ns[dir];
	uint64_t k;

	if (bns <= 0)
		return t;
	k = (uint64_t)(t / bns);
	for (int guard = 0; guard < MF_BUCKETS; guard++, k++) {
		struct mf_bucket *b = &r->b[dir][k % MF_BUCKETS];
		double start;

		if (b->tag < k) {		/* stale slot: a fresh bucket */
			b->tag = k;
			b->used = 0;
		} else if (b->tag > k) {
			/* older than the ring holds: too far back to queue */
			return t;
		}
		if (b->used >= MF_BUCKET_BYTES)
			continue;
		/* transfers in a bucket go back to back from its start */
		start = k * bns + b->used / r->gbps[dir];
		b->used += bytes;
		return start > t ? start : t;
	}
	return t;	/* ring exhausted: a request from far in the past */
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

double mf_res_reserve(struct mf_res *r, enum mf_dir dir, double t,
		      uint32_t bytes, struct mf_counters *mine, int who)
{
	double start;

	res_lock(r);
	if (who >= 0)
		note_user(r, who, t);
	start = reserve_locked(r, dir, t, bytes);
	count(&r->total, dir, bytes, start - t);
	if (mine)
		count(mine, dir, bytes, start - t);
	res_unlock(r);
	return start;
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
		return g->t[(off / g->gran) % g->ways];
	}
	return is_io ? NULL : f->local;
}

double mf_access(struct mf_target *t, enum mf_dir dir, double issue,
		 uint32_t bytes)
{
	return mf_access_by(t, dir, issue, bytes, -1);
}

double mf_access_by(struct mf_target *t, enum mf_dir dir, double issue,
		    uint32_t bytes, int who)
{
	double at = issue, degraded = 0;

	for (int i = 0; i < t->nres; i++) {
		at = mf_res_reserve(t->res[i], dir, at,
				    mf_degraded_bytes(t->res[i], bytes), t->mine[i], who);
		degraded += mf_degraded_ns(t->res[i]);
	}
	__atomic_fetch_add(&t->misses[dir], 1, __ATOMIC_RELAXED);
	return at + degraded + mf_target_latency(t, dir);
}

void mf_window_init(struct mf_window *w, int n)
{
	memset(w, 0, sizeof(*w));
	w->n = n < 1 ? 1 : n > MF_MAX_WINDOW ? MF_MAX_WINDOW : n;
}

static int earliest(const struct mf_window *w)
{
	int e = 0;

	for (int i = 1; i < w->n; i++)
		if (w->done[i] < w->done[e])
			e = i;
	return e;
}

double mf_window_slot(const struct mf_window *w, double now)
{
	double d = w->done[earliest(w)];

	return d > now ? d : now;
}

bool mf_window_has_free(const struct mf_window *w, double now)
{
	for (int i = 0; i < w->n; i++)
		if (w->done[i] <= now)
			return true;
	return false;
}

int mf_window_free(const struct mf_window *w, double now)
{
	int n = 0;

	for (int i = 0; i < w->n; i++)
		n += w->done[i] <= now;
	return n;
}

void mf_window_fill(struct mf_window *w, double done)
{
	w->done[earliest(w)] = done;
}
