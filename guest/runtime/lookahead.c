/* SPDX-License-Identifier: MIT */
/* Following the declared access stream; see lookahead.h. */
#include <stdlib.h>

#include "lookahead.h"

void rt_stream_init(struct rt_stream *s, const uint32_t *ids, size_t len,
		    bool cyclic)
{
	s->ids = ids;
	s->len = len;
	s->pos = 0;
	s->cyclic = cyclic;
	s->next = s->cur = NULL;
	s->nids = 0;
	s->front = s->front_ids = 0;
}

int rt_stream_index(struct rt_stream *s)
{
	uint32_t max = 0;

	if (s->cyclic || !s->len)
		return -1;
	for (size_t i = 0; i < s->len; i++)
		if (s->ids[i] > max)
			max = s->ids[i];
	s->next = malloc(s->len * sizeof(*s->next));
	s->cur = malloc(((size_t)max + 1) * sizeof(*s->cur));
	if (!s->next || !s->cur) {
		rt_stream_fini(s);
		return -1;
	}
	s->nids = max + 1;
	for (uint32_t id = 0; id <= max; id++)
		s->cur[id] = RT_NO_USE;
	/* Walk backwards: cur[] ends up holding each id's first position. */
	for (size_t i = s->len; i-- > 0;) {
		s->next[i] = s->cur[s->ids[i]];
		s->cur[s->ids[i]] = i;
	}
	return 0;
}

void rt_stream_fini(struct rt_stream *s)
{
	free(s->next);
	free(s->cur);
	s->next = s->cur = NULL;
	s->nids = 0;
}

/* Entry @i positions after the cursor; false past a non-cyclic end. */
static bool at(const struct rt_stream *s, size_t i, uint32_t *id)
{
	size_t k = s->pos + i;

	if (!s->len)
		return false;
	if (k >= s->len) {
		if (!s->cyclic)
			return false;
		k %= s->len;
	}
	*id = s->ids[k];
	return true;
}

static void move(struct rt_stream *s, size_t by)
{
	/*
	 * Entries passed over are consumed: their ids' next use moves on. An
	 * id behind the front leaves the front's count unless it comes
	 * again before the front.
	 */
	for (size_t i = 0; s->cur && i < by && s->pos + i < s->len; i++) {
		size_t p = s->pos + i, nx = s->next[p];

		if (p < s->front && (nx == RT_NO_USE || nx >= s->front))
			s->front_ids--;
		s->cur[s->ids[p]] = nx;
	}
	s->pos += by;
	if (s->front < s->pos) {
		s->front = s->pos;
		s->front_ids = 0;
	}
	if (s->cyclic && s->len)
		s->pos %= s->len;
}

enum rt_follow rt_stream_follow(struct rt_stream *s, uint32_t id,
				size_t resync)
{
	uint32_t x;

	for (size_t i = 0; i <= resync && at(s, i, &x); i++) {
		if (x == id) {
			move(s, i + 1);
			return i ? RT_FOLLOW_RESYNC : RT_FOLLOW_HIT;
		}
	}
	return RT_FOLLOW_DEVIATE;
}

size_t rt_lookahead(const struct rt_stream *s, size_t window, uint32_t *out)
{
	size_t n = 0;
	uint32_t x;

	/* One lap at most, so a cyclic stream shorter than W terminates. */
	for (size_t i = 0; n < window && i < s->len && at(s, i, &x); i++) {
		bool seen = false;

		if (s->cur)	/* first occurrence from the cursor on? */
			seen = s->cur[x] != s->pos + i;
		for (size_t j = 0; !s->cur && j < n && !seen; j++)
			seen = out[j] == x;
		if (!seen)
			out[n++] = x;
	}
	return n;
}

bool rt_front_next(const struct rt_stream *s, size_t window, uint32_t *id)
{
	if (!s->cur || s->front_ids >= window || s->front >= s->len)
		return false;
	*id = s->ids[s->front];
	return true;
}

void rt_front_pass(struct rt_stream *s)
{
	if (s->cur[s->ids[s->front]] == s->front)	/* its first from the cursor */
		s->front_ids++;
	s->front++;
}

void rt_front_pull(struct rt_stream *s, uint32_t id)
{
	size_t p = s->cur && id < s->nids ? s->cur[id] : RT_NO_USE;

	if (p == RT_NO_USE || p >= s->front)
		return;
	s->front = p;
	s->front_ids = 0;
	for (size_t i = s->pos; i < p; i++)
		s->front_ids += s->cur[s->ids[i]] == i;
}

size_t rt_next_use(const struct rt_stream *s, uint32_t id, size_t horizon)
{
	uint32_t x;

	if (s->cur) {
		size_t p = id < s->nids ? s->cur[id] : RT_NO_USE;

		return p == RT_NO_USE || p - s->pos >= horizon ? RT_NO_USE : p - s->pos;
	}
	for (size_t i = 0; i < horizon && at(s, i, &x); i++)
		if (x == id)
			return i;
	return RT_NO_USE;
}
