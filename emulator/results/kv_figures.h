/* SPDX-License-Identifier: MIT */
/*
 * A KV-share decode run's figures (cxlbed-kvshare --decode, summary.json
 * workloads[].output.paths[], docs/kv-share.md) and what they give beside
 * the published results: each path's fetch time per hit, and CXL's lead
 * over RDMA in TTFT and throughput.
 */
#ifndef CXLBED_KV_FIGURES_H
#define CXLBED_KV_FIGURES_H

#include <json-glib/json-glib.h>
#include <stdbool.h>

#include "results/result.h"

/* One path of a decode run. */
struct kv_path_fig {
	const char *path;		/* "cxl-dma", "rdma-200g", ... */
	double ttft_median_us, ttft_p99_us, ttft_mean_us;
	double requests_per_s;
	gint64 requests, hits, checksum_errors;
	double fetch_us;		/* a hit's fetch alone (median; the recompute
					 * path: the prefix's compute); < 0: none */
};

/* A published comparison, and how the run's own figure stands to it. */
struct kv_published {
	const char *what;		/* the result in words, with its source */
	const char *cxl, *other;	/* the run's paths it compares */
	bool throughput;		/* throughput ratio, else TTFT's */
	double x;			/* the published ratio (other / CXL) */
};
extern const struct kv_published kv_published[];
extern const int kv_npublished;

/* @w's decode output, or NULL for any other workload. */
JsonObject *kv_decode_output(const struct res_workload *w);
/* Path @name of @out into @f; false when the run has no such path. */
bool kv_path_fig(JsonObject *out, const char *name, struct kv_path_fig *f);
/*
 * CXL's lead over @other: @other's median TTFT over @cxl's (or @cxl's
 * throughput over @other's). < 0 when either is missing.
 */
double kv_lead(JsonObject *out, const char *cxl, const char *other, bool throughput);

/*
 * The KV-share figures of a run as named columns, for a sweep's merged
 * table: "WORKLOAD.PATH.FIGURE" with FIGURE one of ttft_median_us,
 * ttft_p99_us, requests_per_s, for each decode workload and path. Names
 * not yet in @names are appended, in the run's order.
 */
void kv_columns(const struct run_result *r, GPtrArray *names);
/* Column @name's value in @r; false when the run does not have it. */
bool kv_column(const struct run_result *r, const char *name, double *v);

#endif
