/* SPDX-License-Identifier: MIT */
/*
 * One timed pass of a workload through the tiering runtime on the CUDA
 * backend: the same loop for every workload and every mode (tiered,
 * demand fetch, transfer only), so modes differ only in configuration.
 */
#include <string.h>

#include "gpu.h"

int drive_run(const struct drive *d, const char *mode, struct mode_result *m)
{
	struct rt_backend be;
	struct cuda_be cb;
	struct runtime rt;
	struct rt_config c;
	struct shaper far;
	struct spans sp;
	double t0, t1;
	int rc = 0;

	memset(m, 0, sizeof(*m));
	snprintf(m->mode, sizeof(m->mode), "%s", mode);
	snprintf(m->far, sizeof(m->far), "%s", d->far->name);
	cuda_backend_init(&be, &cb, d->o->dev, (size_t)d->slots * d->slot_size);
	shp_init(&far, &d->far->p);
	rt_config_default(&c);
	c.nslots = d->slots;
	c.window = d->window;
	c.slot_size = d->slot_size;
	c.fetch_lanes = d->fetch_lanes;
	if (rt_init(&rt, &be, &c, d->far->tier == RT_TIER_FAR ? &far : NULL,
		    d->trace)) {
		fprintf(stderr, "cxlbed-gpu: %s: cannot set up %d slots of %zu bytes\n",
			mode, d->slots, d->slot_size);
		shp_destroy(&far);
		cuda_backend_fini(&be);
		return -1;
	}
	for (uint32_t i = 0; i < d->nblocks; i++)
		rt_add_block(&rt, d->sizes[i], d->homes[i], d->far->tier);
	rt_set_stream(&rt, d->stream, d->len, false);
	if (d->trace)
		spans_init(&sp, (int)d->len, cb.compute);

	CK(cudaDeviceSynchronize());
	if (d->trace)
		d->trace->base_ns = shp_clock_ns();	/* timeline starts here */
	t0 = now_ms();
	for (size_t i = 0; i < d->len && !rc; i++) {
		uint32_t id = d->stream[i];
		void *p = rt_access(&rt, id);

		if (!p) {
			rc = -1;
			break;
		}
		if (d->fn) {
			if (d->trace)
				spans_begin(&sp, cb.compute, id);
			d->fn(d->ctx, i, id, p, cb.compute);
			if (d->trace)
				spans_end(&sp, cb.compute);
		}
		rt_release(&rt, id, d->dirty);	/* transfer-only moves the same bytes */
	}
	rt_flush(&rt);
	CK(cudaStreamSynchronize(cb.compute));
	t1 = now_ms();
	for (int l = 0; l < rt.lanes.n; l++)
		if (rt.lanes.lane[l].errors)
			rc = -1;

	m->ms = t1 - t0;
	stats_from_rt(m, &rt);
	if (d->trace) {
		spans_flush(&sp, d->trace);
		spans_fini(&sp);
	}
	rt_fini(&rt);
	shp_destroy(&far);
	cuda_backend_fini(&be);
	return rc;
}

int far_modes(const struct gpu_opts *o, struct drive *d, int window,
	      hook_fn reset, hook_fn verify, struct rt_trace *tr,
	      struct mode_result *m, int *nm)
{
	compute_fn fn = d->fn;

	for (int f = 0; f < o->nfars; f++) {
		char label[64];

		d->far = &o->fars[f];
		d->window = window;
		d->fn = NULL;
		d->trace = NULL;
		if (drive_run(d, "transfer-only", &m[(*nm)++]))
			return -1;

		d->fn = fn;
		d->trace = f == o->primary_far ? tr : NULL;
		snprintf(label, sizeof(label), "tiered-%s", d->far->name);
		reset(d->ctx, label);
		if (drive_run(d, "tiered", &m[(*nm)++]))
			return -1;
		verify(d->ctx, label);

		d->trace = NULL;
		d->window = 0;
		snprintf(label, sizeof(label), "demand-%s", d->far->name);
		reset(d->ctx, label);
		if (drive_run(d, "demand", &m[(*nm)++]))
			return -1;
		verify(d->ctx, label);
	}
	d->fn = fn;
	return 0;
}
