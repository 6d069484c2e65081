// SPDX-License-Identifier: MIT
/*
 * Stale reads of memory two hosts share without coherence
 * (model_stale.h): the right protocol (the writer flushes what it wrote,
 * the reader invalidates before it reads) reads fresh every time, polls
 * included; a reader that skips the invalidate reads its old copy, a
 * writer that skips the flush leaves the reader memory's old line; a
 * host's own writes read back fresh; out-of-range lines are not tracked.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "tap.h"
#include "model_stale.h"

#define W 0	/* the writing host (prefill) */
#define R 1	/* the reading host (decode) */
#define LINES 64

static struct sr_table *fresh(void)
{
	struct sr_table *s = calloc(1, sizeof(*s));

	if (!s)
		abort();
	return s;
}

/* The writer's side of a block: stores, then (@flush) flushes each line. */
static void write_block(struct sr_table *s, uint64_t first, bool flush)
{
	for (uint64_t l = first; l < first + LINES; l++)
		sr_store(s, l, W);
	for (uint64_t l = first; flush && l < first + LINES; l++)
		sr_flush(s, l, W);
}

/* The reader's: (@inval) invalidates each line, then loads it; how many
 * loads were of kind @k. */
static int read_block(struct sr_table *s, uint64_t first, bool inval,
		      enum sr_kind k)
{
	int n = 0;

	for (uint64_t l = first; l < first + LINES; l++) {
		if (inval)
			sr_flush(s, l, R);
		n += sr_load(s, l, R) == k;
	}
	return n;
}

int main(void)
{
	struct sr_table *s = fresh();
	struct sr_event e = { .line = 7, .host = R, .writer = W, .roi = -1 };
	int fresh_n = 0;

	plan(11);

	/* the right protocol, the block rewritten between reads */
	write_block(s, 0, true);
	fresh_n += read_block(s, 0, true, SR_FRESH);
	write_block(s, 0, true);
	fresh_n += read_block(s, 0, true, SR_FRESH);
	ok(fresh_n == 2 * LINES && !s->stale[R][SR_NOT_INVALIDATED] &&
	   !s->stale[R][SR_NOT_FLUSHED], "flush + invalidate: every read fresh");

	/* a poll: invalidate before each look, the writer sets the flag */
	sr_flush(s, 1000, R);
	ok(sr_load(s, 1000, R) == SR_FRESH, "poll before the flag is set: fresh");
	sr_store(s, 1000, W);
	sr_flush(s, 1000, W);
	sr_flush(s, 1000, R);
	ok(sr_load(s, 1000, R) == SR_FRESH, "poll after it, invalidated: fresh");

	/* the reader skips the invalidate */
	write_block(s, 100, true);
	read_block(s, 100, true, SR_FRESH);	/* cached now */
	write_block(s, 100, true);		/* rewritten by the other host */
	ok(read_block(s, 100, false, SR_NOT_INVALIDATED) == LINES,
	   "no invalidate: every line of the rewritten block stale");
	ok(read_block(s, 100, false, SR_NOT_INVALIDATED) == LINES,
	   "... and again on the next read (still the old copy)");
	ok(read_block(s, 100, true, SR_FRESH) == LINES,
	   "invalidating at last reads fresh");

	/* the writer skips the flush */
	write_block(s, 200, false);
	ok(read_block(s, 200, true, SR_NOT_FLUSHED) == LINES &&
	   s->stale[R][SR_NOT_FLUSHED] == LINES,
	   "no flush: the reader fetches memory's old lines");

	/* own writes read back fresh, without flushing */
	for (uint64_t l = 300; l < 300 + LINES; l++) {
		sr_store(s, l, R);
		fresh_n += sr_load(s, l, R) == SR_FRESH;
	}
	ok(fresh_n == 3 * LINES && sr_load(s, SR_LINES, R) == SR_FRESH &&
	   sr_load(s, 0, SR_HOSTS) == SR_FRESH,
	   "own writes fresh; lines and hosts past the table untracked");

	for (int i = 0; i < SR_LOG + 3; i++)
		sr_log(s, &e);
	ok(s->nlog[R] == SR_LOG + 3 && s->log[R][SR_LOG - 1].line == 7 &&
	   s->nlog[W] == 0,
	   "the log keeps the host's first %d events and counts all", SR_LOG);
	sr_log_restart(s, R);
	e.line = 8;
	sr_log(s, &e);
	/* it holds memory's old copy: the writer's missing write-back again */
	ok(sr_load(s, 200, R) == SR_NOT_FLUSHED, "reading the copy fetched unflushed again: not flushed");
	ok(s->nlog[R] == 1 && s->log[R][0].line == 8 &&
	   s->stale_at_start[R][SR_NOT_FLUSHED] == LINES &&
	   s->stale[R][SR_NOT_FLUSHED] - s->stale_at_start[R][SR_NOT_FLUSHED] == 1 &&
	   s->stale[R][SR_NOT_INVALIDATED] == s->stale_at_start[R][SR_NOT_INVALIDATED],
	   "a new program's first event is kept again; its counts: from the host's then");
	free(s);
	return tap_failed ? 1 : 0;
}
