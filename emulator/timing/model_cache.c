// SPDX-License-Identifier: MIT
#include "model_cache.h"

#include <stdlib.h>
#include <string.h>

bool mc_level_init(struct mc_level *l, uint64_t bytes, uint32_t ways,
		   uint32_t line_bytes)
{
	uint64_t lines;

	memset(l, 0, sizeof(*l));
	if (!ways || !line_bytes || bytes < (uint64_t)ways * line_bytes)
		return false;
	lines = bytes / line_bytes;
	l->ways = ways;
	l->sets = lines / ways;
	if (!(l->sets & (l->sets - 1))) {
		l->set_mask = l->sets - 1;
		while ((1u << l->set_shift) < l->sets)
			l->set_shift++;
	}
	lines = (uint64_t)l->sets * ways;
	/*
	 * Sets of 16 ways are 128 bytes: aligned, each is one pair of host
	 * lines (fetched together by adjacent-line prefetchers), never three.
	 */
	l->way = aligned_alloc(128, (lines * sizeof(*l->way) + 127) & ~127ull);
	if (l->way)
		memset(l->way, 0, lines * sizeof(*l->way));
	l->ready = calloc(lines, sizeof(*l->ready));
	if (!l->way || !l->ready) {
		mc_level_free(l);
		return false;
	}
	return true;
}

void mc_level_free(struct mc_level *l)
{
	free(l->way);
	free(l->ready);
	memset(l, 0, sizeof(*l));
}

/* Where @line lives: its set's first way, and the tag it carries there. */
static inline uint64_t *set_of(const struct mc_level *l, uint64_t line,
			       uint64_t *tag)
{
	uint64_t set, q;

	if (l->set_mask) {
		set = line & l->set_mask;
		q = line >> l->set_shift;
	} else {
		set = line % l->sets;
		q = line / l->sets;
	}
	*tag = (q + 1) & MC_TAG_MASK;
	return &l->way[set * l->ways];
}

static inline int find_way(const struct mc_level *l, const uint64_t *ways,
			   uint64_t tag)
{
	for (uint32_t w = 0; w < l->ways; w++)
		if ((ways[w] & MC_TAG_MASK) == tag)
			return (int)w;
	return -1;
}

/*
 * A fresh LRU stamp. When stamps reach the top of their field, halve them
 * all: the order is kept (neighbours may tie), the field is free again.
 */
static inline uint64_t next_stamp(struct mc_level *l)
{
	if (++l->clock > MC_STAMP_MAX) {
		uint64_t n = (uint64_t)l->sets * l->ways;
		const uint64_t field = (uint64_t)MC_STAMP_MAX << MC_STAMP_SHIFT;

		for (uint64_t i = 0; i < n; i++) {
			uint64_t st = (l->way[i] & field) >> 1 & field;

			l->way[i] = (l->way[i] & ~field) | st;
		}
		l->clock = (MC_STAMP_MAX >> 1) + 1;
	}
	return (uint64_t)l->clock << MC_STAMP_SHIFT;
}

static inline void touch(struct mc_level *l, uint64_t *w)
{
	const uint64_t field = (uint64_t)MC_STAMP_MAX << MC_STAMP_SHIFT;

	*w = (*w & ~field) | next_stamp(l);
}

bool mc_lookup_at(struct mc_level *l, uint64_t line, uint8_t set_flags,
		  double settled, double *ready, uint8_t *flags)
{
	uint64_t tag, *ways = set_of(l, line, &tag);
	int w = find_way(l, ways, tag);
	uint64_t *way;

	if (w < 0) {
		l->misses++;
		return false;
	}
	l->hits++;
	way = &ways[w];
	touch(l, way);
	if (flags)
		*flags = (*way >> MC_FLAG_SHIFT) & ~MC_PENDING;
	if (ready) {
		*ready = 0;
		if (*way & ((uint64_t)MC_PENDING << MC_FLAG_SHIFT)) {
			*ready = l->ready[way - l->way];
			if (*ready <= settled)
				*way &= ~((uint64_t)MC_PENDING << MC_FLAG_SHIFT);
		}
	}
	*way |= (uint64_t)set_flags << MC_FLAG_SHIFT;
	return true;
}

bool mc_lookup(struct mc_level *l, uint64_t line, uint8_t set_flags,
	       double *ready, uint8_t *flags)
{
	return mc_lookup_at(l, line, set_flags, -1.0 / 0.0, ready, flags);
}

void mc_clear_flags(struct mc_level *l, uint64_t line, uint8_t flags)
{
	uint64_t tag, *ways = set_of(l, line, &tag);
	int w = find_way(l, ways, tag);

	if (w >= 0)
		ways[w] &= ~((uint64_t)flags << MC_FLAG_SHIFT);
}

bool mc_contains(const struct mc_level *l, uint64_t line)
{
	uint64_t tag, *ways = set_of(l, line, &tag);

	return find_way(l, ways, tag) >= 0;
}

bool mc_insert(struct mc_level *l, uint64_t line, uint8_t flags, double ready,
	       uint64_t *victim)
{
	uint64_t tag, *ways = set_of(l, line, &tag);
	uint64_t set = (ways - l->way) / l->ways;
	uint32_t lru = 0;
	uint64_t oldest = UINT64_MAX;
	bool dirty;

	/* stamps sit above the tag: comparing whole words orders by stamp */
	for (uint32_t w = 0; w < l->ways; w++) {
		uint64_t key = ways[w] << 8;

		if (!(ways[w] & MC_TAG_MASK)) {
			lru = w;
			break;
		}
		if (key < oldest) {
			oldest = key;
			lru = w;
		}
	}
	dirty = (ways[lru] >> MC_FLAG_SHIFT) & MC_DIRTY;
	if (dirty && victim)
		*victim = ((ways[lru] & MC_TAG_MASK) - 1) * l->sets + set;
	flags &= ~MC_PENDING;
	if (ready > 0) {	/* 0: arrived long ago, nothing to keep */
		flags |= MC_PENDING;
		l->ready[set * l->ways + lru] = ready;
	}
	ways[lru] = tag | (uint64_t)flags << MC_FLAG_SHIFT;
	touch(l, &ways[lru]);
	return dirty;
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

void mc_prefetch_issued(struct mc_prefetcher *p, int stream, uint64_t next)
{
	p->s[stream].next_pf = next;
}
