/* SPDX-License-Identifier: MIT */
/*
 * The pooling workloads (cxlbed-pool): one workload run under one tiering
 * policy, in a child process of its own. The context gives the workload
 * its data placement (per policy), the local-capacity limit, the timed
 * region, per-step figures (fast-tier hit ratio, bytes per tier over
 * time) and its result line. docs/pooling.md.
 */
#ifndef CXLBED_PW_H
#define CXLBED_PW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cxlpool.h"
#include "policy.h"

#define PW_MAX_SAMPLES 256

struct pw_opts {
	double local_fraction;	/* of the data that fits the fast tier */
	size_t scale;		/* workload size knob (its own unit) */
	int steps;		/* sweeps / decode steps / rounds */
	int batch;		/* layers: tokens per layer (compute per byte) */
	double zipf;		/* embed: exponent, 0 = uniform */
	int copy_lanes;		/* libcxlpool: a stream's copy lanes (CPUs 1..N) */
	bool verbose;
};

/* One point of the figures over time (taken at the end of a step). */
struct pw_sample {
	double t_ms;		/* guest clock since the region began */
	double hit;		/* fast-tier hit ratio over the step */
	uint64_t fast_bytes, far_bytes;	/* the data's bytes per tier */
};

/* A piece of the workload's data (the unit of per-page accounting). */
struct pw_region {
	char *base;
	size_t len;
	uint32_t *use;		/* per page: accesses this step (weights) */
};

struct pw {
	const char *workload;
	enum pw_policy policy;
	struct pw_opts o;
	int fast_node, far_node;
	size_t data_bytes;	/* the workload's data (what 25% is of) */
	size_t local_limit;	/* fast bytes the data may use (not all-local) */
	size_t first_touch_fast;	/* first-touch, interleave-auto: fast bytes
					 * placed so far */
	struct cxlpool *pool;	/* libcxlpool policy only */
	/* per-page accounting for the kernel policies: every piece of
	 * data (kv: one per block, 32768 at 64x its data), and their
	 * indexes in address order for pw_touch's lookup (sorted when
	 * first looked up after a new one) */
	struct pw_region *reg;
	int nreg, reg_cap;
	int *by_addr, nsorted;
	/* figures */
	struct pw_sample s[PW_MAX_SAMPLES];
	int ns;
	double t0;		/* guest clock at region begin */
	/* libcxlpool streams and object caches count their own hits;
	 * otherwise the sampler weighs where the touched pages are */
	bool counts_itself;
	uint64_t acc_all, hit_all;
	struct cxlpool_stats st0, prev, st1;	/* region begin, last step, end */
	struct pw_vmstat vm0, vm1;	/* /proc/vmstat at region begin, end */
	struct pw_damon_gov_stats gov;	/* damon: its promotion governor */
	uint64_t reserved;	/* bytes the limit took from the fast node */
	long long boost_factor;	/* the kernel's watermark boosting at the end */
	double checksum;
	bool ok;
	char verify[256];
	FILE *out;		/* extra JSON fields of the result ("k":v,...) */
	char *outbuf;
	size_t outlen;
};

/* Allocation of the workload's data by policy: bound to the fast node
 * (all-local), weighted-interleaved, or left to first touch. Page-aligned
 * and populated in the order of the calls, as a program would. */
void *pw_data(struct pw *w, size_t n);
/* Count memory placed otherwise (libcxlpool managed memory) as data for
 * the figures. */
void pw_track(struct pw *w, void *p, size_t n);
/* Small auxiliary buffers (inputs, outputs): always on the fast node,
 * outside the local limit. Call before pw_limit. */
void *pw_aux(struct pw *w, size_t n);
/* Apply the local-capacity limit (every policy but all-local): from now on
 * the fast node has local_limit bytes free for the data. */
void pw_limit(struct pw *w);

/* The timed region (one ROI per policy) and per-step figures. */
void pw_begin(struct pw *w);
/* The compute thread accessed @bytes at @p: per-page weights for the
 * step's hit ratio (not needed when counts_itself). */
void pw_touch(struct pw *w, const void *p, size_t bytes);
void pw_step(struct pw *w);
void pw_end(struct pw *w);

/* Extra result fields, printf-style, e.g. pw_field(w, "\"oracle\":%.4f", x). */
void pw_field(struct pw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pw_fail(struct pw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * The workload's own check of its result: @ok and what was compared.
 * A failure before it (the policy did not start, say) stays the result:
 * the check is added to its message, and the run is not ok.
 */
void pw_verify(struct pw *w, bool ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The libcxlpool pool of this run: the local limit is its budget. */
struct cxlpool *pw_pool(struct pw *w);

/* Pin the calling thread to CPU @cpu (0 computes, 1 helps). */
void pw_pin(int cpu);
double pw_now_ms(void);

/* Workloads: fill in w->checksum/ok/verify; 0 or -1 on a setup error. */
struct pw_workload {
	const char *name;
	const char *what;
	/* how to read the policies' figures on it: what tiering can gain */
	const char *reading;
	int (*run)(struct pw *w);
};

int wl_layers(struct pw *w);
int wl_kv(struct pw *w);
int wl_embed(struct pw *w);
int wl_adam(struct pw *w);
int wl_gups(struct pw *w);

#endif
