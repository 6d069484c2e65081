/* SPDX-License-Identifier: MIT */
/*
 * cxlbed-kvshare: a prefill host writes sessions' KV blocks into a shared
 * pool, a decode host serves requests whose prefixes hit that cache over
 * each path in turn (docs/kv-share.md). The options, each role's results
 * and the roles themselves.
 */
#ifndef CXLBED_KV_H
#define CXLBED_KV_H

#include <stdbool.h>
#include <stdint.h>

#include "kv_layout.h"
#include "kv_paths.h"

#define KV_NAME "kvshare"
#define KV_MAX_REQUESTS 4096

/* ROI ids (workloads/README.md): one span per decode path, one prefill */
#define KV_ROI_PREFILL	3600
#define KV_ROI_PATH	3500	/* + enum kv_path */

struct kv_opts {
	bool prefill;			/* else decode */
	const char *dax;
	uint64_t round;
	struct kv_geometry g;		/* prefill: what to write */
	bool no_flush;			/* prefill: skip the write-back */
	bool no_invalidate;		/* decode: skip the invalidate */
	uint32_t requests;
	double hit_ratio;
	uint32_t new_tokens;
	uint64_t compute_ns_per_token;	/* modeled compute (cxlbed_busy_ns) */
	unsigned int paths;		/* bit per enum kv_path */
	int engine[KV_PATHS];		/* the host's engine index; -1 none */
};

struct kv_path_result {
	enum kv_path path;
	uint32_t requests, hits;
	uint64_t fetched_bytes, blocks;
	uint64_t checksum_errors;
	double ttft_median_us, ttft_p99_us, ttft_mean_us;
	double fetch_median_us;		/* a hit's fetch alone (0: no hit) */
	double requests_per_s;		/* one request at a time: 1 / mean TTFT */
	double *ttft_us;		/* each request's, in order */
};

struct kv_decode_result {
	struct kv_header h;		/* as read from the store */
	uint32_t hits;
	int npaths;
	struct kv_path_result path[KV_PATHS];
	uint64_t checksum_errors;
};

struct kv_prefill_result {
	uint64_t bytes_written, lines_written_back;
	double seconds;			/* guest clock */
};

void kv_parse(int argc, char **argv, struct kv_opts *o);
void kv_prefill(const struct kv_opts *o, struct kv_prefill_result *r);
void kv_decode(const struct kv_opts *o, struct kv_decode_result *r);
/* Does request @i hit the shared cache? Exactly round(n x @ratio) of the
 * first n do, spread evenly. */
bool kv_request_hits(double ratio, uint32_t i);
/* One JSON line on stdout for each role. */
void kv_print_prefill(const struct kv_opts *o, const struct kv_prefill_result *r);
void kv_print_decode(const struct kv_opts *o, const struct kv_decode_result *r);
/* The store mapped shared, not touched (a read would be a stale one). */
void *kv_map(const char *dax, uint64_t bytes);
/* CLOCK_MONOTONIC in ns: modeled time under cxlbed's guest clock. */
uint64_t kv_now_ns(void);

#endif
