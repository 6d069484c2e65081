/* SPDX-License-Identifier: MIT */
/*
 * Access-stream lookahead. The workload declares the order it will touch
 * blocks in (layer order, KV block order per session, optimizer chunks);
 * the runtime follows it with a cursor, prefetches the next W distinct
 * blocks, and asks it how soon a block is needed again (for eviction).
 * When the real access is not the predicted one the cursor tries to
 * re-synchronise a short way ahead; otherwise it stays put and the access
 * is served by demand fetch.
 */
#ifndef RT_LOOKAHEAD_H
#define RT_LOOKAHEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RT_NO_USE SIZE_MAX

struct rt_stream {
	const uint32_t *ids;
	size_t len;
	size_t pos;		/* index of the next expected access */
	bool cyclic;		/* wraps at the end (repeated sweeps) */
	/* Optional index (finite streams): next[i] is the next position of
	 * ids[i] after i, cur[id] the first position >= pos holding id. It
	 * makes next-use and window queries O(1) per block instead of a scan,
	 * which matters with hundreds of slots. */
	size_t *next, *cur;
	uint32_t nids;
	/*
	 * The front (indexed streams): every entry in [pos, front) was found
	 * with its block in place, and @front_ids distinct ids lie there. The
	 * prefetch window walks it forward instead of looking the whole
	 * window up again at every access (rt_front_*).
	 */
	size_t front, front_ids;
};

enum rt_follow { RT_FOLLOW_HIT, RT_FOLLOW_RESYNC, RT_FOLLOW_DEVIATE };

void rt_stream_init(struct rt_stream *s, const uint32_t *ids, size_t len,
		    bool cyclic);
/* Build the index for a finite stream; 0, or -1 (then queries scan). */
int rt_stream_index(struct rt_stream *s);
void rt_stream_fini(struct rt_stream *s);
/* Record that @id was accessed; look up to @resync entries ahead for it. */
enum rt_follow rt_stream_follow(struct rt_stream *s, uint32_t id,
				size_t resync);
/* Up to @window distinct block ids from the cursor on, in order. Returns
 * how many were written to @out (which holds @window entries). */
size_t rt_lookahead(const struct rt_stream *s, size_t window, uint32_t *out);
/*
 * The entry at the front, while fewer than @window distinct ids lie
 * before it: true with its id in *id. False past the end, when the window
 * is full, or for a stream without an index (use rt_lookahead).
 */
bool rt_front_next(const struct rt_stream *s, size_t window, uint32_t *id);
/* The entry at the front has its block in place: step over it. */
void rt_front_pass(struct rt_stream *s);
/* Block @id left its place: the front goes back to its next use. */
void rt_front_pull(struct rt_stream *s, uint32_t id);
/* Distance from the cursor to the next use of @id within @horizon
 * entries, or RT_NO_USE. */
size_t rt_next_use(const struct rt_stream *s, uint32_t id, size_t horizon);

#endif
