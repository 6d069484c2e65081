/* SPDX-License-Identifier: MIT */
/*
 * KV-cache offload: S sessions decoding one token per step. A session's
 * KV cache is paged: blocks of BT tokens, each block K[BT][HD] then
 * V[BT][HD] (16 KiB). Each step appends the new token's K and V to the
 * session's last block (a new block when it is full) and runs attention
 * for G query heads that share the KV head (grouped-query attention), one
 * head at a time over the session's blocks in order: each KV byte is read
 * G times per step, and a session's blocks exceed the last-level cache.
 *
 * libcxlpool: blocks live on the far tier and stream through fast slots
 * in the order the serving loop declares (known a step ahead: the block
 * tables); the block being appended to is written back when evicted.
 *
 * Check: session 0's attention output at the last step against a double
 * recomputation from the K/V formula (not from memory).
 */
#include <emmintrin.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pw.h"

#define S 8		/* sessions */
#define HD 64		/* head dimension */
#define G 4		/* query heads per KV head */
#define BT 32		/* tokens per block */
#define BLOCK (2 * BT * HD * sizeof(float))

static float kval(int s, int tok, int i)
{
	return (float)((tok * 7 + i * 13 + s * 3) % 17 - 8) / 16.0f;
}

static float vval(int s, int tok, int i)
{
	return (float)((tok * 5 + i * 11 + s * 7) % 19 - 9) / 16.0f;
}

static float qval(int s, int step, int h, int i)
{
	return (float)((i * 3 + h * 5 + s + step) % 13 - 6) / 8.0f;
}

static void write_token(float *blk, int slot, int s, int tok)
{
	for (int i = 0; i < HD; i++) {
		blk[slot * HD + i] = kval(s, tok, i);
		blk[BT * HD + slot * HD + i] = vval(s, tok, i);
	}
}

static float dot64(const float *a, const float *b)
{
	__m128 s0 = _mm_setzero_ps(), s1 = s0;
	float r[4];

	for (int j = 0; j < HD; j += 8) {
		s0 = _mm_add_ps(s0, _mm_mul_ps(_mm_loadu_ps(a + j), _mm_loadu_ps(b + j)));
		s1 = _mm_add_ps(s1, _mm_mul_ps(_mm_loadu_ps(a + j + 4), _mm_loadu_ps(b + j + 4)));
	}
	_mm_storeu_ps(r, _mm_add_ps(s0, s1));
	return (r[0] + r[1]) + (r[2] + r[3]);
}

/* Online-softmax attention state of one head. */
struct head {
	float m, l, acc[HD];
};

static void attend_block(struct head *h, const float *q, const float *blk, int n)
{
	const float scale = 0.125f;	/* 1 / sqrt(HD) */

	for (int t = 0; t < n; t++) {
		float sc = dot64(q, blk + t * HD) * scale, mn, a, b;
		const float *v = blk + BT * HD + t * HD;

		mn = sc > h->m ? sc : h->m;
		a = expf(h->m - mn);
		b = expf(sc - mn);
		for (int i = 0; i < HD; i++)
			h->acc[i] = h->acc[i] * a + v[i] * b;
		h->l = h->l * a + b;
		h->m = mn;
	}
}

/* Session @s's head-@h output at step @step (context @ctx), in double. */
static double reference_error(const float *out, int s, int step, int ctx)
{
	double q[HD], m = -1e300, l = 0, acc[HD] = { 0 }, err = 0;

	for (int i = 0; i < HD; i++)
		q[i] = qval(s, step, 0, i);
	for (int tok = 0; tok < ctx; tok++) {
		double sc = 0, mn, a, b;

		for (int i = 0; i < HD; i++)
			sc += q[i] * kval(s, tok, i);
		sc *= 0.125;
		mn = sc > m ? sc : m;
		a = exp(m - mn);
		b = exp(sc - mn);
		for (int i = 0; i < HD; i++)
			acc[i] = acc[i] * a + vval(s, tok, i) * b;
		l = l * a + b;
		m = mn;
	}
	for (int i = 0; i < HD; i++)
		if (fabs(acc[i] / l - out[i]) > err)
			err = fabs(acc[i] / l - out[i]);
	return err;
}

int wl_kv(struct pw *w)
{
	int steps = w->o.steps ? w->o.steps : 8;
	/*
	 * 2000 tokens: a session's KV (1 MiB) exceeds pool-tier's 512 KiB
	 * last level, so each head's pass reads it from memory again (at 992,
	 * 496 KiB, the heads after the first mostly hit the LLC and the far
	 * tier cost first-touch only 1.27x all-local).
	 */
	int ctx0 = w->o.scale ? (int)w->o.scale : 2000;
	int maxb = (ctx0 + steps + BT - 1) / BT, nb[S];
	float **blk, *q, *out;	/* blk[s * maxb + b]: session s's block b */
	struct cxlpool_stream *str = NULL;
	uint32_t *order = NULL, *id;
	size_t norder = 0;
	double sum = 0, err;

	if (ctx0 < 1 || ctx0 > 1 << 20)
		return pw_fail(w, "--scale (tokens a session) must be 1 to %d", 1 << 20), -1;
	w->data_bytes = (size_t)S * maxb * BLOCK;
	w->local_limit = (size_t)(w->o.local_fraction * (double)w->data_bytes);
	q = pw_aux(w, G * HD * sizeof(float));
	out = pw_aux(w, (size_t)S * G * HD * sizeof(float));
	order = pw_aux(w, (size_t)steps * S * (G * maxb + 1) * sizeof(*order));
	blk = pw_aux(w, (size_t)S * maxb * sizeof(*blk));
	id = pw_aux(w, (size_t)S * maxb * sizeof(*id));
	if (!order || !blk || !id)
		return pw_fail(w, "cannot place the block tables on the fast node"), -1;
	pw_limit(w);
	/* Prefill, session after session. The blocks a session will grow
	 * into are reserved with it (their tokens come later). */
	for (int s = 0; s < S; s++) {
		nb[s] = (ctx0 + BT - 1) / BT;
		for (int b = 0; b < maxb; b++) {
			blk[s * maxb + b] = pw_data(w, BLOCK);
			if (!blk[s * maxb + b])
				return pw_fail(w, "cannot place a KV block"), -1;
			for (int t = 0; t < BT && b * BT + t < ctx0; t++)
				write_token(blk[s * maxb + b], t, s, b * BT + t);
		}
	}
	if (w->policy == PW_LIBCXLPOOL) {
		int slots = (int)(w->local_limit / BLOCK);

		str = cxlpool_stream_open(w->pool, BLOCK, slots, slots / 2);
		if (!str)
			return pw_fail(w, "stream: %s", cxlpool_error()), -1;
		for (int s = 0; s < S; s++)
			for (int b = 0; b < maxb; b++)
				id[s * maxb + b] = (uint32_t)cxlpool_stream_block(str, blk[s * maxb + b], BLOCK);
		for (int st = 0; st < steps; st++)
			for (int s = 0; s < S; s++) {
				int ctx = ctx0 + st + 1, n = (ctx + BT - 1) / BT;

				order[norder++] = id[s * maxb + (ctx - 1) / BT];	/* append */
				for (int h = 0; h < G; h++)
					for (int b = 0; b < n; b++)
						order[norder++] = id[s * maxb + b];
			}
		cxlpool_stream_order(str, order, norder, false);
		w->counts_itself = true;
		pw_field(w, "\"slots\":%d", slots);
	}

	pw_begin(w);
	for (int st = 0; st < steps; st++) {
		for (int s = 0; s < S; s++) {
			int tok = ctx0 + st, ctx = tok + 1, lb = tok / BT, n = (ctx + BT - 1) / BT;
			float *last;

			if (lb >= nb[s])
				nb[s] = lb + 1;
			last = str ? cxlpool_stream_get(str, id[s * maxb + lb]) : blk[s * maxb + lb];
			write_token(last, tok % BT, s, tok);
			if (str)
				cxlpool_stream_put(str, id[s * maxb + lb], true);
			for (int h = 0; h < G; h++)
				for (int i = 0; i < HD; i++)
					q[h * HD + i] = qval(s, st, h, i);
			for (int h = 0; h < G; h++) {
				struct head hs = { .m = -INFINITY };

				for (int b = 0; b < n; b++) {
					int cnt = b == n - 1 ? ctx - b * BT : BT;
					const float *kb = str ? cxlpool_stream_get(str, id[s * maxb + b]) :
								blk[s * maxb + b];

					attend_block(&hs, q + h * HD, kb, cnt);
					if (str)
						cxlpool_stream_put(str, id[s * maxb + b], false);
					else
						pw_touch(w, kb, BLOCK);
				}
				for (int i = 0; i < HD; i++)
					out[(s * G + h) * HD + i] = hs.acc[i] / hs.l;
			}
		}
		pw_step(w);
	}
	pw_end(w);

	for (int k = 0; k < S * G * HD; k++)
		sum += out[k];
	w->checksum = sum;
	err = reference_error(out, 0, steps - 1, ctx0 + steps);
	pw_verify(w, err < 1e-4,
		 "session 0 head 0 at step %d vs a double-precision recomputation: max error %.2e",
		 steps, err);
	pw_field(w, "\"sessions\":%d,\"heads\":%d,\"head_dim\":%d,\"block_bytes\":%zu,"
		 "\"context\":%d,\"steps\":%d", S, G, HD, BLOCK, ctx0 + steps, steps);
	if (str)
		cxlpool_stream_close(str);
	return 0;
}
