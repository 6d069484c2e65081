// SPDX-License-Identifier: MIT
#include "model_share.h"

/* User @u's slot if it is behind @who (at @me) and active, else -1. */
static int holds_back(const struct mf_user *u, const struct tm_sync *s,
		       int who, uint64_t me, uint64_t slack,
		       uint64_t *stale_before)
{
	int w = __atomic_load_n(&u->who, __ATOMIC_ACQUIRE) - 1;
	uint64_t pub, clock, last;

	if (w == who || w < 0)
		return -1;
	pub = __atomic_load_n(&s->slot[w], __ATOMIC_ACQUIRE);
	if (!pub)			/* halted, finished, not started */
		return -1;
	clock = pub - 1;
	if (clock + slack >= me)	/* not behind us */
		return -1;
	last = __atomic_load_n(&u->last, __ATOMIC_RELAXED);
	if (last + MS_IDLE_NS < clock)	/* no longer uses this resource */
		return -1;
	if (*stale_before == UINT64_MAX)
		*stale_before = tm_sync_stale_before(s);
	return tm_sync_stale(s, w, *stale_before) ? -1 : w;
}

int ms_blocker(const struct mf_target *t, const struct tm_sync *s, int who,
	       double now, uint64_t slack_ns)
{
	uint64_t me = (uint64_t)now, stale_before = UINT64_MAX;

	for (int i = 0; i < t->nres; i++) {
		const struct mf_res *r = t->res[i];

		if (r->gbps[MF_READ] <= 0 && r->gbps[MF_WRITE] <= 0)
			continue;	/* unlimited: nothing to share */
		for (int k = 0; k < MF_USERS; k++) {
			const struct mf_user *u = &r->users[k];
			int w;

			if (!__atomic_load_n(&u->who, __ATOMIC_ACQUIRE))
				break;	/* entries fill in order */
			w = holds_back(u, s, who, me, slack_ns, &stale_before);
			if (w >= 0)
				return w;
		}
	}
	return -1;
}
