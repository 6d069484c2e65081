/* SPDX-License-Identifier: MIT */
/* Access-stream lookahead: window, wrap, re-sync, next use. */
#include <string.h>

#include "lookahead.h"
#include "tap.h"

/* The distinct ids between @s's cursor and its front, in order. */
static size_t front_ids(const struct rt_stream *s, uint32_t *out)
{
	size_t n = 0;

	for (size_t i = s->pos; i < s->front; i++)
		if (s->cur[s->ids[i]] == i)
			out[n++] = s->ids[i];
	return n;
}

int main(void)
{
	static const uint32_t layers[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	static const uint32_t kv[] = { 10, 11, 12, 10, 11, 12, 20, 21 };
	struct rt_stream s;
	uint32_t w[8];
	size_t n;

	plan(19);

	rt_stream_init(&s, layers, 8, false);
	is_int(rt_stream_follow(&s, 0, 4), RT_FOLLOW_HIT, "first access is the predicted one");
	n = rt_lookahead(&s, 3, w);
	ok(n == 3 && w[0] == 1 && w[1] == 2 && w[2] == 3,
	   "window 3 after layer 0 is exactly layers 1, 2, 3");
	s.pos = 6;
	n = rt_lookahead(&s, 4, w);
	ok(n == 2 && w[0] == 6 && w[1] == 7, "a finite stream's window stops at its end");

	rt_stream_init(&s, layers, 8, true);
	s.pos = 6;
	n = rt_lookahead(&s, 4, w);
	ok(n == 4 && w[0] == 6 && w[1] == 7 && w[2] == 0 && w[3] == 1,
	   "a cyclic stream wraps into the next sweep");
	n = rt_lookahead(&s, 8, w);
	is_int(n, 8, "a cyclic window never repeats a block (one lap)");

	rt_stream_init(&s, kv, 8, false);
	n = rt_lookahead(&s, 4, w);
	ok(n == 4 && w[0] == 10 && w[1] == 11 && w[2] == 12 && w[3] == 20,
	   "window holds distinct blocks: repeated KV pages counted once");

	rt_stream_init(&s, layers, 8, false);
	is_int(rt_stream_follow(&s, 2, 4), RT_FOLLOW_RESYNC, "skipping ahead re-syncs");
	is_int(s.pos, 3, "cursor moved past the re-synced access");
	is_int(rt_stream_follow(&s, 0, 4), RT_FOLLOW_DEVIATE, "going backwards is a deviation");
	is_int(s.pos, 3, "a deviation leaves the cursor where it was");

	rt_stream_init(&s, kv, 8, false);
	s.pos = 1;
	is_int(rt_next_use(&s, 10, 16), 2, "next use of page 10 is 2 accesses away");
	is_int(rt_next_use(&s, 20, 3), (long long)RT_NO_USE, "beyond the horizon is no use");

	/* The next-use index must answer exactly like the scan. */
	{
		static const uint32_t mix[] = { 3, 1, 3, 2, 1, 1, 4, 3, 2, 0 };
		struct rt_stream a, b;
		uint32_t wa[6], wb[6], fid;
		int same_nu = 1, same_w = 1, same_front = 1, same_pulled = 1;

		rt_stream_init(&a, mix, 10, false);
		rt_stream_init(&b, mix, 10, false);
		is_int(rt_stream_index(&b), 0, "index builds for a finite stream");
		for (size_t k = 0; k < 10; k++) {
			size_t na = rt_lookahead(&a, 4, wa), nb = rt_lookahead(&b, 4, wb);

			same_w &= na == nb && !memcmp(wa, wb, na * sizeof(*wa));
			/* the front, every block in place, holds the same window */
			while (rt_front_next(&b, 4, &fid))
				rt_front_pass(&b);
			same_front &= front_ids(&b, wb) == na && b.front_ids == na && !memcmp(wa, wb, na * sizeof(*wa));
			if (na > 1) {	/* the window's second block went home */
				rt_front_pull(&b, wa[1]);
				same_pulled &= b.front == b.cur[wa[1]];
				while (rt_front_next(&b, 4, &fid))
					rt_front_pass(&b);
				same_pulled &= front_ids(&b, wb) == na && b.front_ids == na;
			}
			for (uint32_t id = 0; id < 6; id++)
				same_nu &= rt_next_use(&a, id, 5) == rt_next_use(&b, id, 5);
			/* Skip one entry now and then to exercise re-sync. */
			if (k == 3) {
				rt_stream_follow(&a, mix[k + 1], 4);
				rt_stream_follow(&b, mix[k + 1], 4);
				k++;
			} else {
				rt_stream_follow(&a, mix[k], 4);
				rt_stream_follow(&b, mix[k], 4);
			}
		}
		ok(same_w, "indexed window equals scanned window at every step");
		ok(same_nu, "indexed next use equals scanned next use (horizon 5)");
		ok(same_front, "the front walked forward holds the scanned window at every step");
		ok(same_pulled, "a block gone home pulls the front back to its next use");
		is_int(b.pos, 10, "both cursors reach the end");
		rt_stream_fini(&b);
		rt_stream_init(&b, layers, 8, true);
		ok(rt_stream_index(&b) != 0, "cyclic streams are not indexed (they scan)");
	}
	return done_testing();
}
