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
	if (!(l->sets & (l->sets - 1)))
		l->set_mask = l->sets - 1;
	lines = (uint64_t)l->sets * ways;
	l->tag = calloc(lines, sizeof(*l->tag));
	l->meta = calloc(lines, sizeof(*l->meta));
	if (!l->tag || !l->meta) {
		mc_level_free(l);
		return false;
	}
	return true;
}

void mc_level_free(struct mc_level *l)
{
	free(l->tag);
	free(l->meta);
	memset(l, 0, sizeof(*l));
}

static inline uint64_t set_base(const struct mc_level *l, uint64_t line)
{
	uint64_t set = l->set_mask ? (line & l->set_mask) : (line % l->sets);

	return set * l->ways;
}

static inline int find_way(const struct mc_level *l, uint64_t base,
			   uint64_t line)
{
	for (uint32_t w = 0; w < l->ways; w++)
		if ((l->tag[base + w] & MC_LINE_MASK) == line + 1)
			return (int)w;
	return -1;
}

bool mc_lookup(struct mc_level *l, uint64_t line, uint8_t set_flags,
	       double *ready, uint8_t *flags)
{
	uint64_t base = set_base(l, line);
	int w = find_way(l, base, line);

	if (w < 0) {
		l->misses++;
		return false;
	}
	l->hits++;
	l->meta[base + w].stamp = ++l->clock;
	if (ready)
		*ready = l->meta[base + w].ready;
	if (flags)
		*flags = l->tag[base + w] >> MC_FLAG_SHIFT;
	l->tag[base + w] |= (uint64_t)set_flags << MC_FLAG_SHIFT;
	return true;
}

void mc_clear_flags(struct mc_level *l, uint64_t line, uint8_t flags)
{
	uint64_t base = set_base(l, line);
	int w = find_way(l, base, line);

	if (w >= 0)
		l->tag[base + w] &= ~((uint64_t)flags << MC_FLAG_SHIFT);
}

bool mc_contains(const struct mc_level *l, uint64_t line)
{
	return find_way(l, set_base(l, line), line) >= 0;
}

bool mc_insert(struct mc_level *l, uint64_t line, uint8_t flags, double ready,
	       uint64_t *victim)
{
	uint64_t base = set_base(l, line);
	uint32_t lru = 0;
	bool dirty;

	for (uint32_t w = 0; w < l->ways; w++) {
		if (!l->tag[base + w]) {
			lru = w;
			break;
		}
		if (l->meta[base + w].stamp < l->meta[base + lru].stamp)
			lru = w;
	}
	dirty = (l->tag[base + lru] >> MC_FLAG_SHIFT) & MC_DIRTY;
	if (dirty && victim)
		*victim = (l->tag[base + lru] & MC_LINE_MASK) - 1;
	l->tag[base + lru] = (line + 1) | (uint64_t)flags << MC_FLAG_SHIFT;
	l->meta[base + lru].stamp = ++l->clock;
	l->meta[base + lru].ready = ready;
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
