// SPDX-License-Identifier: MIT
/*
 * cxlbed-kvshare --prefill|--decode --dax daxN.M [options]: a KV cache
 * shared between a prefill host and a decode host through a CXL pool,
 * against RDMA and recompute (docs/kv-share.md). One JSON line on stdout;
 * exit 1 when a block's checksum was wrong, 2 on bad usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cxlbed-roi.h"
#include "kv.h"
#include "wl.h"

static __attribute__((noreturn)) void usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: cxlbed-kvshare --prefill|--decode --dax daxN.M [--round N] [options]\n"
		"  prefill: [--sessions N] [--prefix-tokens N] [--block-tokens N]\n"
		"           [--kv-per-token SIZE] [--no-flush]\n"
		"  decode:  [--requests N] [--hit-ratio F] [--new-tokens N]\n"
		"           [--compute-ns-per-token NS] [--paths LIST] [--engines LIST]\n"
		"           [--no-invalidate]\n"
		"  paths: cxl-dma cxl-load rdma-200g rdma-100g recompute (comma-separated);\n"
		"  engines: the host's copy engines in the timing config's order (its\n"
		"  nics, then dma), default rdma-200g,rdma-100g,dma\n");
	exit(rc);
}

static uint64_t number(const char *opt, const char *s, uint64_t lo, uint64_t hi,
		       bool size)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (size && *end && !end[1])
		switch (*end++) {
		case 'K': case 'k': v <<= 10; break;
		case 'M': case 'm': v <<= 20; break;
		case 'G': case 'g': v <<= 30; break;
		default: end--; break;
		}
	if (end == s || *end || *s == '-' || v < lo || v > hi)
		wl_fail(KV_NAME, "%s wants %s %llu..%llu, not '%s'", opt,
			size ? "a size" : "a number", (unsigned long long)lo,
			(unsigned long long)hi, s);
	return v;
}

/* Each name of a comma-separated @list through @each(name, position). */
static void each_name(const char *opt, const char *list,
		      void (*each)(struct kv_opts *, const char *, const char *, int),
		      struct kv_opts *o)
{
	char *copy = strdup(list), *save = NULL;
	int k = 0;

	for (char *n = strtok_r(copy, ",", &save); n; n = strtok_r(NULL, ",", &save))
		each(o, opt, n, k++);
	free(copy);
}

static void add_path(struct kv_opts *o, const char *opt, const char *name, int k)
{
	int p = kv_path_find(name);

	(void)k;
	if (p < 0)
		wl_fail(KV_NAME, "%s: no path '%s'", opt, name);
	o->paths |= 1u << p;
}

static void add_engine(struct kv_opts *o, const char *opt, const char *name, int k)
{
	bool known = false;

	for (int p = 0; p < KV_PATHS; p++)
		if (kv_path_engine(p) && !strcmp(kv_path_engine(p), name)) {
			o->engine[p] = k;
			known = true;
		}
	if (!known)
		wl_fail(KV_NAME, "%s: no engine '%s' (rdma-200g, rdma-100g, dma)", opt, name);
}

void kv_parse(int argc, char **argv, struct kv_opts *o)
{
	static const struct option opts[] = {
		{ "prefill", no_argument, 0, 'P' }, { "decode", no_argument, 0, 'D' },
		{ "dax", required_argument, 0, 'x' }, { "round", required_argument, 0, 'r' },
		{ "sessions", required_argument, 0, 's' },
		{ "prefix-tokens", required_argument, 0, 't' },
		{ "block-tokens", required_argument, 0, 'b' },
		{ "kv-per-token", required_argument, 0, 'k' },
		{ "no-flush", no_argument, 0, 'F' },
		{ "requests", required_argument, 0, 'q' },
		{ "hit-ratio", required_argument, 0, 'h' },
		{ "new-tokens", required_argument, 0, 'n' },
		{ "compute-ns-per-token", required_argument, 0, 'c' },
		{ "paths", required_argument, 0, 'p' },
		{ "engines", required_argument, 0, 'e' },
		{ "no-invalidate", no_argument, 0, 'I' },
		{ "help", no_argument, 0, 'H' }, { 0, 0, 0, 0 },
	};
	const char *paths = "cxl-dma,cxl-load,rdma-200g,rdma-100g,recompute";
	const char *engines = "rdma-200g,rdma-100g,dma";
	int c, roles = 0;
	char *end;
	const char *why;

	*o = (struct kv_opts){
		.round = 1, .g = { 8, 64, 16, 16384 }, .requests = 16,
		.hit_ratio = 0.75, .new_tokens = 16, .compute_ns_per_token = 2000,
	};
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1)
		switch (c) {
		case 'P': o->prefill = true; roles++; break;
		case 'D': o->prefill = false; roles++; break;
		case 'x': o->dax = optarg; break;
		case 'r': o->round = number("--round", optarg, 1, 1ull << 32, false); break;
		case 's': o->g.sessions = number("--sessions", optarg, 1, KV_MAX_SESSIONS, false); break;
		case 't': o->g.prefix_tokens = number("--prefix-tokens", optarg, 1, 1 << 20, false); break;
		case 'b': o->g.block_tokens = number("--block-tokens", optarg, 1, 1 << 20, false); break;
		case 'k': o->g.kv_per_token = number("--kv-per-token", optarg, 64, 64ull << 20, true); break;
		case 'F': o->no_flush = true; break;
		case 'q': o->requests = number("--requests", optarg, 1, KV_MAX_REQUESTS, false); break;
		case 'h':
			o->hit_ratio = strtod(optarg, &end);
			if (end == optarg || *end || !(o->hit_ratio >= 0 && o->hit_ratio <= 1))
				wl_fail(KV_NAME, "--hit-ratio wants 0..1, not '%s'", optarg);
			break;
		case 'n': o->new_tokens = number("--new-tokens", optarg, 0, 1 << 20, false); break;
		case 'c': o->compute_ns_per_token = number("--compute-ns-per-token", optarg, 0,
							   1000000000ull, false); break;
		case 'p': paths = optarg; break;
		case 'e': engines = optarg; break;
		case 'I': o->no_invalidate = true; break;
		case 'H': usage(0);
		default: usage(2);
		}
	if (optind < argc || roles != 1 || !o->dax)
		wl_fail(KV_NAME, "one of --prefill or --decode, and --dax daxN.M, are needed");
	for (int p = 0; p < KV_PATHS; p++)
		o->engine[p] = -1;
	each_name("--paths", paths, add_path, o);
	each_name("--engines", engines, add_engine, o);
	for (int p = 0; p < KV_PATHS; p++)
		if ((o->paths & (1u << p)) && kv_path_copies(p) && o->engine[p] < 0)
			wl_fail(KV_NAME, "--paths %s needs engine %s in --engines",
				kv_path_name(p), kv_path_engine(p));
	why = o->prefill ? kv_geometry_check(&o->g) : NULL;
	if (why)
		wl_fail(KV_NAME, "%s", why);
}

int main(int argc, char **argv)
{
	struct kv_opts o;

	cxlbed_roi_arm();
	kv_parse(argc, argv, &o);
	if (o.prefill) {
		struct kv_prefill_result r;

		kv_prefill(&o, &r);
		kv_print_prefill(&o, &r);
		cxlbed_roi_dump();
		return 0;
	}
	struct kv_decode_result r;

	kv_decode(&o, &r);
	kv_print_decode(&o, &r);
	/* the timing report, stale reads included, as this run left it */
	cxlbed_roi_dump();
	return r.checksum_errors ? 1 : 0;
}
