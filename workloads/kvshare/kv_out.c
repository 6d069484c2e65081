// SPDX-License-Identifier: MIT
/*
 * Each role's one JSON line (workloads/README.md). The decode line's
 * "paths" are the figures; "shared_protocol" tells the runner to check the
 * timing model's stale reads of this run (docs/kv-share.md).
 */
#include <stdio.h>

#include "kv.h"
#include "wl.h"

void kv_print_prefill(const struct kv_opts *o, const struct kv_prefill_result *r)
{
	const struct kv_geometry *g = &o->g;

	printf("{\"workload\":\"%s\",\"role\":\"prefill\",\"host\":\"%s\",\"dax\":\"%s\","
	       "\"round\":%llu,\"sessions\":%u,\"prefix_tokens\":%u,\"block_tokens\":%u,"
	       "\"kv_per_token\":%llu,\"block_bytes\":%llu,\"bytes_written\":%llu,"
	       "\"lines_written_back\":%llu,\"seconds\":%.6f,\"shared_protocol\":\"%s\","
	       "\"clock\":\"guest\",\"rois\":[{\"id\":%d,\"kind\":\"span\",\"role\":\"prefill\"}]}\n",
	       KV_NAME, wl_host(), o->dax, (unsigned long long)o->round, g->sessions,
	       g->prefix_tokens, g->block_tokens, (unsigned long long)g->kv_per_token,
	       (unsigned long long)kv_block_bytes(g), (unsigned long long)r->bytes_written,
	       (unsigned long long)r->lines_written_back, r->seconds,
	       o->no_flush ? "no-flush" : "flush", KV_ROI_PREFILL);
}

static void path_json(const struct kv_opts *o, const struct kv_path_result *p)
{
	printf("{\"path\":\"%s\",\"engine\":%d,\"requests\":%u,\"hits\":%u,"
	       "\"blocks\":%llu,\"fetched_bytes\":%llu,\"checksum_errors\":%llu,"
	       "\"ttft_median_us\":%.3f,\"ttft_p99_us\":%.3f,\"ttft_mean_us\":%.3f,"
	       "\"fetch_median_us\":%.3f,\"requests_per_s\":%.1f,\"ttft_us\":[",
	       kv_path_name(p->path), o->engine[p->path], p->requests, p->hits,
	       (unsigned long long)p->blocks, (unsigned long long)p->fetched_bytes,
	       (unsigned long long)p->checksum_errors, p->ttft_median_us,
	       p->ttft_p99_us, p->ttft_mean_us, p->fetch_median_us, p->requests_per_s);
	for (uint32_t i = 0; i < p->requests; i++)
		printf("%s%.3f", i ? "," : "", p->ttft_us[i]);
	printf("]}");
}

void kv_print_decode(const struct kv_opts *o, const struct kv_decode_result *r)
{
	const struct kv_header *h = &r->h;

	printf("{\"workload\":\"%s\",\"role\":\"decode\",\"host\":\"%s\",\"dax\":\"%s\","
	       "\"round\":%llu,\"sessions\":%u,\"prefix_tokens\":%u,\"block_tokens\":%u,"
	       "\"kv_per_token\":%llu,\"block_bytes\":%llu,\"prefix_bytes\":%llu,"
	       "\"requests\":%u,\"hit_ratio\":%.4f,\"hits\":%u,\"new_tokens\":%u,"
	       "\"compute_ns_per_token\":%llu,\"shared_protocol\":\"%s\","
	       "\"checksum_errors\":%llu,\"clock\":\"guest\",\"paths\":[",
	       KV_NAME, wl_host(), o->dax, (unsigned long long)o->round, h->sessions,
	       h->prefix_tokens, h->block_tokens, (unsigned long long)h->kv_per_token,
	       (unsigned long long)h->block_bytes,
	       (unsigned long long)h->blocks * h->block_bytes, o->requests,
	       o->hit_ratio, r->hits, o->new_tokens,
	       (unsigned long long)o->compute_ns_per_token,
	       o->no_invalidate ? "no-invalidate" : "flush-invalidate",
	       (unsigned long long)r->checksum_errors);
	for (int i = 0; i < r->npaths; i++) {
		printf(i ? "," : "");
		path_json(o, &r->path[i]);
	}
	printf("],\"rois\":[");
	for (int i = 0; i < r->npaths; i++)
		printf("%s{\"id\":%d,\"kind\":\"span\",\"path\":\"%s\"}", i ? "," : "",
		       KV_ROI_PATH + r->path[i].path, kv_path_name(r->path[i].path));
	printf("]}\n");
}
