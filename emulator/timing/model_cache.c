// SPDX-License-Identifier: MIT
#include "model_cache.h"

#include <stdlib.h>
#include <string.h>

static bool level_init(struct mc_level *l, uint64_t bytes, uint32_t ways,
		       uint32_t line_bytes, bool locked)
{
	uint64_t lines;
	uint32_t head;

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
	/* tags, flags, (a lock,) MRU bits, then the ready times; whole host lines */
	head = 5 * ways + sizeof(uint32_t) + (locked ? sizeof(int) : 0);
	l->ready_off = (head + 63) & ~63u;
	l->lock_off = locked ? l->ready_off - sizeof(uint32_t) - sizeof(int) : 0;
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

bool mc_level_init(struct mc_level *l, uint64_t bytes, uint32_t ways,
		   uint32_t line_bytes)
{
	return level_init(l, bytes, ways, line_bytes, false);
}

bool mc_level_init_locked(struct mc_level *l, uint64_t bytes, uint32_t ways,
			  uint32_t line_bytes)
{
	return level_init(l, bytes, ways, line_bytes, true);
}

void mc_level_free(struct mc_level *l)
{
	free(l->mem);
	memset(l, 0, sizeof(*l));
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
	return mc_put(l, &r, flags, ready, victim, NULL);
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
