/* SPDX-License-Identifier: MIT */
/* The scheduler; see runtime.h. */
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

void rt_config_default(struct rt_config *c)
{
	memset(c, 0, sizeof(*c));
	c->nslots = 3;
	c->window = 2;
	c->fetch_lanes = 1;
	c->evict = RT_EVICT_FURTHEST;
	c->resync = 8;
	c->horizon = 1 << 16;
}

static struct rt_victim_slot victim_read(void *arg, int i);

static int wb_lane(const struct runtime *rt)
{
	return rt->cfg.fetch_lanes;	/* the last lane writes back */
}

int rt_init(struct runtime *rt, struct rt_backend *be,
	    const struct rt_config *cfg, struct shaper *far,
	    struct rt_trace *trace)
{
	memset(rt, 0, sizeof(*rt));
	rt->cfg = *cfg;
	rt->be = be;
	if (cfg->nslots < 1 || !cfg->slot_size || cfg->fetch_lanes < 1 ||
	    cfg->fetch_lanes + 1 > RT_MAX_LANES || cfg->window < 0)
		return -1;
	rt_blocks_init(&rt->blocks);
	rt->last_fill = -1;
	rt->window_buf = calloc((size_t)cfg->window + 1, sizeof(uint32_t));
	if (!rt->window_buf || rt_ring_init(&rt->ring, cfg->nslots, cfg->slot_size))
		goto fail;
	if (cfg->evict == RT_EVICT_FURTHEST &&
	    rt_victims_init(&rt->victims, cfg->nslots, cfg->horizon, victim_read, rt))
		goto fail;
	/*
	 * One allocation, slot i at i slot sizes: blocks fetched in stream
	 * order into neighbouring slots lie in ascending addresses, so a
	 * reader's hardware stream runs on from one block into the next.
	 * Slots allocated one by one came out anywhere (top-down mmaps:
	 * descending), and the stream started over at every block.
	 */
	rt->slots_mem = rt_balloc(be, RT_TIER_FAST, (size_t)cfg->nslots * cfg->slot_size);
	if (!rt->slots_mem)
		goto fail;
	for (int i = 0; i < cfg->nslots; i++) {
		struct rt_slot *s = &rt->ring.s[i];

		s->mem = (char *)rt->slots_mem + (size_t)i * cfg->slot_size;
		s->fence = be->ops->fence_new(be);
		if (!s->fence)
			goto fail;
	}
	if (rt_lanes_start(&rt->lanes, be, cfg->fetch_lanes + 1, far, trace))
		goto fail;
	return 0;
fail:
	for (int i = 0; rt->ring.s && i < rt->ring.n; i++)
		if (rt->ring.s[i].fence)
			be->ops->fence_free(be, rt->ring.s[i].fence);
	rt_bfree(be, RT_TIER_FAST, rt->slots_mem, (size_t)cfg->nslots * cfg->slot_size);
	rt->slots_mem = NULL;
	rt_ring_fini(&rt->ring);
	rt_victims_fini(&rt->victims);
	free(rt->window_buf);
	return -1;
}

void rt_fini(struct runtime *rt)
{
	rt->st.pf_useless += rt_pf_pending(rt);	/* fetched for nothing */
	rt_lanes_drain(&rt->lanes);
	rt_lanes_stop(&rt->lanes);
	for (int i = 0; i < rt->ring.n; i++)
		rt->be->ops->fence_free(rt->be, rt->ring.s[i].fence);
	rt_bfree(rt->be, RT_TIER_FAST, rt->slots_mem,
		 (size_t)rt->ring.n * rt->cfg.slot_size);
	rt->slots_mem = NULL;
	rt_ring_fini(&rt->ring);
	rt_blocks_fini(&rt->blocks);
	rt_stream_fini(&rt->stream);
	rt_victims_fini(&rt->victims);
	rt->victims_live = false;
	free(rt->window_buf);
	rt->window_buf = NULL;
}

int64_t rt_add_block(struct runtime *rt, size_t size, void *home,
		     enum rt_tier_kind home_tier)
{
	int64_t id;

	if (size > rt->cfg.slot_size || home_tier == RT_TIER_FAST)
		return -1;
	id = rt_blocks_add(&rt->blocks, size, home, home_tier);
	if (id >= 0)	/* the front may have passed its id as nobody's */
		rt_front_pull(&rt->stream, (uint32_t)id);
	return id;
}

/* What slot @i holds, as the victim index reads it (victims.h). */
static struct rt_victim_slot victim_read(void *arg, int i)
{
	const struct runtime *rt = arg;
	const struct rt_slot *s = &rt->ring.s[i];
	const struct rt_stream *st = &rt->stream;
	const struct rt_block *b;

	if (s->block < 0)
		return (struct rt_victim_slot){ .kind = RT_VICTIM_FREE };
	b = (uint64_t)s->block < rt->blocks.n ? &rt->blocks.b[s->block] : NULL;
	if (!b || b->pins)
		return (struct rt_victim_slot){ .kind = RT_VICTIM_OFF };
	return (struct rt_victim_slot){
		.kind = RT_VICTIM_BLOCK, .last_use = b->last_use,
		.next = b->id < st->nids ? st->cur[b->id] : RT_NO_USE,
	};
}

/* Slot @i changed in what the choice reads: a fill, a pin or unpin, a
 * use, the cursor passing its block. */
static void victim_update(struct runtime *rt, int i)
{
	if (rt->victims_live)
		rt_victims_touch(&rt->victims, i);
}

void rt_set_stream(struct runtime *rt, const uint32_t *ids, size_t len,
		   bool cyclic)
{
	rt_stream_fini(&rt->stream);
	rt_stream_init(&rt->stream, ids, len, cyclic);
	rt_stream_index(&rt->stream);	/* without it, queries scan */
	/* The cursor starts over: every slot's entry is read again. */
	rt->victims_live = rt->victims.t && rt->stream.cur;
	for (int i = 0; i < rt->ring.n; i++)
		victim_update(rt, i);
}

/* The fetch lane with the shortest queue, so a demand fetch is not stuck
 * behind a long prefetch backlog when another lane is idle. */
static int pick_lane(struct runtime *rt)
{
	int best = rt->rr;
	uint64_t best_n = rt_lane_pending(&rt->lanes, best);

	for (int k = 1; k < rt->cfg.fetch_lanes; k++) {
		int l = (rt->rr + k) % rt->cfg.fetch_lanes;
		uint64_t n = rt_lane_pending(&rt->lanes, l);

		if (n < best_n) {
			best = l;
			best_n = n;
		}
	}
	rt->rr = (best + 1) % rt->cfg.fetch_lanes;
	return best;
}

static struct rt_ticket writeback(struct runtime *rt, struct rt_block *v,
				  struct rt_slot *s)
{
	struct rt_copy c = {
		.dst = v->home, .src = s->mem, .bytes = v->size,
		.shaped = v->home_tier == RT_TIER_FAR, .writeback = true,
		.block = v->id, .fence = s->fence, .after = s->busy,
	};
	struct rt_ticket t = rt_lanes_submit(&rt->lanes, wb_lane(rt), &c);

	s->busy = t;
	v->dirty = false;
	rt->st.writebacks++;
	rt->st.bytes_out += v->size;
	return t;
}

/*
 * Queue fetch @c. Large enough and with several fetch lanes, it goes out
 * in parts, one per lane, side by side: a core's copy is bound by the
 * misses it keeps in flight, so parts copied by lanes on cores of their
 * own add up. Zero-byte joins on the last part's lane, one per other
 * part, make that lane's last ticket stand for every part.
 */
static struct rt_ticket submit_fetch(struct runtime *rt, const struct rt_copy *c)
{
	int n = rt->cfg.fetch_lanes, np = 0;
	struct rt_ticket part[RT_MAX_LANES], t;
	size_t per, off = 0;

	if (n < 2 || !rt->cfg.split_min || c->bytes < rt->cfg.split_min)
		return rt_lanes_submit(&rt->lanes, pick_lane(rt), c);
	per = (c->bytes / (size_t)n + 4095) & ~(size_t)4095;
	for (int l = 0; l < n && off < c->bytes; l++, off += per) {
		struct rt_copy p = *c;

		p.dst = (char *)c->dst + off;
		p.src = (const char *)c->src + off;
		p.bytes = c->bytes - off < per ? c->bytes - off : per;
		part[np++] = rt_lanes_submit(&rt->lanes, l, &p);
	}
	t = part[np - 1];
	for (int k = 0; k < np - 1; k++) {
		struct rt_copy join = { .block = c->block, .after = part[k] };

		t = rt_lanes_submit(&rt->lanes, part[np - 1].lane, &join);
	}
	return t;
}

/*
 * Give @b a slot and queue its fetch. @needed_at is how far ahead @b is
 * needed; only blocks needed later than that may be evicted for it
 * (RT_NO_USE for a demand fetch, which takes any unpinned slot).
 */
static int fetch(struct runtime *rt, struct rt_block *b, size_t needed_at)
{
	struct rt_victim_query q = {
		.policy = rt->cfg.evict, .ring = &rt->ring,
		.blocks = &rt->blocks, .stream = &rt->stream,
		.horizon = rt->cfg.horizon, .needed_at = needed_at,
		.prefer = rt->last_fill >= 0 ? (rt->last_fill + 1) % rt->ring.n : -1,
		.index = rt->victims_live ? &rt->victims : NULL,
	};
	int i = rt_evict_choose(&q);
	struct rt_slot *s;
	struct rt_copy c;

	if (i < 0)
		return -1;
	s = &rt->ring.s[i];
	if (s->block >= 0) {
		struct rt_block *v = rt_block(&rt->blocks, (uint32_t)s->block);

		rt->st.evictions++;
		if (v->prefetched && !v->used)
			rt->st.pf_useless++;
		if (v->dirty)
			writeback(rt, v, s);
		v->state = RT_B_HOME;
		v->slot = -1;
		v->prefetched = false;
		rt_front_pull(&rt->stream, v->id);
	}
	c = (struct rt_copy){
		.dst = s->mem, .src = b->home, .bytes = b->size,
		.shaped = b->home_tier == RT_TIER_FAR, .block = b->id,
		.fence = s->fence, .after = s->busy,
	};
	b->ready = submit_fetch(rt, &c);
	s->busy = b->ready;
	b->state = RT_B_RESIDENT;
	b->slot = i;
	b->used = false;
	rt_ring_fill(&rt->ring, i, b->id);
	victim_update(rt, i);
	rt->last_fill = i;
	rt->st.bytes_in += b->size;
	return 0;
}

/* Fetch @b ahead of its use; false when no slot can be had for it. */
static bool prefetch_one(struct runtime *rt, struct rt_block *b)
{
	/* No slot holds something needed later: the window is as deep as
	 * the ring allows right now. */
	if (fetch(rt, b, rt_next_use(&rt->stream, b->id, rt->cfg.horizon)))
		return false;
	b->prefetched = true;
	rt->st.prefetches++;
	return true;
}

static void prefetch_window(struct runtime *rt)
{
	size_t n;
	uint32_t id;

	if (!rt->cfg.window)
		return;
	if (rt->stream.cur) {
		/* indexed: go on from where the last call found blocks in place */
		while (rt_front_next(&rt->stream, (size_t)rt->cfg.window, &id)) {
			struct rt_block *b = rt_block(&rt->blocks, id);

			if (b && b->state == RT_B_HOME && !prefetch_one(rt, b))
				return;
			rt_front_pass(&rt->stream);
		}
		return;
	}
	n = rt_lookahead(&rt->stream, (size_t)rt->cfg.window, rt->window_buf);
	for (size_t k = 0; k < n; k++) {
		struct rt_block *b = rt_block(&rt->blocks, rt->window_buf[k]);

		if (b && b->state == RT_B_HOME && !prefetch_one(rt, b))
			break;
	}
}

/* The cursor moved on from @from: blocks it passed have a new next use. */
static void victims_passed(struct runtime *rt, size_t from)
{
	for (size_t p = from; rt->victims_live && p < rt->stream.pos; p++) {
		const struct rt_block *b = rt_block(&rt->blocks, rt->stream.ids[p]);

		if (b && b->state == RT_B_RESIDENT)
			victim_update(rt, b->slot);
	}
}

void *rt_access(struct runtime *rt, uint32_t id)
{
	struct rt_block *b = rt_block(&rt->blocks, id);
	size_t from = rt->stream.pos;

	if (!b)
		return NULL;
	rt->clock++;
	rt->st.accesses++;
	if (rt_stream_follow(&rt->stream, id, rt->cfg.resync) == RT_FOLLOW_DEVIATE)
		rt->st.deviations++;
	victims_passed(rt, from);
	if (b->state == RT_B_HOME) {
		rt->st.misses++;
		if (fetch(rt, b, RT_NO_USE))
			return NULL;	/* every slot pinned */
	} else if (rt_ticket_done(&rt->lanes, b->ready)) {
		rt->st.hits++;
		if (b->prefetched && !b->used)
			rt->st.pf_timely++;
	} else {
		rt->st.late++;
		if (b->prefetched && !b->used)
			rt->st.pf_late++;
	}
	b->used = true;
	b->pins++;
	b->last_use = rt->clock;
	victim_update(rt, b->slot);
	/* Queue the window before waiting, so it streams behind this one. */
	prefetch_window(rt);
	if (!rt_ticket_done(&rt->lanes, b->ready)) {
		uint64_t t0 = shp_clock_ns(), t1;

		rt_ticket_wait(&rt->lanes, b->ready);
		t1 = shp_clock_ns();
		rt->st.stall_ns += t1 - t0;
		rt_trace_add(rt->lanes.trace, RT_EV_STALL, -1, id, t0, t1);
	}
	return rt->ring.s[b->slot].mem;
}

void rt_release(struct runtime *rt, uint32_t id, bool dirty)
{
	struct rt_block *b = rt_block(&rt->blocks, id);

	if (!b || b->state != RT_B_RESIDENT || !b->pins)
		return;
	b->pins--;
	victim_update(rt, b->slot);
	if (dirty)
		b->dirty = true;
	rt->be->ops->fence_record(rt->be, rt->ring.s[b->slot].fence);
}

void rt_flush(struct runtime *rt)
{
	for (int i = 0; i < rt->ring.n; i++) {
		struct rt_slot *s = &rt->ring.s[i];
		struct rt_block *b;

		if (s->block < 0)
			continue;
		b = rt_block(&rt->blocks, (uint32_t)s->block);
		if (b->dirty)
			writeback(rt, b, s);
	}
	rt_lanes_drain(&rt->lanes);
}

uint64_t rt_pf_pending(const struct runtime *rt)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < rt->blocks.n; i++)
		if (rt->blocks.b[i].state == RT_B_RESIDENT &&
		    rt->blocks.b[i].prefetched && !rt->blocks.b[i].used)
			n++;
	return n;
}

uint64_t rt_transfer_ns(struct runtime *rt)
{
	uint64_t ns;

	pthread_mutex_lock(&rt->lanes.lock);
	ns = rt->lanes.union_ns;
	if (rt->lanes.active)
		ns += shp_clock_ns() - rt->lanes.active_since;
	pthread_mutex_unlock(&rt->lanes.lock);
	return ns;
}

double rt_overlap_pct(struct runtime *rt)
{
	uint64_t x = rt_transfer_ns(rt);

	if (!x)
		return 0;
	if (rt->st.stall_ns >= x)
		return 0;
	return 100.0 * (1.0 - (double)rt->st.stall_ns / (double)x);
}
