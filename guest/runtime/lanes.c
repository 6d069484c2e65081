/* SPDX-License-Identifier: MIT */
/* Copy-lane threads; see lanes.h. */
#include <string.h>

#include "lanes.h"

static bool done_locked(struct rt_lanes *ls, struct rt_ticket t)
{
	return !t.seq ||
	       __atomic_load_n(&ls->lane[t.lane].completed, __ATOMIC_ACQUIRE) >= t.seq;
}

/* Wait (lock held) until @t is done. */
static void wait_done_locked(struct rt_lanes *ls, struct rt_ticket t)
{
	ls->done_waiters++;
	while (!done_locked(ls, t))
		pthread_cond_wait(&ls->cond, &ls->lock);
	ls->done_waiters--;
}

/* One more copy of @l finished (lock held): its data is there first. */
static void complete_locked(struct rt_lanes *ls, struct rt_lane *l)
{
	__atomic_store_n(&l->completed, l->completed + 1, __ATOMIC_RELEASE);
	if (ls->done_waiters)
		pthread_cond_broadcast(&ls->cond);
}

static void *lane_main(void *arg)
{
	struct rt_lane *l = arg;
	struct rt_lanes *ls = l->set;
	struct rt_backend *be = ls->be;
	uint64_t running;	/* since when it runs outside a copy or a wait */
	/*
	 * running was read as a wait ended, the lock held since and nothing
	 * but a copy taken off the queue after it: a copy's start stamp can
	 * be that reading. Each read is a system call in the guest (no vDSO
	 * path for the modeled clocksource), the biggest part of a lane's
	 * bookkeeping.
	 */
	bool fresh = false;

	be->ops->lane_start(be, l->idx);
	pthread_mutex_lock(&ls->lock);
	running = shp_clock_ns();
	for (;;) {
		struct rt_copy c;
		uint64_t t0, t1;
		int sid = -1, rc;

		/*
		 * book_ns: the lane's own work (taking a copy off the queue,
		 * the stamps, the wake-ups) is the time between waits and
		 * copies, clock read where one begins or ends.
		 */
		if (!ls->stop && l->completed == l->submitted) {
			l->book_ns += shp_clock_ns() - running;
			while (!ls->stop && l->completed == l->submitted)
				pthread_cond_wait(&l->work, &ls->lock);
			running = shp_clock_ns();
			fresh = true;
		}
		if (l->completed == l->submitted)
			break;
		c = l->q[l->completed % RT_LANE_QUEUE];
		if (!done_locked(ls, c.after)) {
			l->book_ns += shp_clock_ns() - running;
			wait_done_locked(ls, c.after);
			running = shp_clock_ns();
			fresh = true;
		}
		if (!c.bytes) {
			complete_locked(ls, l);	/* a join: nothing to copy */
			fresh = false;	/* it may have woken others */
			continue;
		}
		if (c.fence && be->ops->fence_wait) {	/* a wait, not work: outside the lock */
			uint64_t f0;

			pthread_mutex_unlock(&ls->lock);
			f0 = shp_clock_ns();
			be->ops->fence_wait(be, c.fence);
			pthread_mutex_lock(&ls->lock);
			t0 = shp_clock_ns();
			running += t0 - f0;
		} else {
			t0 = fresh ? running : shp_clock_ns();
		}
		/*
		 * Stamps for the lanes' union are read under the lock: a lane
		 * preempted between reading the clock and locking would else
		 * close the union at its own, earlier end while another lane
		 * was still busy (seen on a loaded host: the union came out
		 * shorter than the shaped link can carry the bytes in). The
		 * copy is taken and begun under one lock: each lock and clock
		 * read is a futex or a system call in the guest (the modeled
		 * clocksource has no vDSO path), the lanes' bookkeeping.
		 */
		if (ls->active++ == 0)
			ls->active_since = t0;
		l->book_ns += t0 - running;
		pthread_mutex_unlock(&ls->lock);

		if (c.shaped && ls->far)
			sid = shp_rt_begin(ls->far, c.bytes);
		rc = be->ops->copy(be, l->idx, c.dst, c.src, c.bytes);
		if (sid >= 0)
			shp_rt_wait(ls->far, sid);	/* far link slower than the copy */

		pthread_mutex_lock(&ls->lock);
		t1 = shp_clock_ns();	/* the copy's end and the union's, one read */
		if (--ls->active == 0)
			ls->union_ns += t1 - ls->active_since;
		l->busy_ns += t1 - t0;
		running = t1;
		fresh = false;
		if (rc)
			l->errors++;
		complete_locked(ls, l);
		rt_trace_add(ls->trace, c.writeback ? RT_EV_WRITEBACK : RT_EV_FETCH,
			     l->idx, c.block, t0, t1);
	}
	pthread_mutex_unlock(&ls->lock);
	return NULL;
}

int rt_lanes_start(struct rt_lanes *ls, struct rt_backend *be, int n,
		   struct shaper *far, struct rt_trace *trace)
{
	if (n < 1 || n > RT_MAX_LANES)
		return -1;
	memset(ls, 0, sizeof(*ls));
	ls->be = be;
	ls->far = far;
	ls->trace = trace;
	ls->n = n;
	pthread_mutex_init(&ls->lock, NULL);
	pthread_cond_init(&ls->cond, NULL);
	for (int i = 0; i < n; i++) {
		pthread_cond_init(&ls->lane[i].work, NULL);
		ls->lane[i].set = ls;	/* set: its condition is to be destroyed */
		ls->lane[i].idx = i;
		if (pthread_create(&ls->lane[i].thread, NULL, lane_main,
				   &ls->lane[i])) {
			ls->n = i;
			rt_lanes_stop(ls);
			return -1;
		}
	}
	return 0;
}

void rt_lanes_stop(struct rt_lanes *ls)
{
	pthread_mutex_lock(&ls->lock);
	ls->stop = true;
	pthread_cond_broadcast(&ls->cond);
	for (int i = 0; i < ls->n; i++)
		pthread_cond_broadcast(&ls->lane[i].work);
	pthread_mutex_unlock(&ls->lock);
	for (int i = 0; i < ls->n; i++)
		pthread_join(ls->lane[i].thread, NULL);
	for (int i = 0; i < RT_MAX_LANES; i++)
		if (ls->lane[i].set)
			pthread_cond_destroy(&ls->lane[i].work);
	pthread_cond_destroy(&ls->cond);
	pthread_mutex_destroy(&ls->lock);
}

struct rt_ticket rt_lanes_submit(struct rt_lanes *ls, int lane,
				 const struct rt_copy *c)
{
	struct rt_lane *l = &ls->lane[lane];
	struct rt_ticket t = { .lane = lane };

	pthread_mutex_lock(&ls->lock);
	if (l->submitted - l->completed >= RT_LANE_QUEUE)	/* room: the oldest done */
		wait_done_locked(ls, (struct rt_ticket){ lane, l->submitted - RT_LANE_QUEUE + 1 });
	l->q[l->submitted % RT_LANE_QUEUE] = *c;
	t.seq = l->submitted + 1;
	__atomic_store_n(&l->submitted, t.seq, __ATOMIC_RELEASE);
	pthread_cond_signal(&l->work);
	pthread_mutex_unlock(&ls->lock);
	return t;
}

/* No lock: a finished ticket stays finished (completed only grows). */
bool rt_ticket_done(struct rt_lanes *ls, struct rt_ticket t)
{
	return done_locked(ls, t);
}

void rt_ticket_wait(struct rt_lanes *ls, struct rt_ticket t)
{
	if (done_locked(ls, t))
		return;
	pthread_mutex_lock(&ls->lock);
	wait_done_locked(ls, t);
	pthread_mutex_unlock(&ls->lock);
}

/* No lock: completed read first, so the difference is never negative. */
uint64_t rt_lane_pending(struct rt_lanes *ls, int lane)
{
	uint64_t done = __atomic_load_n(&ls->lane[lane].completed, __ATOMIC_ACQUIRE);

	return __atomic_load_n(&ls->lane[lane].submitted, __ATOMIC_ACQUIRE) - done;
}

void rt_lanes_drain(struct rt_lanes *ls)
{
	pthread_mutex_lock(&ls->lock);
	for (int i = 0; i < ls->n; i++)
		wait_done_locked(ls, (struct rt_ticket){ i, ls->lane[i].submitted });
	pthread_mutex_unlock(&ls->lock);
}
