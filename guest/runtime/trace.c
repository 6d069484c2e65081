/* SPDX-License-Identifier: MIT */
/* Event log for the overlap timeline. */
#include <stdlib.h>

#include "shaping.h"
#include "trace.h"

int rt_trace_init(struct rt_trace *t, size_t cap)
{
	t->ev = calloc(cap ? cap : 1, sizeof(*t->ev));
	if (!t->ev)
		return -1;
	pthread_mutex_init(&t->lock, NULL);
	t->cap = cap;
	t->n = t->dropped = 0;
	t->base_ns = shp_clock_ns();
	return 0;
}

void rt_trace_fini(struct rt_trace *t)
{
	free(t->ev);
	t->ev = NULL;
	pthread_mutex_destroy(&t->lock);
}

void rt_trace_add(struct rt_trace *t, enum rt_ev_kind k, int lane,
		  uint32_t block, uint64_t t0, uint64_t t1)
{
	if (!t || !t->ev)
		return;
	pthread_mutex_lock(&t->lock);
	if (t->n < t->cap) {
		struct rt_event *e = &t->ev[t->n++];

		e->kind = (uint8_t)k;
		e->lane = (int16_t)lane;
		e->block = block;
		e->t0 = t0 > t->base_ns ? t0 - t->base_ns : 0;
		e->t1 = t1 > t->base_ns ? t1 - t->base_ns : 0;
	} else {
		t->dropped++;
	}
	pthread_mutex_unlock(&t->lock);
}

const char *rt_ev_name(enum rt_ev_kind k)
{
	switch (k) {
	case RT_EV_FETCH: return "fetch";
	case RT_EV_WRITEBACK: return "writeback";
	case RT_EV_COMPUTE: return "compute";
	case RT_EV_STALL: return "stall";
	}
	return "?";
}

void rt_trace_json(const struct rt_trace *t, FILE *f)
{
	fputc('[', f);
	for (size_t i = 0; i < t->n; i++) {
		const struct rt_event *e = &t->ev[i];

		fprintf(f, "%s[\"%s\",%d,%u,%.3f,%.3f]", i ? "," : "",
			rt_ev_name(e->kind), e->lane, e->block,
			e->t0 / 1e3, e->t1 / 1e3);
	}
	fputc(']', f);
}
