/* SPDX-License-Identifier: MIT */
/*
 * Layer sweep: NL layers of D x D float weights, swept in order, each
 * layer applied to a batch of U tokens one token at a time (a matrix-vector
 * product per token: the layer is larger than the last-level cache, so
 * each token reads it again from memory). The weights are the data; the
 * token activations are small and local.
 *
 * libcxlpool: the weights live on the far tier and stream through fast
 * slots (budget / layer size of them, at least 2), the next layer fetched
 * on the helper CPU while this one computes.
 *
 * Check: the final activations against a scalar double-precision
 * recomputation of token 0 from the weight formula (not from memory).
 */
#include <emmintrin.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pw.h"

#define NL 8

static float weight(int l, int i, int j)
{
	return (float)((i * 131 + j * 31 + l * 17) % 255 - 127) / 1024.0f;
}

static void fill_layer(float *w, int l, int d)
{
	for (int i = 0; i < d; i++)
		for (int j = 0; j < d; j++)
			w[(size_t)i * d + j] = weight(l, i, j);
}

static float dot(const float *a, const float *b, int d)
{
	__m128 s0 = _mm_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
	float r[4];

	for (int j = 0; j < d; j += 16) {
		s0 = _mm_add_ps(s0, _mm_mul_ps(_mm_loadu_ps(a + j), _mm_loadu_ps(b + j)));
		s1 = _mm_add_ps(s1, _mm_mul_ps(_mm_loadu_ps(a + j + 4), _mm_loadu_ps(b + j + 4)));
		s2 = _mm_add_ps(s2, _mm_mul_ps(_mm_loadu_ps(a + j + 8), _mm_loadu_ps(b + j + 8)));
		s3 = _mm_add_ps(s3, _mm_mul_ps(_mm_loadu_ps(a + j + 12), _mm_loadu_ps(b + j + 12)));
	}
	_mm_storeu_ps(r, _mm_add_ps(_mm_add_ps(s0, s1), _mm_add_ps(s2, s3)));
	return (r[0] + r[1]) + (r[2] + r[3]);
}

/* y = W x, then x = y / max|y| (keeps the values bounded). */
static void apply(const float *w, float *x, float *y, int d)
{
	float m = 0;

	for (int i = 0; i < d; i++) {
		y[i] = dot(w + (size_t)i * d, x, d);
		if (fabsf(y[i]) > m)
			m = fabsf(y[i]);
	}
	m = m > 0 ? 1.0f / m : 1.0f;
	for (int i = 0; i < d; i++)
		x[i] = y[i] * m;
}

static void input(float *x, int t, int d)
{
	for (int j = 0; j < d; j++)
		x[j] = (float)((j * 7 + t * 3) % 11 - 5) / 8.0f;
}

/* Token 0 through every sweep, in double, weights from the formula. */
static double reference_error(const float *x0, int d, int sweeps)
{
	double *x = malloc(d * sizeof(double)), *y = malloc(d * sizeof(double));
	double err = 0;

	for (int j = 0; j < d; j++)
		x[j] = (double)((j * 7) % 11 - 5) / 8.0;
	for (int s = 0; s < sweeps; s++)
		for (int l = 0; l < NL; l++) {
			double m = 0;

			for (int i = 0; i < d; i++) {
				y[i] = 0;
				for (int j = 0; j < d; j++)
					y[i] += (double)weight(l, i, j) * x[j];
				if (fabs(y[i]) > m)
					m = fabs(y[i]);
			}
			for (int i = 0; i < d; i++)
				x[i] = m > 0 ? y[i] / m : y[i];
		}
	for (int j = 0; j < d; j++)
		if (fabs(x[j] - x0[j]) > err)
			err = fabs(x[j] - x0[j]);
	free(x);
	free(y);
	return err;
}

int wl_layers(struct pw *w)
{
	int d = w->o.scale ? (int)w->o.scale : 384, sweeps = w->o.steps ? w->o.steps : 6;
	int U = w->o.batch ? w->o.batch : 4;	/* tokens: compute per byte */
	size_t lbytes = (size_t)d * d * sizeof(float);
	float *wt[NL], *x, *y;
	struct cxlpool_stream *s = NULL;
	uint32_t *order = NULL;
	double sum = 0, err;

	if (d % 16)
		return pw_fail(w, "--scale (D) must be a multiple of 16"), -1;
	w->data_bytes = NL * lbytes;
	w->local_limit = (size_t)(w->o.local_fraction * (double)w->data_bytes);
	x = pw_aux(w, U * d * sizeof(float));
	y = pw_aux(w, d * sizeof(float));
	order = pw_aux(w, (size_t)sweeps * NL * sizeof(*order));
	pw_limit(w);
	for (int l = 0; l < NL; l++) {
		wt[l] = pw_data(w, lbytes);
		if (!wt[l])
			return pw_fail(w, "cannot place layer %d", l), -1;
		fill_layer(wt[l], l, d);
	}
	if (w->policy == PW_LIBCXLPOOL) {
		int slots = (int)(w->local_limit / ((lbytes + 4095) / 4096 * 4096));

		if (slots < 2)
			return pw_fail(w, "the local limit holds fewer than 2 layers"), -1;
		s = cxlpool_stream_open(w->pool, lbytes, slots, slots - 1);
		if (!s)
			return pw_fail(w, "stream: %s", cxlpool_error()), -1;
		for (int l = 0; l < NL; l++)
			cxlpool_stream_block(s, wt[l], lbytes);
		for (int k = 0; k < sweeps * NL; k++)
			order[k] = (uint32_t)(k % NL);
		cxlpool_stream_order(s, order, (size_t)sweeps * NL, false);
		w->counts_itself = true;
		pw_field(w, "\"slots\":%d", slots);
	}
	for (int t = 0; t < U; t++)
		input(x + t * d, t, d);

	pw_begin(w);
	for (int sw = 0; sw < sweeps; sw++) {
		for (int l = 0; l < NL; l++) {
			const float *lw = s ? cxlpool_stream_get(s, (uint32_t)l) : wt[l];

			for (int t = 0; t < U; t++)
				apply(lw, x + t * d, y, d);
			if (s)
				cxlpool_stream_put(s, (uint32_t)l, false);
			else
				pw_touch(w, wt[l], lbytes);
		}
		pw_step(w);
	}
	pw_end(w);

	for (int t = 0; t < U; t++)
		for (int j = 0; j < d; j++)
			sum += x[t * d + j];
	w->checksum = sum;
	err = reference_error(x, d, sweeps);
	pw_verify(w, err < 1e-3,
		 "token 0 after %d sweeps vs a double-precision recomputation: max error %.2e",
		 sweeps, err);
	pw_field(w, "\"layers\":%d,\"layer_bytes\":%zu,\"tokens\":%d,\"sweeps\":%d,"
		 "\"bytes_read\":%llu", NL, lbytes, U, sweeps,
		 (unsigned long long)sweeps * NL * U * lbytes);
	if (s)
		cxlpool_stream_close(s);
	return 0;
}
