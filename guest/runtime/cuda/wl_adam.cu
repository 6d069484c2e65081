/* SPDX-License-Identifier: MIT */
/*
 * Optimizer step with offloaded Adam state: parameters and gradients stay
 * in HBM, the first and second moments (2x the parameters in FP32) live in
 * the far tier in chunks. Each step streams every chunk in, updates it and
 * the parameters, and the runtime writes the dirty chunk back home.
 * Checked after the run: parameters and the home copies of m and v match
 * an all-HBM run. Baseline: CUDA Unified Memory, m and v managed and
 * oversubscribed, chunks prefetched ahead in step order and updated in
 * place.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "kernels.h"

struct actx {
	long n, chunk;
	int nchunks, steps;
	float *p, *g;			/* device */
	void **homes;			/* pinned m|v per chunk */
	void **mv;			/* m|v that reset and verify use:
					 * homes, or the managed chunks */
	size_t cbytes;
	float *ref_p, *got_p;		/* host */
	float *ref_mv;			/* host, all chunks */
};

static void adam_step(void *vc, size_t i, uint32_t id, void *mv, cudaStream_t s)
{
	struct actx *c = (struct actx *)vc;
	int step = (int)(i / c->nchunks) + 1;
	size_t off = (size_t)id * c->chunk;

	k_adam(c->p + off, c->g + off, (float *)mv, c->chunk, step, s);
}

static void adam_reset(void *vc, const char *label)
{
	struct actx *c = (struct actx *)vc;

	k_fill(c->p, (size_t)c->n, 11, 1.0f, 0);
	CK(cudaDeviceSynchronize());
	for (int i = 0; i < c->nchunks; i++)
		memset(c->mv[i], 0, c->cbytes);
}

static void adam_verify(void *vc, const char *label)
{
	struct actx *c = (struct actx *)vc;
	char name[96];
	double dp, dmv = 0;

	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(c->got_p, c->p, c->n * sizeof(float), cudaMemcpyDeviceToHost));
	dp = max_abs_diff(c->got_p, c->ref_p, (size_t)c->n);
	for (int i = 0; i < c->nchunks; i++) {
		double d = max_abs_diff((const float *)c->mv[i],
					c->ref_mv + (size_t)i * 2 * c->chunk,
					(size_t)2 * c->chunk);
		if (d > dmv)
			dmv = d;
	}
	snprintf(name, sizeof(name), "adam.%s matches all-hbm", label);
	check_add(name, dp <= 1e-6 && dmv <= 1e-6,
		  "params max abs diff %.3g, written-back m/v max abs diff %.3g", dp, dmv);
}

/* Adam on the CPU for sampled parameters, from the initial @p0 and @g. */
static void check_adam(struct actx *c, const float *p0, const float *g)
{
	double worst = 0;

	for (int k = 0; k < 256; k++) {
		long i = (long)((k * 2654435761ul) % (unsigned long)c->n);
		float p = p0[i], m = 0, v = 0;

		for (int st = 1; st <= c->steps; st++) {
			float bc1 = 1.0f - powf(0.9f, (float)st);
			float bc2 = 1.0f - powf(0.999f, (float)st);

			m = 0.9f * m + (1 - 0.9f) * g[i];
			v = 0.999f * v + (1 - 0.999f) * g[i] * g[i];
			p -= 1e-3f * (m / bc1) / (sqrtf(v / bc2) + 1e-8f);
		}
		worst = fmax(worst, fabs((double)p - c->ref_p[i]));
	}
	check_add("adam.kernel matches CPU reference", worst <= 1e-5,
		  "256 sampled parameters after %d steps, max abs diff %.3g",
		  c->steps, worst);
}

int wl_adam(const struct gpu_opts *o, struct jw *j, struct rt_trace *tr)
{
	struct actx c = {};
	cudaStream_t s;
	size_t total, budget, len;
	int slots, window, nm = 0;
	void **ptrs;
	size_t *sizes;
	uint32_t *stream;
	struct mode_result m[16];
	char *dev_all, *tmp;
	double compute_ms, allhbm_ms, um_ms = -1;
	bool um_over = false;

	c.n = o->params;
	c.chunk = o->chunk;
	if (c.chunk <= 0 || c.n % c.chunk) {
		fprintf(stderr, "cxlbed-gpu: adam: --params must be a multiple of --chunk\n");
		return -1;
	}
	c.nchunks = (int)(c.n / c.chunk);
	c.steps = o->steps;
	c.cbytes = (size_t)2 * c.chunk * sizeof(float);
	total = c.cbytes * c.nchunks;
	budget = o->hbm_budget ? o->hbm_budget : total / 2;
	slots = o->slots ? o->slots : (int)(budget / c.cbytes);
	if (slots < 2) {
		fprintf(stderr, "cxlbed-gpu: adam: HBM budget holds fewer than 2 chunks\n");
		return -1;
	}
	window = o->window ? o->window : slots / 2;	/* half stay for write-back */
	len = (size_t)c.steps * c.nchunks;

	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CK(cudaMalloc(&c.p, c.n * sizeof(float)));
	CK(cudaMalloc(&c.g, c.n * sizeof(float)));
	k_fill(c.g, (size_t)c.n, 12, 0.01f, s);
	c.ref_p = (float *)malloc(c.n * sizeof(float));
	c.got_p = (float *)malloc(c.n * sizeof(float));
	c.ref_mv = (float *)malloc(total);
	c.homes = (void **)calloc(c.nchunks, sizeof(void *));
	ptrs = (void **)calloc(c.nchunks, sizeof(void *));
	sizes = (size_t *)calloc(c.nchunks, sizeof(size_t));
	stream = (uint32_t *)calloc(len, sizeof(uint32_t));
	for (size_t i = 0; i < len; i++)
		stream[i] = (uint32_t)(i % c.nchunks);
	for (int i = 0; i < c.nchunks; i++) {
		CK(cudaHostAlloc(&c.homes[i], c.cbytes, cudaHostAllocDefault));
		sizes[i] = c.cbytes;
	}
	c.mv = c.homes;

	CK(cudaMalloc(&tmp, c.cbytes));
	CK(cudaMemset(tmp, 0, c.cbytes));
	for (int i = 0; i < c.nchunks; i++)
		ptrs[i] = tmp;
	adam_reset(&c, "compute-only");
	compute_ms = resident_pass(stream, len, ptrs, adam_step, &c, s);
	memset(&m[nm], 0, sizeof(m[0]));
	snprintf(m[nm].mode, sizeof(m[0].mode), "compute-only");
	m[nm++].ms = compute_ms;
	CK(cudaFree(tmp));

	CK(cudaMalloc(&dev_all, total));
	CK(cudaMemset(dev_all, 0, total));
	for (int i = 0; i < c.nchunks; i++)
		ptrs[i] = dev_all + (size_t)i * c.cbytes;
	adam_reset(&c, "all-hbm");
	CK(cudaMemcpy(c.got_p, c.p, c.n * sizeof(float), cudaMemcpyDeviceToHost));
	allhbm_ms = resident_pass(stream, len, ptrs, adam_step, &c, s);
	CK(cudaMemcpy(c.ref_p, c.p, c.n * sizeof(float), cudaMemcpyDeviceToHost));
	{
		float *g = (float *)malloc(c.n * sizeof(float));

		CK(cudaMemcpy(g, c.g, c.n * sizeof(float), cudaMemcpyDeviceToHost));
		check_adam(&c, c.got_p, g);	/* got_p holds the initial params */
		free(g);
	}
	CK(cudaMemcpy(c.ref_mv, dev_all, total, cudaMemcpyDeviceToHost));
	CK(cudaFree(dev_all));
	memset(&m[nm], 0, sizeof(m[0]));
	snprintf(m[nm].mode, sizeof(m[0].mode), "all-hbm");
	m[nm++].ms = allhbm_ms;

	{
		struct drive d = {};

		d.o = o;
		d.slots = slots;
		d.slot_size = c.cbytes;
		d.homes = c.homes;
		d.sizes = sizes;
		d.nblocks = c.nchunks;
		d.stream = stream;
		d.len = len;
		d.fetch_lanes = 1;
		d.dirty = true;
		d.fn = adam_step;
		d.ctx = &c;
		if (far_modes(o, &d, window, adam_reset, adam_verify, tr, m, &nm))
			return -1;
	}

	/* Unified Memory, oversubscribed: the offloaded m|v chunks managed
	 * (written every step, so AccessedBy without ReadMostly), params and
	 * grads in HBM as in the tiered run, only the budget left free; the
	 * tiered run's window of chunks prefetched ahead in step order and
	 * updated in place. The driver evicts (writes back) on its own. */
	if (!o->no_um) {
		char *um;
		void **umc = (void **)calloc(c.nchunks, sizeof(void *));
		void *ballast;

		CK(cudaMallocManaged(&um, total, cudaMemAttachGlobal));
		for (int i = 0; i < c.nchunks; i++)
			umc[i] = um + (size_t)i * c.cbytes;
		c.mv = umc;
		adam_reset(&c, "unified-memory");	/* zeroes m|v on the host */
		um_advise_dev(um, total, o->dev, false);
		ballast = ballast_take(budget);
		um_over = ballast != NULL;
		if (!um_over)
			fprintf(stderr, "cxlbed-gpu: adam: could not oversubscribe unified memory (no ballast)\n");
		um_ms = um_pass(stream, len, umc, sizes, window, o->dev, adam_step, &c, s);
		adam_verify(&c, "unified-memory");
		ballast_drop(ballast);
		c.mv = c.homes;
		CK(cudaFree(um));
		free(umc);
		memset(&m[nm], 0, sizeof(m[0]));
		snprintf(m[nm].mode, sizeof(m[0].mode), "unified-memory");
		m[nm++].ms = um_ms;
	}

	jw_obj(j, NULL);
	jw_str(j, "name", "adam");
	jw_obj(j, "config");
	jw_int(j, "params", c.n);
	jw_int(j, "chunk_params", c.chunk);
	jw_int(j, "steps", c.steps);
	jw_int(j, "chunk_bytes", (long long)c.cbytes);
	jw_int(j, "state_bytes", (long long)total);
	jw_int(j, "hbm_budget", (long long)budget);
	jw_num(j, "oversubscription", (double)total / (double)budget);
	jw_int(j, "slots", slots);
	jw_int(j, "window", window);
	if (!o->no_um)
		jw_bool(j, "um_oversubscribed", um_over);
	jw_end_obj(j);
	jw_arr(j, "runs");
	for (int i = 0; i < nm; i++)
		mode_json(j, &m[i]);
	jw_end_arr(j);
	far_summary_json(j, "adam", o, m, nm, compute_ms, allhbm_ms, um_ms);
	jw_end_obj(j);

	for (int i = 0; i < c.nchunks; i++)
		cudaFreeHost(c.homes[i]);
	cudaFree(c.p);
	cudaFree(c.g);
	cudaStreamDestroy(s);
	free(c.homes);
	free(ptrs);
	free(sizes);
	free(stream);
	free(c.ref_p);
	free(c.got_p);
	free(c.ref_mv);
	return 0;
}
