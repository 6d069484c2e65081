/* SPDX-License-Identifier: MIT */
/*
 * Timeline of one run: transfers per lane, compute spans and stalls, in
 * wall-clock nanoseconds from the trace's start. The overlap plot is drawn
 * from it; a full buffer drops further events (counted) rather than grow.
 */
#ifndef RT_TRACE_H
#define RT_TRACE_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

enum rt_ev_kind { RT_EV_FETCH, RT_EV_WRITEBACK, RT_EV_COMPUTE, RT_EV_STALL };

struct rt_event {
	uint8_t kind;
	int16_t lane;		/* copy lane; -1 for compute and stalls */
	uint32_t block;
	uint64_t t0, t1;	/* ns since trace start */
};

struct rt_trace {
	pthread_mutex_t lock;
	uint64_t base_ns;
	struct rt_event *ev;
	size_t n, cap, dropped;
};

int rt_trace_init(struct rt_trace *t, size_t cap);
void rt_trace_fini(struct rt_trace *t);
/* @t0/@t1 are absolute CLOCK_MONOTONIC ns; stored relative to base. */
void rt_trace_add(struct rt_trace *t, enum rt_ev_kind k, int lane,
		  uint32_t block, uint64_t t0, uint64_t t1);
const char *rt_ev_name(enum rt_ev_kind k);
/* JSON array of [kind, lane, block, t0_us, t1_us]. */
void rt_trace_json(const struct rt_trace *t, FILE *f);

#endif
