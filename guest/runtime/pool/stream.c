/* SPDX-License-Identifier: MIT */
/*
 * Ordered streams: the shared tiering core (runtime.h) on the pool's
 * backend. Slots come out of the fast-tier budget; one fetch lane and one
 * write-back lane run on the helper CPU, so a block's transfer overlaps
 * the compute on the block before it.
 */
#include <stdlib.h>

#include "pool_priv.h"
#include "runtime.h"

struct cxlpool_stream {
	struct cxlpool *p;
	struct cxlpool_stream *next;
	struct runtime rt;
};

struct cxlpool_stream *cp_stream_next(struct cxlpool_stream *s)
{
	return s->next;
}

struct cxlpool_stream *cxlpool_stream_open(struct cxlpool *p, size_t block_size,
					   int slots, int window)
{
	struct cxlpool_stream *s = calloc(1, sizeof(*s));
	struct rt_config c;

	if (!s)
		return NULL;
	rt_config_default(&c);
	c.nslots = slots;
	c.slot_size = (block_size + CP_PAGE - 1) / CP_PAGE * CP_PAGE;
	c.window = window;
	/* several lanes split each block's copy: one core's copy is bound by
	 * the misses it keeps in flight, far below the path's bandwidth */
	c.fetch_lanes = p->o.copy_lanes > 1 ? p->o.copy_lanes : 1;
	c.split_min = c.fetch_lanes > 1 ? 64u << 10 : 0;
	s->p = p;
	if (rt_init(&s->rt, &p->be, &c, NULL, NULL)) {
		cp_set_error("stream slots do not fit the fast-tier budget");
		free(s);
		return NULL;
	}
	pthread_mutex_lock(&p->lock);
	s->next = p->streams;
	p->streams = s;
	pthread_mutex_unlock(&p->lock);
	return s;
}

int64_t cxlpool_stream_block(struct cxlpool_stream *s, void *home, size_t n)
{
	return rt_add_block(&s->rt, n, home, RT_TIER_FAR);
}

void cxlpool_stream_order(struct cxlpool_stream *s, const uint32_t *ids,
			  size_t n, bool cyclic)
{
	rt_set_stream(&s->rt, ids, n, cyclic);
}

void *cxlpool_stream_get(struct cxlpool_stream *s, uint32_t id)
{
	return rt_access(&s->rt, id);
}

void cxlpool_stream_put(struct cxlpool_stream *s, uint32_t id, bool dirty)
{
	rt_release(&s->rt, id, dirty);
}

void cxlpool_stream_flush(struct cxlpool_stream *s)
{
	rt_flush(&s->rt);
}

static void stats_of(struct cxlpool_stream *s, struct cxlpool_stats *st, bool live)
{
	const struct rt_stats *r = &s->rt.st;

	st->accesses += r->accesses;
	st->hits += r->hits;
	st->staged_in += r->bytes_in;
	st->staged_out += r->bytes_out;
	st->pf_issued += r->prefetches;
	st->pf_timely += r->pf_timely;
	st->pf_late += r->pf_late;
	st->pf_useless += r->pf_useless;
	st->stall_ns += r->stall_ns;
	if (live)
		pthread_mutex_lock(&s->rt.lanes.lock);
	for (int i = 0; i < s->rt.lanes.n; i++) {
		st->mover_ns += s->rt.lanes.lane[i].busy_ns;
		st->helper_ns += s->rt.lanes.lane[i].book_ns;
	}
	if (live)
		pthread_mutex_unlock(&s->rt.lanes.lock);
}

void cp_stream_stats(struct cxlpool_stream *s, struct cxlpool_stats *st)
{
	stats_of(s, st, true);
}

void cxlpool_stream_close(struct cxlpool_stream *s)
{
	struct cxlpool *p = s->p;
	struct cxlpool_stream **sp;
	struct cxlpool_stats one = { 0 };

	rt_flush(&s->rt);
	pthread_mutex_lock(&p->lock);
	for (sp = &p->streams; *sp && *sp != s; sp = &(*sp)->next)
		;
	if (*sp)
		*sp = s->next;
	pthread_mutex_unlock(&p->lock);
	/* rt_fini counts prefetches never used as useless; its lane threads
	 * are gone after it, their busy times still readable. */
	rt_fini(&s->rt);
	stats_of(s, &one, false);
	pthread_mutex_lock(&p->lock);
	cp_stats_add(&p->closed, &one);
	pthread_mutex_unlock(&p->lock);
	free(s);
}
