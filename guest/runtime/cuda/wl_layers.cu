/* SPDX-License-Identifier: MIT */
/*
 * Layer sweep: a GEMM per layer, weights offloaded (at least twice the HBM
 * budget), streamed through the staging slots in layer order. Modes:
 * all-HBM (reference result and compute time), compute only, and per far
 * tier: transfer only, tiered (lookahead prefetch), demand fetch; plus
 * CUDA Unified Memory oversubscribed with prefetch and advice.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "kernels.h"

struct lctx {
	int L, dim, batch, sweeps;
	size_t wbytes, abytes;
	float *x0, *xa, *xb;		/* device activations */
	float *cur;			/* current input during a pass */
};

/* Layer @i of the stream on weights @w: restart from x0 at layer 0. */
static void layer_step(void *vc, size_t i, uint32_t id, void *w, cudaStream_t s)
{
	struct lctx *c = (struct lctx *)vc;
	float *in, *out;

	if (id == 0)
		c->cur = c->x0;
	in = c->cur;
	out = in == c->xa ? c->xb : c->xa;
	k_layer(in, (const float *)w, out, c->batch, c->dim, c->dim, s);
	c->cur = out;
}

/*
 * The GEMM kernel itself against the CPU on sampled outputs of layer 0, so
 * that "matches all-HBM" (the same kernel both times) also means right.
 */
static void check_kernel(struct lctx *c, const float *w_dev, const float *w_host,
			 cudaStream_t s)
{
	size_t an = (size_t)c->batch * c->dim;
	float *x = (float *)malloc(an * sizeof(float));
	float *y = (float *)malloc(an * sizeof(float));
	double worst = 0;

	k_layer(c->x0, w_dev, c->xa, c->batch, c->dim, c->dim, s);
	CK(cudaStreamSynchronize(s));
	CK(cudaMemcpy(x, c->x0, an * sizeof(float), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(y, c->xa, an * sizeof(float), cudaMemcpyDeviceToHost));
	for (int k = 0; k < 64; k++) {
		int r = (k * 37) % c->batch, col = (k * 1031 + 7) % c->dim;
		double acc = 0, d;

		for (int i = 0; i < c->dim; i++)
			acc += (double)x[(size_t)r * c->dim + i] *
			       w_host[(size_t)i * c->dim + col];
		d = fabs(tanh(acc) - y[(size_t)r * c->dim + col]);
		if (d > worst)
			worst = d;
	}
	check_add("layers.gemm kernel matches CPU reference", worst <= 1e-4,
		  "64 sampled outputs of layer 0, max abs diff %.3g", worst);
	free(x);
	free(y);
}

static void fetch_out(struct lctx *c, float *host)
{
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(host, c->cur, c->abytes, cudaMemcpyDeviceToHost));
}

/* Resident run: weights at w[i] (device or managed). With @um, layer i+1..
 * i+window are prefetched to the GPU on a side stream. */
static double resident_run(struct lctx *c, float *const *w, cudaStream_t s,
			   bool um, int window, int dev)
{
	cudaStream_t pf = NULL;
	cudaEvent_t *ready = NULL;
	double t0;

	if (um) {
		CK(cudaStreamCreateWithFlags(&pf, cudaStreamNonBlocking));
		ready = (cudaEvent_t *)calloc(c->L, sizeof(cudaEvent_t));
		for (int i = 0; i < c->L; i++)
			CK(cudaEventCreateWithFlags(&ready[i], cudaEventDisableTiming));
	}
	CK(cudaDeviceSynchronize());
	t0 = now_ms();
	for (int sw = 0; sw < c->sweeps; sw++) {
		for (int i = 0; i < c->L; i++) {
			if (um) {
				int first = i ? i + window : 0;
				int last = i + window < c->L ? i + window : c->L - 1;
#if CUDART_VERSION >= 13000
				struct cudaMemLocation loc = {};

				loc.type = cudaMemLocationTypeDevice;
				loc.id = dev;
#endif
				for (int k = first; k <= last; k++) {
#if CUDART_VERSION >= 13000
					CK(cudaMemPrefetchAsync(w[k], c->wbytes, loc, 0, pf));
#else
					CK(cudaMemPrefetchAsync(w[k], c->wbytes, dev, pf));
#endif
					CK(cudaEventRecord(ready[k], pf));
				}
				CK(cudaStreamWaitEvent(s, ready[i], 0));
			}
			layer_step(c, (size_t)i, (uint32_t)i, w[i], s);
		}
	}
	CK(cudaStreamSynchronize(s));
	if (um) {
		CK(cudaStreamSynchronize(pf));
		for (int i = 0; i < c->L; i++)
			cudaEventDestroy(ready[i]);
		free(ready);
		cudaStreamDestroy(pf);
	}
	return now_ms() - t0;
}

static void um_advise(void *p, size_t n, int dev)
{
#if CUDART_VERSION >= 13000
	struct cudaMemLocation loc = {};

	loc.type = cudaMemLocationTypeDevice;
	loc.id = dev;
	CK(cudaMemAdvise(p, n, cudaMemAdviseSetReadMostly, loc));
	CK(cudaMemAdvise(p, n, cudaMemAdviseSetAccessedBy, loc));
#else
	CK(cudaMemAdvise(p, n, cudaMemAdviseSetReadMostly, dev));
	CK(cudaMemAdvise(p, n, cudaMemAdviseSetAccessedBy, dev));
#endif
}

int wl_layers(const struct gpu_opts *o, struct jw *j, struct rt_trace *tr)
{
	struct lctx c = {};
	cudaStream_t s;
	size_t total, budget;
	float **homes, *ref, *out, *dev_all = NULL, **w;
	size_t *sizes;
	uint32_t *stream;
	struct mode_result m[24];
	int nm = 0, slots, window;
	double compute_ms, allhbm_ms = -1, um_ms = -1;
	bool have_ref;

	c.L = o->layers;
	c.dim = o->dim;
	c.batch = o->batch;
	c.sweeps = o->sweeps;
	c.wbytes = (size_t)c.dim * c.dim * sizeof(float);
	c.abytes = (size_t)c.batch * c.dim * sizeof(float);
	total = c.wbytes * c.L;
	budget = o->hbm_budget ? o->hbm_budget : total / 2;
	slots = o->slots ? o->slots : (int)(budget / c.wbytes);
	if (slots < 2) {
		fprintf(stderr, "cxlbed-gpu: layers: HBM budget %zu MiB holds fewer than 2 layers of %zu MiB\n",
			budget >> 20, c.wbytes >> 20);
		return -1;
	}
	window = o->window ? o->window : slots - 1;

	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CK(cudaMalloc(&c.x0, c.abytes));
	CK(cudaMalloc(&c.xa, c.abytes));
	CK(cudaMalloc(&c.xb, c.abytes));
	k_fill(c.x0, (size_t)c.batch * c.dim, 1, 1.0f, s);
	ref = (float *)malloc(c.abytes);
	out = (float *)malloc(c.abytes);
	homes = (float **)calloc(c.L, sizeof(float *));
	w = (float **)calloc(c.L, sizeof(float *));
	sizes = (size_t *)calloc(c.L, sizeof(size_t));
	stream = (uint32_t *)calloc((size_t)c.L * c.sweeps, sizeof(uint32_t));
	for (int sw = 0; sw < c.sweeps; sw++)
		for (int i = 0; i < c.L; i++)
			stream[sw * c.L + i] = i;

	/* Weights: generated on the GPU, copied to pinned homes. */
	{
		float *tmp;
		float scale = sqrtf(3.0f / c.dim);

		CK(cudaMalloc(&tmp, c.wbytes));
		for (int i = 0; i < c.L; i++) {
			CK(cudaHostAlloc(&homes[i], c.wbytes, cudaHostAllocDefault));
			sizes[i] = c.wbytes;
			k_fill(tmp, (size_t)c.dim * c.dim, 100 + i, scale, s);
			CK(cudaStreamSynchronize(s));
			CK(cudaMemcpy(homes[i], tmp, c.wbytes, cudaMemcpyDeviceToHost));
			if (i == 0)
				check_kernel(&c, tmp, homes[0], s);
		}
		/* Compute only: every layer reads one resident buffer. */
		for (int i = 0; i < c.L; i++)
			w[i] = tmp;
		compute_ms = resident_run(&c, w, s, false, 0, o->dev);
		memset(&m[nm], 0, sizeof(m[0]));
		snprintf(m[nm].mode, sizeof(m[0].mode), "compute-only");
		m[nm++].ms = compute_ms;
		CK(cudaFree(tmp));
	}

	/* All-HBM: the reference result, where the weights fit. */
	have_ref = cudaMalloc(&dev_all, total) == cudaSuccess;
	if (have_ref) {
		for (int i = 0; i < c.L; i++) {
			w[i] = dev_all + (size_t)i * c.dim * c.dim;
			CK(cudaMemcpy(w[i], homes[i], c.wbytes, cudaMemcpyHostToDevice));
		}
		allhbm_ms = resident_run(&c, w, s, false, 0, o->dev);
		fetch_out(&c, ref);
		CK(cudaFree(dev_all));
		memset(&m[nm], 0, sizeof(m[0]));
		snprintf(m[nm].mode, sizeof(m[0].mode), "all-hbm");
		m[nm++].ms = allhbm_ms;
	} else {
		cudaGetLastError();
		fprintf(stderr, "cxlbed-gpu: layers: all-HBM baseline does not fit; results are compared with the demand-fetch run\n");
	}

	/* Per far tier: transfer only, tiered, demand fetch. */
	for (int f = 0; f < o->nfars; f++) {
		struct drive d = {};
		char name[64];
		double diff;

		d.o = o;
		d.far = &o->fars[f];
		d.slots = slots;
		d.slot_size = c.wbytes;
		d.homes = (void *const *)homes;
		d.sizes = sizes;
		d.nblocks = c.L;
		d.stream = stream;
		d.len = (size_t)c.L * c.sweeps;
		d.fetch_lanes = 1;
		d.ctx = &c;

		d.window = window;
		if (drive_run(&d, "transfer-only", &m[nm]))
			return -1;
		nm++;

		d.fn = layer_step;
		d.trace = f == o->primary_far ? tr : NULL;
		if (drive_run(&d, "tiered", &m[nm]))
			return -1;
		nm++;
		fetch_out(&c, out);
		if (!have_ref) {
			memcpy(ref, out, c.abytes);
			have_ref = true;
		}
		diff = max_abs_diff(out, ref, (size_t)c.batch * c.dim);
		snprintf(name, sizeof(name), "layers.tiered-%s matches all-hbm", d.far->name);
		check_add(name, diff <= 1e-5, "max abs diff %.3g over %d x %d outputs",
			  diff, c.batch, c.dim);

		d.trace = NULL;
		d.window = 0;
		if (drive_run(&d, "demand", &m[nm]))
			return -1;
		nm++;
		fetch_out(&c, out);
		diff = max_abs_diff(out, ref, (size_t)c.batch * c.dim);
		snprintf(name, sizeof(name), "layers.demand-%s matches all-hbm", d.far->name);
		check_add(name, diff <= 1e-5, "max abs diff %.3g", diff);
	}

	/* Unified Memory, oversubscribed: only the budget stays free. */
	if (!o->no_um) {
		float *um;
		void *ballast;
		double diff;

		CK(cudaMallocManaged(&um, total, cudaMemAttachGlobal));
		for (int i = 0; i < c.L; i++) {
			w[i] = um + (size_t)i * c.dim * c.dim;
			memcpy(w[i], homes[i], c.wbytes);
		}
		um_advise(um, total, o->dev);
		ballast = ballast_take(budget);
		um_ms = resident_run(&c, w, s, true, window, o->dev);
		fetch_out(&c, out);
		ballast_drop(ballast);
		CK(cudaFree(um));
		memset(&m[nm], 0, sizeof(m[0]));
		snprintf(m[nm].mode, sizeof(m[0].mode), "unified-memory");
		m[nm++].ms = um_ms;
		diff = max_abs_diff(out, ref, (size_t)c.batch * c.dim);
		check_add("layers.unified-memory matches all-hbm", diff <= 1e-5,
			  "max abs diff %.3g; %s", diff,
			  ballast ? "oversubscribed via HBM ballast" :
			  "could not oversubscribe (no ballast)");
	}

	jw_obj(j, NULL);
	jw_str(j, "name", "layers");
	jw_obj(j, "config");
	jw_int(j, "layers", c.L);
	jw_int(j, "dim", c.dim);
	jw_int(j, "batch", c.batch);
	jw_int(j, "sweeps", c.sweeps);
	jw_int(j, "layer_bytes", (long long)c.wbytes);
	jw_int(j, "weights_bytes", (long long)total);
	jw_int(j, "hbm_budget", (long long)budget);
	jw_num(j, "oversubscription", (double)total / (double)budget);
	jw_int(j, "slots", slots);
	jw_int(j, "window", window);
	jw_end_obj(j);
	jw_arr(j, "runs");
	for (int i = 0; i < nm; i++)
		mode_json(j, &m[i]);
	jw_end_arr(j);

	far_summary_json(j, "layers", o, m, nm, compute_ms, allhbm_ms, um_ms);
	jw_end_obj(j);

	for (int i = 0; i < c.L; i++)
		cudaFreeHost(homes[i]);
	cudaFree(c.x0);
	cudaFree(c.xa);
	cudaFree(c.xb);
	cudaStreamDestroy(s);
	free(homes);
	free(w);
	free(sizes);
	free(stream);
	free(ref);
	free(out);
	return 0;
}
