// SPDX-License-Identifier: MIT
#include "model_cache.h"

#include <stdlib.h>
#include <string.h>

bool mc_level_init(struct mc_level *l, uint64_t bytes, uint32_t ways,
		   uint32_t line_bytes)
{
	uint64_t lines;

	memset(l, 0, sizeof(*l));
	if (!ways || ways > 32 || !line_bytes ||
	    bytes < (uint64_t)ways * line_bytes)
		return false;
	lines = bytes / line_bytes;
	l->ways = ways;
	l->sets = lines / ways;
	l->full = ways == 32 ? UINT32_MAX : (1u << ways) - 1;
	if (!(l->sets & (l->sets - 1))) {
		l->set_mask = l->sets - 1;
		while ((1u << l->set_shift) < l->sets)
			l->set_shift++;
	}
	/* tags, flags, MRU bits, then the ready times; whole host lines */
	l->ready_off = (5 * ways + sizeof(uint32_t) + 63) & ~63u;
	l->block = (l->ready_off + ways * sizeof(double) + 63) & ~63u;
	l->mem = aligned_alloc(64, (uint64_t)l->sets * l->block);
	if (!l->mem) {
		mc_level_free(l);
		return false;
	}
	/* touched now, not page by page during the first region measured */
	memset(l->mem, 0, (uint64_t)l->sets * l->block);
	return true;
}

void mc_level_free(struct mc_level *l)
{
	free(l->mem);
	memset(l, 0, sizeof(*l));
}

static inline uint32_t *tags_of(const uint8_t *set)
{
	return (uint32_t *)set;
}

static inline uint8_t *flags_of(const struct mc_level *l, uint8_t *set)
{
	return set + 4 * l->ways;
}

static inline uint32_t *mru_of(const struct mc_level *l, uint8_t *set)
{
	return (uint32_t *)(set + l->ready_off - sizeof(uint32_t));
}

static inline double *ready_of(const struct mc_level *l, uint8_t *set)
{
	return (double *)(set + l->ready_off);
}

/*
 * Bit w set where way w holds @tag. Four tags at a time (SSE2, every
 * x86-64 host) when the ways come in fours: no branch per way, which the
 * host mispredicted on every miss.
 */
#if defined(__SSE2__)
#include <emmintrin.h>

/* Bit i set where tags[i] == @want, for four tags (16-byte aligned). */
static inline uint32_t four(const uint32_t *t, __m128i want)
{
	return (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(
		_mm_load_si128((const __m128i *)t), want)));
}

static inline uint32_t tag_mask(const struct mc_level *l, const uint8_t *set,
				uint32_t tag)
{
	const uint32_t *t = tags_of(set);
	__m128i want = _mm_set1_epi32((int)tag);
	uint32_t m = 0;

	/* the model's usual geometries, unrolled */
	if (l->ways == 16)
		return four(t, want) | four(t + 4, want) << 4 |
		       four(t + 8, want) << 8 | four(t + 12, want) << 12;
	if (l->ways == 12)
		return four(t, want) | four(t + 4, want) << 4 |
		       four(t + 8, want) << 8;
	if (!(l->ways & 3)) {
		for (uint32_t w = 0; w < l->ways; w += 4)
			m |= four(t + w, want) << w;
		return m;
	}
	for (uint32_t w = 0; w < l->ways; w++)
		m |= (uint32_t)(t[w] == tag) << w;
	return m;
}
#else
static inline uint32_t tag_mask(const struct mc_level *l, const uint8_t *set,
				uint32_t tag)
{
	const uint32_t *t = tags_of(set);
	uint32_t m = 0;

	for (uint32_t w = 0; w < l->ways; w++)
		m |= (uint32_t)(t[w] == tag) << w;
	return m;
}
#endif

/* Way @w was used: its MRU bit; all set would say nothing, so restart. */
static inline void touch(const struct mc_level *l, uint8_t *set, int w)
{
	uint32_t *mru = mru_of(l, set), m = *mru | 1u << w;

	*mru = m == l->full ? 1u << w : m;
}

void mc_find(const struct mc_level *l, uint64_t line, struct mc_ref *r)
{
	uint64_t q;
	uint32_t m;

	if (l->set_mask) {
		r->index = line & l->set_mask;
		q = line >> l->set_shift;
	} else {
		r->index = line % l->sets;
		q = line / l->sets;
	}
	r->tag = (uint32_t)(q + 1);
	r->set = l->mem + r->index * l->block;
	m = tag_mask(l, r->set, r->tag);
	r->way = m ? __builtin_ctz(m) : -1;
}

uint8_t mc_flags(const struct mc_level *l, const struct mc_ref *r)
{
	return flags_of(l, r->set)[r->way] & ~MC_PENDING;
}

double mc_ready(const struct mc_level *l, const struct mc_ref *r)
{
	return flags_of(l, r->set)[r->way] & MC_PENDING ?
	       ready_of(l, r->set)[r->way] : 0;
}

void mc_drop(struct mc_level *l, const struct mc_ref *r)
{
	tags_of(r->set)[r->way] = 0;
	flags_of(l, r->set)[r->way] = 0;
}

uint8_t mc_use(struct mc_level *l, const struct mc_ref *r, uint8_t set_flags,
	       uint8_t clear_flags, double settled, double *ready)
{
	uint8_t *f = &flags_of(l, r->set)[r->way];
	uint8_t old = *f;

	touch(l, r->set, r->way);
	if (ready) {
		*ready = 0;
		if (old & MC_PENDING) {
			*ready = ready_of(l, r->set)[r->way];
			if (*ready <= settled)
				*f &= ~MC_PENDING;
		}
	}
	*f = (*f | set_flags) & ~(clear_flags & ~MC_PENDING);
	return old & ~MC_PENDING;
}

bool mc_put(struct mc_level *l, const struct mc_ref *r, uint8_t flags,
	    double ready, uint64_t *victim)
{
	uint32_t *t = tags_of(r->set);
	uint8_t *f = flags_of(l, r->set);
	uint32_t empty = tag_mask(l, r->set, 0) & l->full;
	uint32_t old = ~*mru_of(l, r->set) & l->full;
	int w = empty ? __builtin_ctz(empty) : old ? __builtin_ctz(old) : 0;
	bool dirty = t[w] && (f[w] & MC_DIRTY);

	if (dirty && victim)
		*victim = (uint64_t)(t[w] - 1) * l->sets + r->index;
	flags &= ~MC_PENDING;
	if (ready > 0) {	/* 0: arrived long ago, nothing to keep */
		flags |= MC_PENDING;
		ready_of(l, r->set)[w] = ready;
	}
	t[w] = r->tag;
	f[w] = flags;
	touch(l, r->set, w);
	return dirty;
}

bool mc_lookup_at(struct mc_level *l, uint64_t line, uint8_t set_flags,
		  double settled, double *ready, uint8_t *flags)
{
	struct mc_ref r;
	uint8_t f;

	mc_find(l, line, &r);
	if (r.way < 0)
		return false;
	f = mc_use(l, &r, set_flags, 0, settled, ready);
	if (flags)
		*flags = f;
	return true;
}

bool mc_lookup(struct mc_level *l, uint64_t line, uint8_t set_flags,
	       double *ready, uint8_t *flags)
{
	return mc_lookup_at(l, line, set_flags, -1.0 / 0.0, ready, flags);
}

bool mc_take(struct mc_level *l, uint64_t line, uint8_t flags, double *ready)
{
	struct mc_ref r;
	uint8_t *f;

	mc_find(l, line, &r);
	if (r.way < 0)
		return false;
	f = &flags_of(l, r.set)[r.way];
	if ((*f & flags) != flags)
		return false;
	if (ready)
		*ready = *f & MC_PENDING ? ready_of(l, r.set)[r.way] : 0;
	mc_drop(l, &r);
	return true;
}

uint8_t mc_clear(struct mc_level *l, const struct mc_ref *r, uint8_t flags)
{
	uint8_t *f = &flags_of(l, r->set)[r->way], old = *f;

	*f = old & ~(flags & ~MC_PENDING);
	return old & ~MC_PENDING;
}

bool mc_contains(const struct mc_level *l, uint64_t line)
{
	struct mc_ref r;

	mc_find(l, line, &r);
	return r.way >= 0;
}

bool mc_insert(struct mc_level *l, uint64_t line, uint8_t flags, double ready,
	       uint64_t *victim)
{
	struct mc_ref r;

	mc_find(l, line, &r);
	return mc_put(l, &r, flags, ready, victim);
}

int mc_prefetch_observe(struct mc_prefetcher *p, uint64_t line,
			uint64_t *first, int *dir, int *stream)
{
	struct mc_stream *s = NULL;
	int i, lru = 0;
	int64_t end;

	if (p->distance <= 0)
		return 0;
	p->clock++;
	/* a stream goes on where it was: try the last one matched first */
	i = p->hot;
	if (p->s[i].stamp && p->s[i].dir && line == p->s[i].last + p->s[i].dir)
		goto found;
	for (i = 0; i < MC_STREAMS; i++) {
		struct mc_stream *c = &p->s[i];

		if (!c->stamp)
			continue;
		if (c->dir && line == c->last + c->dir)
			break;
		if (!c->dir && (line == c->last + 1 || line == c->last - 1)) {
			c->dir = line == c->last + 1 ? 1 : -1;
			c->next_pf = 0;
			break;
		}
	}
	if (i == MC_STREAMS) {
		/* a new stream replaces the least recently used one */
		for (i = 0; i < MC_STREAMS; i++) {
			if (!p->s[i].stamp) {
				lru = i;
				break;
			}
			if (p->s[i].stamp < p->s[lru].stamp)
				lru = i;
		}
		s = &p->s[lru];
		memset(s, 0, sizeof(*s));
		s->last = line;
		s->stamp = p->clock;
		return 0;
	}
found:
	p->hot = i;
	s = &p->s[i];
	s->last = line;
	s->stamp = p->clock;
	if (++s->conf < 2)
		return 0;
	/* keep [line + dir, line + dir * distance] requested */
	end = (int64_t)line + (int64_t)s->dir * p->distance;
	if (!s->next_pf || (s->dir > 0 ? s->next_pf <= line : s->next_pf >= line))
		s->next_pf = line + s->dir;
	*first = s->next_pf;
	*dir = s->dir;
	*stream = i;
	if (s->dir > 0)
		return end >= (int64_t)s->next_pf ? (int)(end - (int64_t)s->next_pf + 1) : 0;
	return (int64_t)s->next_pf >= end ? (int)((int64_t)s->next_pf - end + 1) : 0;
}

static bool stream_enters(const struct mc_stream *s, uint64_t from, uint64_t span)
{
	return s->stamp &&
	       (s->dir > 0 ? s->last + 1 == from : s->dir < 0 && s->last == from + span);
}

bool mc_prefetch_entering(const struct mc_prefetcher *p, uint64_t from,
			  uint64_t span)
{
	for (int i = 0; i < MC_STREAMS; i++)
		if (stream_enters(&p->s[i], from, span))
			return true;
	return false;
}

void mc_prefetch_move(struct mc_prefetcher *p, uint64_t from, uint64_t to,
		      uint64_t span, uint64_t up, uint64_t down)
{
	for (int i = 0; i < MC_STREAMS; i++) {
		struct mc_stream *s = &p->s[i];

		if (!stream_enters(s, from, span))
			continue;
		s->last = s->dir > 0 ? to - 1 : to + span;
		/* 0: start again after the next line the core asks for */
		s->next_pf = s->dir > 0 ? (up ? to + up : 0)
				       : (down ? to + span - 1 - down : 0);
	}
}

void mc_prefetch_forget(struct mc_prefetcher *p, uint64_t from, uint64_t span)
{
	for (int i = 0; i < MC_STREAMS; i++)
		if (stream_enters(&p->s[i], from, span))
			memset(&p->s[i], 0, sizeof(p->s[i]));
}

void mc_prefetch_issued(struct mc_prefetcher *p, int stream, uint64_t next)
{
	p->s[stream].next_pf = next;
}
