/* SPDX-License-Identifier: MIT */
/*
 * GUPS-style random updates: table[r mod N] ^= r for a stream of random
 * 64-bit r, over a table of N words. Every word is as likely as any
 * other, so there is no hot set: whichever quarter of the table is local,
 * the same share of updates hits it, and moving pages only costs. The
 * case where tiering cannot help.
 *
 * libcxlpool: the table is managed memory; one update in 16 is given as a
 * hint. The classifier finds no page hotter than another beyond sampling
 * noise and moves nothing.
 *
 * Check: the same updates applied again (XOR undoes them) must give back
 * table[i] = i everywhere.
 */
#include <stdlib.h>

#include "pw.h"

static uint64_t next(uint64_t x)
{
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

int wl_gups(struct pw *w)
{
	size_t words = w->o.scale ? w->o.scale : 2048 * 1024;
	int steps = w->o.steps ? w->o.steps : 2;
	size_t per_step = words / 2, bad = 0;
	uint64_t *t, r = 0x123456789ABCDEFull;

	if (words & (words - 1))
		return pw_fail(w, "--scale (words) must be a power of two"), -1;
	w->data_bytes = words * sizeof(*t);
	w->local_limit = (size_t)(w->o.local_fraction * (double)w->data_bytes);
	pw_limit(w);
	if (w->policy == PW_LIBCXLPOOL) {
		t = cxlpool_alloc(w->pool, w->data_bytes, CXLPOOL_MANAGED);
		if (t)
			pw_track(w, t, w->data_bytes);
	} else {
		t = pw_data(w, w->data_bytes);
	}
	if (!t)
		return pw_fail(w, "cannot place the table: %s", cxlpool_error()), -1;
	for (size_t i = 0; i < words; i++)
		t[i] = i;

	pw_begin(w);
	for (int st = 0; st < steps; st++) {
		for (size_t k = 0; k < per_step; k++) {
			uint64_t *word;

			r = next(r);
			word = &t[r & (words - 1)];
			*word ^= r;
			pw_touch(w, word, sizeof(*word));
			if (w->pool && !(k & 15))
				cxlpool_hint(w->pool, word, sizeof(*word), 16);
		}
		pw_step(w);
	}
	pw_end(w);

	r = 0x123456789ABCDEFull;
	for (size_t k = 0; k < (size_t)steps * per_step; k++) {
		r = next(r);
		t[r & (words - 1)] ^= r;
	}
	for (size_t i = 0; i < words; i++)
		bad += t[i] != i;
	w->checksum = (double)bad;
	pw_verify(w, bad == 0,
		 "updates applied twice: %zu of %zu words differ from their start value",
		 bad, words);
	pw_field(w, "\"words\":%zu,\"updates\":%zu", words, (size_t)steps * per_step);
	return 0;
}
