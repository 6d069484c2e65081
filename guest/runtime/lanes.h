/* SPDX-License-Identifier: MIT */
/*
 * Copy lanes: one thread per lane (a copy-engine stream on a GPU), each
 * draining a FIFO of copies. A copy may wait for a compute fence (the
 * consumer of the buffer it overwrites) and for a ticket on another lane
 * (a write-back that must land before a fetch reuses its slot). Copies that
 * touch the far tier go through the shared shaper, so lanes contend for
 * the far link the way concurrent streams do.
 *
 * Tickets are (lane, sequence number); a lane finishes in order, so a
 * ticket is done once the lane's completed count reaches it.
 */
#ifndef RT_LANES_H
#define RT_LANES_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "shaping.h"
#include "trace.h"

#define RT_MAX_LANES 8
#define RT_LANE_QUEUE 256

struct rt_ticket {
	int lane;
	uint64_t seq;		/* 0: no ticket */
};

struct rt_copy {
	void *dst;
	const void *src;
	size_t bytes;
	bool shaped;		/* crosses the far link */
	bool writeback;		/* for the trace */
	uint32_t block;
	void *fence;		/* compute fence to wait for, or NULL */
	struct rt_ticket after;	/* ticket to wait for, or seq 0 */
	/* bytes 0: a join, done as soon as @after is: several lanes' parts
	 * of one copy end in one ticket */
};

struct rt_lane {
	struct rt_lanes *set;
	int idx;
	pthread_t thread;
	struct rt_copy q[RT_LANE_QUEUE];
	/*
	 * Sequence numbers, written under the set's lock; completed is also
	 * read without it (rt_ticket_done), hence atomic stores.
	 */
	uint64_t submitted, completed;
	pthread_cond_t work;	/* a copy was queued here, or stop */
	uint64_t busy_ns;	/* in copies */
	uint64_t book_ns;	/* running outside copies and waits */
	int errors;
};

struct rt_lanes {
	struct rt_backend *be;
	struct shaper *far;	/* NULL: far copies are not shaped */
	struct rt_trace *trace;	/* NULL: no trace */
	int n;
	struct rt_lane lane[RT_MAX_LANES];
	pthread_mutex_t lock;
	/*
	 * A completion, for whoever waits on one (a ticket, queue room, a
	 * lane's @after): broadcast only when someone does. One shared
	 * condition woken by every submit and completion had four threads
	 * waking each other through the guest kernel per 16 KiB block.
	 */
	pthread_cond_t cond;
	int done_waiters;
	bool stop;
	/* Union of busy time over all lanes: wall time with >= 1 copy live. */
	int active;
	uint64_t active_since, union_ns;
};

int rt_lanes_start(struct rt_lanes *ls, struct rt_backend *be, int n,
		   struct shaper *far, struct rt_trace *trace);
void rt_lanes_stop(struct rt_lanes *ls);
struct rt_ticket rt_lanes_submit(struct rt_lanes *ls, int lane,
				 const struct rt_copy *c);
bool rt_ticket_done(struct rt_lanes *ls, struct rt_ticket t);
void rt_ticket_wait(struct rt_lanes *ls, struct rt_ticket t);
/* Copies queued but not finished on @lane. */
uint64_t rt_lane_pending(struct rt_lanes *ls, int lane);
void rt_lanes_drain(struct rt_lanes *ls);

#endif
