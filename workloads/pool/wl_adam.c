/* SPDX-License-Identifier: MIT */
/*
 * Optimizer-state offload: T parameter tensors of C floats, each with its
 * gradient and Adam's two moments, allocated tensor after tensor (p, g,
 * m, v), as a framework creates them. A step reads the parameters U times
 * (forward and backward), writes the gradients, then the optimizer reads
 * p, g, m, v once and writes p, m, v: the moments are touched once per
 * step, the parameters U + 2 times.
 *
 * libcxlpool: the four arrays of every tensor lie in one managed
 * allocation; the workload hints each pass over an array, and the runtime
 * promotes the pages that are read most (the parameters) and demotes the
 * moments, with hysteresis.
 *
 * Check: every policy computes the same numbers (the parent compares the
 * checksums), and 64 sampled parameters against a double recomputation.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pw.h"

#define T 16
#define U 4

static float init_p(size_t i)
{
	return (float)((i * 29) % 97) / 97.0f - 0.5f;
}

static float input_x(size_t i)
{
	return (float)((i * 13) % 31) / 31.0f;
}

/* One Adam step on n elements (lr 1e-3, beta 0.9 / 0.999, eps 1e-8). */
static void adam(float *p, const float *g, float *m, float *v, size_t n,
		 float c1, float c2)
{
	for (size_t i = 0; i < n; i++) {
		m[i] = 0.9f * m[i] + 0.1f * g[i];
		v[i] = 0.999f * v[i] + 0.001f * g[i] * g[i];
		p[i] -= 1e-3f * (m[i] * c1) / (sqrtf(v[i] * c2) + 1e-8f);
	}
}

/* Element @i's parameter after @steps steps, in double. */
static double reference(size_t i, size_t c, int steps, double *acts)
{
	double p = init_p(i), m = 0, v = 0;

	for (int st = 0; st < steps; st++) {
		double g = p * 0.01 + input_x(i % c) * acts[st] * 1e-4;

		m = 0.9 * m + 0.1 * g;
		v = 0.999 * v + 0.001 * g * g;
		p -= 1e-3 * (m / (1 - pow(0.9, st + 1))) /
		     (sqrt(v / (1 - pow(0.999, st + 1))) + 1e-8);
	}
	return p;
}

int wl_adam(struct pw *w)
{
	size_t c = w->o.scale ? w->o.scale : 16384, cb = c * sizeof(float);
	int steps = w->o.steps ? w->o.steps : 4;
	float *p[T], *g[T], *m[T], *v[T], *x;
	double acts[64], sum = 0, err = 0;
	char *all = NULL;

	if (steps > 64)
		return pw_fail(w, "at most 64 steps"), -1;
	w->data_bytes = (size_t)T * 4 * cb;
	w->local_limit = (size_t)(w->o.local_fraction * (double)w->data_bytes);
	x = pw_aux(w, cb);
	pw_limit(w);
	if (w->policy == PW_LIBCXLPOOL) {
		all = cxlpool_alloc(w->pool, w->data_bytes, CXLPOOL_MANAGED);
		if (!all)
			return pw_fail(w, "managed memory: %s", cxlpool_error()), -1;
		pw_track(w, all, w->data_bytes);
	}
	for (int t = 0; t < T; t++) {
		float **a[4] = { &p[t], &g[t], &m[t], &v[t] };

		for (int k = 0; k < 4; k++) {
			*a[k] = all ? (float *)(all + ((size_t)t * 4 + k) * cb) : pw_data(w, cb);
			if (!*a[k])
				return pw_fail(w, "cannot place tensor %d", t), -1;
		}
		for (size_t i = 0; i < c; i++)
			p[t][i] = init_p((size_t)t * c + i);
	}
	for (size_t i = 0; i < c; i++)
		x[i] = input_x(i);

	pw_begin(w);
	for (int st = 0; st < steps; st++) {
		double act = 0;
		float c1 = 1.0f / (1.0f - powf(0.9f, (float)(st + 1)));
		float c2 = 1.0f / (1.0f - powf(0.999f, (float)(st + 1)));

		/* forward and backward: U reads of every parameter */
		for (int u = 0; u < U; u++)
			for (int t = 0; t < T; t++) {
				float s = 0;

				for (size_t i = 0; i < c; i++)
					s += p[t][i] * x[i];
				act += s;
				pw_touch(w, p[t], cb);
				if (all)
					cxlpool_hint(w->pool, p[t], cb, 1);
			}
		/* a tiny activation-dependent term keeps the steps honest */
		act = fmod(fabs(act), 8.0);
		acts[st] = act;
		for (int t = 0; t < T; t++) {
			for (size_t i = 0; i < c; i++)
				g[t][i] = p[t][i] * 0.01f + x[i] * (float)act * 1e-4f;
			adam(p[t], g[t], m[t], v[t], c, c1, c2);
			pw_touch(w, p[t], cb);
			pw_touch(w, p[t], cb);
			pw_touch(w, g[t], cb);
			pw_touch(w, g[t], cb);
			pw_touch(w, m[t], cb);
			pw_touch(w, v[t], cb);
			if (all) {
				cxlpool_hint(w->pool, p[t], cb, 2);
				cxlpool_hint(w->pool, g[t], cb, 2);
				cxlpool_hint(w->pool, m[t], cb, 1);
				cxlpool_hint(w->pool, v[t], cb, 1);
			}
		}
		pw_step(w);
	}
	pw_end(w);

	for (int t = 0; t < T; t++)
		for (size_t i = 0; i < c; i++)
			sum += p[t][i] + m[t][i] + v[t][i];
	w->checksum = sum;
	for (int k = 0; k < 64; k++) {
		size_t i = ((size_t)k * 7919) % ((size_t)T * c);
		double e = fabs(reference(i, c, steps, acts) - p[i / c][i % c]);

		if (e > err)
			err = e;
	}
	pw_verify(w, err < 1e-4,
		 "64 parameters after %d steps vs a double-precision recomputation: max error %.2e",
		 steps, err);
	pw_field(w, "\"tensors\":%d,\"tensor_bytes\":%zu,\"param_reads_per_step\":%d,\"steps\":%d",
		 T, cb, U + 2, steps);
	return 0;
}
