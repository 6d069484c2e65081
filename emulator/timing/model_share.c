// SPDX-License-Identifier: MIT
#include "model_share.h"

/*
 * A requester would take more than its share when most of its bytes
 * queued on its lane behind its own AND it drew most of its share: a
 * stream far below its share still queues in bursts (misses issued
 * together), and a requester held at its share by something else (a cap)
 * draws it without queueing here.
 */
#define MS_QUEUED 0.5
#define MS_DREW 0.8

/* One party to a share: a host, or a requester of one host. */
struct party {
	double want;		/* bytes per ns; < 0: as much as it can get */
};

/*
 * The level that max-min fairness (water filling) gives the parties that
 * want more than their part of @rate: parties wanting less get what they
 * want, the rest split what is left equally; @me (wanting more) among
 * them. The wants are sorted first, so that the level does not depend on
 * the order the parties were found in.
 */
static double level(struct party *p, int n, double rate)
{
	int greedy = 0;

	/* insertion sort, ascending, the greedy (< 0) last: n <= MF_USERS */
	for (int i = 1; i < n; i++) {
		struct party x = p[i];
		int j = i;

		while (j > 0 && (x.want >= 0 && (p[j - 1].want < 0 ||
						 p[j - 1].want > x.want))) {
			p[j] = p[j - 1];
			j--;
		}
		p[j] = x;
	}
	for (int i = 0; i < n; i++) {
		double fair = rate / (n - i);

		if (p[i].want < 0 || p[i].want > fair) {
			greedy = n - i;
			break;
		}
		rate -= p[i].want;
	}
	return greedy ? rate / greedy : rate;
}

/* What user @v moved in direction @dir during epoch @e, how much queued,
 * and its share then. */
static bool past_use(const struct mf_user *v, enum mf_dir dir, int64_t e,
		     uint64_t *bytes, uint64_t *queued, double *share)
{
	int k = (int)(e % MF_EPOCHS);

	if (e < 0 || __atomic_load_n(&v->used_epoch[dir][k], __ATOMIC_ACQUIRE) != e)
		return false;
	*bytes = __atomic_load_n(&v->used[dir][k], __ATOMIC_RELAXED);
	*queued = __atomic_load_n(&v->queued[dir][k], __ATOMIC_RELAXED);
	__atomic_load(&v->share[dir][k], share, __ATOMIC_RELAXED);
	return *bytes > 0;
}

/* The bytes @v's transfers found ahead of them in epoch @e, on average. */
static double past_ahead(const struct mf_user *v, enum mf_dir dir, int64_t e)
{
	int k = (int)(e % MF_EPOCHS);
	uint64_t n = __atomic_load_n(&v->reqs[dir][k], __ATOMIC_RELAXED);

	return n ? (double)__atomic_load_n(&v->ahead[dir][k], __ATOMIC_RELAXED) / (double)n : 0;
}

void ms_share(struct mf_res *r, struct mf_user *u, enum mf_dir dir, double t)
{
	int64_t e = (int64_t)(t / mf_epoch_ns), past = e - 2;
	int me = r->user_who[u - r->users] - 1, host = me / MF_FLOW_SLOTS;
	struct party hosts[MF_FLOWS + 1], mates[MF_USERS + 1];
	int host_of[MF_FLOWS], nhosts = 0, nmates = 0;
	uint64_t others = 0;
	double rate = r->gbps[dir], per_ns = 1 / mf_epoch_ns, share, ahead = 0;

	if (u->share_epoch[dir] == e + 1 || rate <= 0)
		return;
	u->share_epoch[dir] = e + 1;	/* 0 is "never set" */
	/* this requester, and its host, take what they can */
	hosts[nhosts++] = (struct party){ -1 };
	mates[nmates++] = (struct party){ -1 };
	for (int i = 0; i < MF_USERS; i++) {
		const struct mf_user *v = &r->users[i];
		int w = __atomic_load_n(&r->user_who[i], __ATOMIC_ACQUIRE) - 1, h, k;
		uint64_t b, q, b3, q3;
		double want, had, had3;

		if (w < 0)
			break;		/* entries fill in order */
		if (w == me)
			continue;
		/* the load the queueing term sees: the two epochs before, averaged */
		if (past_use(v, dir, past - 1, &b3, &q3, &had3))
			others += b3;
		if (!past_use(v, dir, past, &b, &q, &had))
			continue;
		others += b;
		want = (double)b * per_ns;
		if ((double)q >= MS_QUEUED * (double)b && want >= MS_DREW * had)
			want = -1;	/* it would take more */
		h = w / MF_FLOW_SLOTS;
		if (h == host) {
			mates[nmates++] = (struct party){ want };
			ahead += past_ahead(v, dir, past);
			continue;
		}
		for (k = 1; k < nhosts && host_of[k] != h; k++)
			;
		if (k == nhosts) {
			host_of[nhosts] = h;
			hosts[nhosts++] = (struct party){ 0 };
		}
		if (want < 0 || hosts[k].want < 0)
			hosts[k].want = -1;
		else
			hosts[k].want += want;
	}
	share = level(mates, nmates, level(hosts, nhosts, rate));
	u->mates_ahead[dir] = ahead;
	mf_lane_set_share(&u->lane[dir], rate, share, (double)others * per_ns / 2);
}
