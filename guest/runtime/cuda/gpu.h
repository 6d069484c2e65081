/* SPDX-License-Identifier: MIT */
/*
 * Shared declarations for the CUDA side of the tiering runtime: the CUDA
 * backend, compute-span timing, the workloads and the JSON result writer.
 * The core is C; it is pulled in with C linkage here.
 */
#ifndef RT_GPU_H
#define RT_GPU_H

#include <cuda_runtime.h>
#include <stdio.h>

extern "C" {
#include "runtime.h"
}

/* Abort on a CUDA error: the GPU binary has no way to recover mid-run. */
#define CK(call) gpu_check((call), #call, __FILE__, __LINE__)
void gpu_check(cudaError_t e, const char *what, const char *file, int line);

/* ---- backend ---- */
struct cuda_be {
	int dev;
	cudaStream_t compute;		/* kernels */
	cudaStream_t lane[RT_MAX_LANES];	/* copy-engine streams */
};
int cuda_backend_init(struct rt_backend *be, struct cuda_be *cb, int dev,
		      size_t fast_budget);
void cuda_backend_fini(struct rt_backend *be);

/* ---- compute spans on the timeline ---- */
struct spans {
	cudaEvent_t base;
	uint64_t base_ns;		/* host clock when base completed */
	cudaEvent_t *ev;		/* pairs */
	uint32_t *block;
	int n, cap;
};
void spans_init(struct spans *s, int cap, cudaStream_t st);
void spans_begin(struct spans *s, cudaStream_t st, uint32_t block);
void spans_end(struct spans *s, cudaStream_t st);
/* After the stream is idle: add the spans to @t as COMPUTE events. */
void spans_flush(struct spans *s, struct rt_trace *t);
void spans_fini(struct spans *s);

/* ---- options shared by all workloads ---- */
struct far_cfg {
	const char *name;		/* host, cxl, rdma, custom */
	enum rt_tier_kind tier;		/* HOST (unshaped) or FAR */
	struct shp_params p;
};

struct gpu_opts {
	int dev;
	size_t hbm_budget;		/* 0: half the offloaded data */
	struct far_cfg fars[4];
	int nfars;
	int primary_far;		/* index whose tiered run is traced */
	int window, slots;		/* 0: derived from the budget */
	int sweeps;
	int layers, dim, batch;		/* layer sweep */
	int sessions, context, page;	/* kv */
	long params, chunk;		/* adam */
	int steps;
	bool no_um;
};

/* ---- JSON writer (to stdout) ---- */
struct jw {
	FILE *f;
	int depth;
	bool first[32];
};
void jw_begin(struct jw *j, FILE *f);
void jw_obj(struct jw *j, const char *key);	/* key NULL inside arrays */
void jw_arr(struct jw *j, const char *key);
void jw_end_obj(struct jw *j);
void jw_end_arr(struct jw *j);
void jw_str(struct jw *j, const char *key, const char *v);
void jw_num(struct jw *j, const char *key, double v);
void jw_int(struct jw *j, const char *key, long long v);
void jw_bool(struct jw *j, const char *key, bool v);
void jw_raw_begin(struct jw *j, const char *key);	/* caller prints value */

/* A check on a workload's result, collected for the summary. */
void check_add(const char *name, bool pass, const char *fmt, ...);
void checks_json(struct jw *j);
bool checks_all_pass(void);

/* One timed mode of a workload. */
struct mode_result {
	char mode[48];
	char far[16];
	double ms;			/* wall time of the measured part */
	bool have_stats;
	struct rt_stats st;
	double transfer_ms;
	double host_overlap_pct;	/* from the runtime's stall accounting */
	int slots, window;
};
void mode_json(struct jw *j, const struct mode_result *m);
void stats_from_rt(struct mode_result *m, struct runtime *rt);

/* ---- workloads: each writes one JSON object under "workloads" ---- */
int wl_layers(const struct gpu_opts *o, struct jw *j, struct rt_trace *tr);
int wl_kv(const struct gpu_opts *o, struct jw *j, struct rt_trace *tr);
int wl_adam(const struct gpu_opts *o, struct jw *j, struct rt_trace *tr);
int wl_bandwidth(const struct gpu_opts *o, struct jw *j);

/* ---- one runtime-driven pass over a declared access stream ---- */
/* Called for stream position @i (block @id, resident at @blk) to queue
 * the compute that uses it on @s. */
typedef void (*compute_fn)(void *ctx, size_t i, uint32_t id, void *blk,
			   cudaStream_t s);

struct drive {
	const struct gpu_opts *o;
	const struct far_cfg *far;
	int slots, window, fetch_lanes;
	size_t slot_size;
	void *const *homes;		/* home copy of each block */
	const size_t *sizes;
	uint32_t nblocks;
	const uint32_t *stream;
	size_t len;
	bool dirty;			/* compute writes the blocks */
	compute_fn fn;			/* NULL: transfer only */
	void *ctx;
	struct rt_trace *trace;		/* non-NULL: record the timeline */
};
/* Runs the pass; fills @m (ms = wall time from first access until compute
 * and write-back are done). Returns 0, or -1 if the runtime could not be
 * set up (budget, memory). */
int drive_run(const struct drive *d, const char *mode, struct mode_result *m);

/* For every far tier: transfer only, tiered (window @window, traced on
 * the primary tier) and demand fetch, appended to @m. @reset runs before
 * each computing pass, @verify after it with a label like "tiered-cxl". */
typedef void (*hook_fn)(void *ctx, const char *label);
int far_modes(const struct gpu_opts *o, struct drive *d, int window,
	      hook_fn reset, hook_fn verify, struct rt_trace *tr,
	      struct mode_result *m, int *nm);

/* The same pass with every block already resident at @ptrs[id] (all-HBM
 * or compute-only when all ids share one buffer); returns wall ms. */
double resident_pass(const uint32_t *stream, size_t len, void *const *ptrs,
		     compute_fn fn, void *ctx, cudaStream_t s);

/*
 * CUDA Unified Memory baseline (kv, adam; the layer sweep has its own
 * loop). um_advise_dev() advises a managed range for device @dev:
 * AccessedBy, plus ReadMostly for data the kernels only read. um_pass()
 * is resident_pass() on managed blocks at @ptrs[id] (@sizes[id] bytes):
 * the blocks of stream positions i+1..i+@window (the lookahead window the
 * tiered run uses) are prefetched to @dev on a side stream, in stream
 * order, and the compute for position i waits for its own prefetch.
 * Returns wall ms.
 */
void um_advise_dev(void *p, size_t n, int dev, bool read_mostly);
double um_pass(const uint32_t *stream, size_t len, void *const *ptrs,
	       const size_t *sizes, int window, int dev, compute_fn fn,
	       void *ctx, cudaStream_t s);

/* "summary" array: per far tier, tiered vs bound and overlap; with
 * @um_ms > 0 also speedup_vs_um. The ">= 2x faster than UM" target is the
 * layer sweep's; other workloads report the speedup as an "info" target. */
void far_summary_json(struct jw *j, const char *wl, const struct gpu_opts *o,
		      const struct mode_result *m, int nm, double compute_ms,
		      double allhbm_ms, double um_ms);

/* A performance target (the "done" figures): reported with the
 * result but not part of the verdict, which is about correctness. @cmp is
 * ">=", "<=" or "info". */
void target_add(const char *name, double value, const char *cmp, double goal,
		const char *fmt, ...);
void targets_json(struct jw *j);

/* Overlap share of transfer time hidden behind compute, from wall times:
 * 100 * (1 - (total - compute) / transfer), clamped to [0, 100]. */
double overlap_pct(double total_ms, double compute_ms, double transfer_ms);

/* Occupy HBM so that only @keep bytes stay free (UM oversubscription). */
void *ballast_take(size_t keep);
void ballast_drop(void *p);

double now_ms(void);

#endif
