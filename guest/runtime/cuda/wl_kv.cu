/* SPDX-License-Identifier: MIT */
/*
 * KV-cache attention: several sessions with long contexts decode a few
 * steps each; every step reads the session's paged KV blocks in order
 * (flash-decoding style online softmax, one merge per page). Pages live in
 * the far tier and stream through the HBM slots; two fetch lanes stand for
 * sessions whose fetches contend for the same far link. Baseline: CUDA
 * Unified Memory, the pages managed and oversubscribed, prefetched ahead
 * in access order.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "kernels.h"

#define HD 128

struct kctx {
	int S, P, steps, heads, page;	/* P: pages per session */
	float *q;			/* [steps][S][heads][HD] */
	float *state;			/* [S][heads][HD + 2] */
	float *out;			/* [steps][S][heads][HD] */
	float *scratch;
	size_t out_n;
	float *ref, *got;		/* host copies of out */
	const char *wl;
};

static void kv_step(void *vc, size_t i, uint32_t id, void *page, cudaStream_t s)
{
	struct kctx *c = (struct kctx *)vc;
	size_t per_step = (size_t)c->S * c->P;
	int step = (int)(i / per_step), sess = (int)(id / c->P), p = (int)(id % c->P);
	size_t qs = ((size_t)step * c->S + sess) * c->heads * HD;
	float *st = c->state + (size_t)sess * c->heads * (HD + 2);

	if (p == 0)
		k_attn_init(st, c->heads, s);
	k_attn_page(c->q + qs, (const float *)page, c->page, c->heads,
		    c->scratch, st, s);
	if (p == c->P - 1)
		k_attn_final(st, c->out + qs, c->heads, s);
}

static void kv_reset(void *vc, const char *label)
{
	struct kctx *c = (struct kctx *)vc;

	CK(cudaMemset(c->out, 0, c->out_n * sizeof(float)));
}

static void kv_verify(void *vc, const char *label)
{
	struct kctx *c = (struct kctx *)vc;
	char name[96];
	double diff;

	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(c->got, c->out, c->out_n * sizeof(float), cudaMemcpyDeviceToHost));
	diff = max_abs_diff(c->got, c->ref, c->out_n);
	snprintf(name, sizeof(name), "kv.%s matches all-hbm", label);
	check_add(name, diff <= 1e-5, "max abs diff %.3g over %zu outputs", diff, c->out_n);
}

/* Full-softmax attention on the CPU for step 0, session 0, against the
 * paged online-softmax kernels' result. */
static void check_attention(struct kctx *c, void *const *homes)
{
	size_t qn = (size_t)c->heads * HD, T = (size_t)c->P * c->page;
	float *q = (float *)malloc(qn * sizeof(float));
	double *sc = (double *)malloc(T * sizeof(double));
	double worst = 0;

	CK(cudaMemcpy(q, c->q, qn * sizeof(float), cudaMemcpyDeviceToHost));
	for (int h = 0; h < c->heads; h++) {
		double m = -INFINITY, l = 0, acc[HD] = { 0 };

		for (size_t t = 0; t < T; t++) {
			const float *kp = (const float *)homes[t / c->page];
			const float *k = kp + ((t % c->page) * c->heads + h) * HD;
			double d = 0;

			for (int i = 0; i < HD; i++)
				d += (double)q[h * HD + i] * k[i];
			sc[t] = d / sqrt((double)HD);
			m = fmax(m, sc[t]);
		}
		/* Token-major so each V row is read once, in order. */
		for (size_t t = 0; t < T; t++) {
			const float *pg = (const float *)homes[t / c->page];
			const float *v = pg + (size_t)c->page * c->heads * HD +
					 ((t % c->page) * c->heads + h) * HD;
			double e = exp(sc[t] - m);

			l += e;
			for (int i = 0; i < HD; i++)
				acc[i] += e * v[i];
		}
		for (int i = 0; i < HD; i++)
			worst = fmax(worst, fabs(acc[i] / l - c->ref[h * HD + i]));
	}
	check_add("kv.attention kernels match CPU reference", worst <= 1e-4,
		  "step 0, session 0, %zu tokens x %d heads: max abs diff %.3g",
		  T, c->heads, worst);
	free(q);
	free(sc);
}

int wl_kv(const struct gpu_opts *o, struct jw *j, struct rt_trace *tr)
{
	struct kctx c = {};
	cudaStream_t s;
	size_t pbytes, total, budget, len;
	int npages, slots, window, nm = 0;
	void **homes, **ptrs;
	size_t *sizes;
	uint32_t *stream;
	struct mode_result m[16];
	float *dev_all = NULL, *tmp;
	double compute_ms, allhbm_ms = -1, um_ms = -1;
	bool um_over = false;

	c.S = o->sessions;
	c.page = o->page;
	c.P = o->context / o->page;
	c.steps = o->steps;
	c.heads = 8;
	npages = c.S * c.P;
	pbytes = (size_t)2 * c.page * c.heads * HD * sizeof(float);
	total = pbytes * npages;
	budget = o->hbm_budget ? o->hbm_budget : total / 2;
	slots = o->slots ? o->slots : (int)(budget / pbytes);
	if (slots < 2 || c.P < 1) {
		fprintf(stderr, "cxlbed-gpu: kv: HBM budget %zu MiB holds fewer than 2 pages of %zu MiB\n",
			budget >> 20, pbytes >> 20);
		return -1;
	}
	window = o->window ? o->window : slots - 1;
	len = (size_t)c.steps * npages;
	c.out_n = (size_t)c.steps * c.S * c.heads * HD;

	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CK(cudaMalloc(&c.q, c.out_n * sizeof(float)));
	CK(cudaMalloc(&c.out, c.out_n * sizeof(float)));
	CK(cudaMalloc(&c.state, (size_t)c.S * c.heads * (HD + 2) * sizeof(float)));
	CK(cudaMalloc(&c.scratch, (size_t)c.heads * c.page * sizeof(float)));
	k_fill(c.q, c.out_n, 7, 1.0f, s);
	c.ref = (float *)malloc(c.out_n * sizeof(float));
	c.got = (float *)malloc(c.out_n * sizeof(float));
	homes = (void **)calloc(npages, sizeof(void *));
	ptrs = (void **)calloc(npages, sizeof(void *));
	sizes = (size_t *)calloc(npages, sizeof(size_t));
	stream = (uint32_t *)calloc(len, sizeof(uint32_t));
	for (size_t i = 0; i < len; i++)
		stream[i] = (uint32_t)(i % npages);	/* session-major page order */

	CK(cudaMalloc(&tmp, pbytes));
	for (int i = 0; i < npages; i++) {
		CK(cudaHostAlloc(&homes[i], pbytes, cudaHostAllocDefault));
		sizes[i] = pbytes;
		k_fill(tmp, pbytes / sizeof(float), 5000 + i, 1.0f, s);
		CK(cudaStreamSynchronize(s));
		CK(cudaMemcpy(homes[i], tmp, pbytes, cudaMemcpyDeviceToHost));
	}
	for (int i = 0; i < npages; i++)
		ptrs[i] = tmp;
	compute_ms = resident_pass(stream, len, ptrs, kv_step, &c, s);
	memset(&m[nm], 0, sizeof(m[0]));
	snprintf(m[nm].mode, sizeof(m[0].mode), "compute-only");
	m[nm++].ms = compute_ms;
	CK(cudaFree(tmp));

	if (cudaMalloc(&dev_all, total) != cudaSuccess) {
		cudaGetLastError();
		fprintf(stderr, "cxlbed-gpu: kv: all-HBM reference does not fit\n");
		return -1;
	}
	for (int i = 0; i < npages; i++) {
		ptrs[i] = (char *)dev_all + (size_t)i * pbytes;
		CK(cudaMemcpy(ptrs[i], homes[i], pbytes, cudaMemcpyHostToDevice));
	}
	kv_reset(&c, "all-hbm");
	allhbm_ms = resident_pass(stream, len, ptrs, kv_step, &c, s);
	CK(cudaMemcpy(c.ref, c.out, c.out_n * sizeof(float), cudaMemcpyDeviceToHost));
	CK(cudaFree(dev_all));
	memset(&m[nm], 0, sizeof(m[0]));
	snprintf(m[nm].mode, sizeof(m[0].mode), "all-hbm");
	m[nm++].ms = allhbm_ms;
	{
		bool finite = true;

		for (size_t i = 0; i < c.out_n; i++)
			finite &= c.ref[i] == c.ref[i] && c.ref[i] < 1e30f && c.ref[i] > -1e30f;
		check_add("kv.all-hbm output is finite", finite, "%zu outputs", c.out_n);
	}
	check_attention(&c, homes);

	{
		struct drive d = {};

		d.o = o;
		d.slots = slots;
		d.slot_size = pbytes;
		d.homes = homes;
		d.sizes = sizes;
		d.nblocks = npages;
		d.stream = stream;
		d.len = len;
		d.fetch_lanes = 2;
		d.fn = kv_step;
		d.ctx = &c;
		if (far_modes(o, &d, window, kv_reset, kv_verify, tr, m, &nm))
			return -1;
	}

	/* Unified Memory, oversubscribed: the pages managed (read only, so
	 * ReadMostly), only the budget left free, the lookahead window of the
	 * tiered run prefetched ahead in the same access order. */
	if (!o->no_um) {
		char *um;
		void *ballast;

		CK(cudaMallocManaged(&um, total, cudaMemAttachGlobal));
		for (int i = 0; i < npages; i++) {
			ptrs[i] = um + (size_t)i * pbytes;
			memcpy(ptrs[i], homes[i], pbytes);
		}
		um_advise_dev(um, total, o->dev, true);
		kv_reset(&c, "unified-memory");
		ballast = ballast_take(budget);
		um_over = ballast != NULL;
		if (!um_over)
			fprintf(stderr, "cxlbed-gpu: kv: could not oversubscribe unified memory (no ballast)\n");
		um_ms = um_pass(stream, len, ptrs, sizes, window, o->dev, kv_step, &c, s);
		kv_verify(&c, "unified-memory");
		ballast_drop(ballast);
		CK(cudaFree(um));
		memset(&m[nm], 0, sizeof(m[0]));
		snprintf(m[nm].mode, sizeof(m[0].mode), "unified-memory");
		m[nm++].ms = um_ms;
	}

	jw_obj(j, NULL);
	jw_str(j, "name", "kv");
	jw_obj(j, "config");
	jw_int(j, "sessions", c.S);
	jw_int(j, "context_tokens", o->context);
	jw_int(j, "page_tokens", c.page);
	jw_int(j, "heads", c.heads);
	jw_int(j, "head_dim", HD);
	jw_int(j, "decode_steps", c.steps);
	jw_int(j, "page_bytes", (long long)pbytes);
	jw_int(j, "kv_bytes", (long long)total);
	jw_int(j, "hbm_budget", (long long)budget);
	jw_num(j, "oversubscription", (double)total / (double)budget);
	jw_int(j, "slots", slots);
	jw_int(j, "window", window);
	jw_int(j, "fetch_lanes", 2);
	if (!o->no_um)
		jw_bool(j, "um_oversubscribed", um_over);
	jw_end_obj(j);
	jw_arr(j, "runs");
	for (int i = 0; i < nm; i++)
		mode_json(j, &m[i]);
	jw_end_arr(j);
	far_summary_json(j, "kv", o, m, nm, compute_ms, allhbm_ms, um_ms);
	jw_end_obj(j);

	for (int i = 0; i < npages; i++)
		cudaFreeHost(homes[i]);
	cudaFree(c.q);
	cudaFree(c.out);
	cudaFree(c.state);
	cudaFree(c.scratch);
	cudaStreamDestroy(s);
	free(homes);
	free(ptrs);
	free(sizes);
	free(stream);
	free(c.ref);
	free(c.got);
	return 0;
}
