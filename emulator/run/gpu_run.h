/* SPDX-License-Identifier: MIT */
/* GPU mode (docs/gpu-mode.md): one run of build/gpu/cxlbed-gpu into a run folder. */
#ifndef CXLBED_GPU_RUN_H
#define CXLBED_GPU_RUN_H

#include <glib.h>
#include <stdbool.h>

#define GPU_BIN "build/gpu/cxlbed-gpu"

struct gpu_opts {
	gint64 far_latency;	/* -1: not given */
	double far_bw;		/* 0: not given */
	char *budget, *out, *from_json, *bin;
	int window, slots, device;
	gboolean quick, no_um;
};

/*
 * Run workload @wl (layers, kv, adam, bandwidth, all) with @c, or render
 * c->from_json, into c->out or results/RUN_ID. The exit status: 0 every
 * check passed, 1 a check or the run failed (or no GPU), 2 bad input;
 * why on stderr.
 */
int gpu_run(const struct gpu_opts *c, const char *wl);

#endif
