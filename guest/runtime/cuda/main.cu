/* SPDX-License-Identifier: MIT */
/*
 * cxlbed-gpu: the tiering runtime on a real GPU. Runs one workload (or
 * all) in every mode and prints one JSON document on stdout; progress and
 * check lines go to stderr. `cxlbed gpu` runs this and writes the results.
 *
 * Exit: 0 every check passed, 1 a check or the run failed, 2 bad usage,
 * 3 no CUDA GPU.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

/* Far-tier presets: the added cost of the fabric on top of PCIe.
 * CXL: a x8 CXL 2.0 memory expander, ~0.5 us, ~32 GB/s.
 * RDMA: one 100 Gb/s NIC, ~3 us per one-sided read, ~12.5 GB/s. */
static const struct far_cfg presets[] = {
	{ "host", RT_TIER_HOST, { 0, 0 } },
	{ "cxl", RT_TIER_FAR, { 500, 32 } },
	{ "rdma", RT_TIER_FAR, { 3000, 12.5 } },
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: cxlbed-gpu WORKLOAD [options]\n"
"  WORKLOAD: layers | kv | adam | bandwidth | all | probe\n"
"            (probe: print the device and exit 0, or exit 3 without a GPU)\n"
"  --far-latency NS     added latency per far-tier transfer (custom far tier)\n"
"  --far-bw GBPS        far-tier bandwidth cap in GB/s (custom far tier)\n"
"  --hbm-budget SIZE    HBM for staging slots (e.g. 512M, 2G); default half\n"
"                       the offloaded data (2x oversubscription)\n"
"  --window N --slots N lookahead depth and slot count (default: from budget)\n"
"  --layers N --dim N --batch N --sweeps N        layer sweep (24, 4096, 256, 3)\n"
"  --sessions N --context TOKENS --page TOKENS    kv (8, 32768, 1024)\n"
"  --params N --chunk N                           adam (64M, 4M)\n"
"  --steps N            decode steps (kv) / optimizer steps (adam), default 3\n"
"  --no-um              skip the Unified Memory baseline\n"
"  --quick              small sizes, for a smoke test\n"
"  --device N           CUDA device (0)\n");
}

static int parse_size(const char *s, size_t *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -1;
	switch (*end) {
	case 'k': case 'K': v *= 1 << 10; end++; break;
	case 'm': case 'M': v *= 1 << 20; end++; break;
	case 'g': case 'G': v *= 1 << 30; end++; break;
	case 't': case 'T': v *= (double)(1ull << 40); end++; break;
	}
	if (*end == 'i' || *end == 'B')
		end += *end == 'i' ? (end[1] == 'B' ? 2 : 1) : 1;
	if (*end)
		return -1;
	*out = (size_t)v;
	return 0;
}

static int parse_long(const char *s, long *out)
{
	size_t v;

	if (parse_size(s, &v) || v == 0)
		return -1;
	*out = (long)v;
	return 0;
}

static void device_json(struct jw *j, int dev)
{
	struct cudaDeviceProp p;
	int rt = 0, drv = 0;
	size_t fr = 0, tot = 0;

	CK(cudaGetDeviceProperties(&p, dev));
	cudaRuntimeGetVersion(&rt);
	cudaDriverGetVersion(&drv);
	cudaMemGetInfo(&fr, &tot);
	jw_obj(j, "device");
	jw_int(j, "index", dev);
	jw_str(j, "name", p.name);
	jw_int(j, "cc_major", p.major);
	jw_int(j, "cc_minor", p.minor);
	jw_int(j, "hbm_bytes", (long long)tot);
	jw_int(j, "hbm_free_bytes", (long long)fr);
	jw_int(j, "sms", p.multiProcessorCount);
	jw_int(j, "async_engines", p.asyncEngineCount);
	jw_int(j, "cuda_runtime", rt);
	jw_int(j, "cuda_driver", drv);
	jw_end_obj(j);
}

int main(int argc, char **argv)
{
	enum { O_LAT = 256, O_BW, O_BUDGET, O_WINDOW, O_SLOTS, O_LAYERS, O_DIM,
	       O_BATCH, O_SWEEPS, O_SESS, O_CTX, O_PAGE, O_PARAMS, O_CHUNK,
	       O_STEPS, O_NOUM, O_QUICK, O_DEV, O_HELP };
	static const struct option lo[] = {
		{ "far-latency", 1, 0, O_LAT }, { "far-bw", 1, 0, O_BW },
		{ "hbm-budget", 1, 0, O_BUDGET }, { "window", 1, 0, O_WINDOW },
		{ "slots", 1, 0, O_SLOTS }, { "layers", 1, 0, O_LAYERS },
		{ "dim", 1, 0, O_DIM }, { "batch", 1, 0, O_BATCH },
		{ "sweeps", 1, 0, O_SWEEPS }, { "sessions", 1, 0, O_SESS },
		{ "context", 1, 0, O_CTX }, { "page", 1, 0, O_PAGE },
		{ "params", 1, 0, O_PARAMS }, { "chunk", 1, 0, O_CHUNK },
		{ "steps", 1, 0, O_STEPS }, { "no-um", 0, 0, O_NOUM },
		{ "quick", 0, 0, O_QUICK }, { "device", 1, 0, O_DEV },
		{ "help", 0, 0, O_HELP }, { 0, 0, 0, 0 },
	};
	struct gpu_opts o = {};
	struct far_cfg custom = { "custom", RT_TIER_FAR, { 0, 0 } };
	bool have_custom = false, quick = false;
	const char *wl;
	long v;
	int c, ndev = 0, rc = 0;
	struct rt_trace tr;
	struct jw j;
	cudaError_t e;

	o.layers = 24; o.dim = 4096; o.batch = 256; o.sweeps = 3;
	o.sessions = 8; o.context = 32768; o.page = 1024;
	o.params = 64l << 20; o.chunk = 4l << 20; o.steps = 3;

	/* --quick sets smaller defaults; explicit options still win. */
	for (int i = 1; i < argc; i++)
		quick |= !strcmp(argv[i], "--quick");
	if (quick) {
		o.layers = 8; o.dim = 1024; o.batch = 128; o.sweeps = 2;
		o.sessions = 2; o.context = 4096; o.page = 512;
		o.params = 4l << 20; o.chunk = 1l << 20; o.steps = 2;
	}

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		size_t sz;

		switch (c) {
		case O_LAT:
			if (parse_size(optarg, &sz))
				goto bad;
			custom.p.latency_ns = sz;
			have_custom = true;
			break;
		case O_BW:
			custom.p.gbps = strtod(optarg, NULL);
			if (custom.p.gbps <= 0)
				goto bad;
			have_custom = true;
			break;
		case O_BUDGET:
			if (parse_size(optarg, &o.hbm_budget) || !o.hbm_budget)
				goto bad;
			break;
		case O_NOUM: o.no_um = true; break;
		case O_QUICK: break;
		case O_HELP: case 'h': usage(stdout); return 0;
		case '?': usage(stderr); return 2;
		default:
			if (parse_long(optarg, &v))
				goto bad;
			switch (c) {
			case O_WINDOW: o.window = (int)v; break;
			case O_SLOTS: o.slots = (int)v; break;
			case O_LAYERS: o.layers = (int)v; break;
			case O_DIM: o.dim = (int)v; break;
			case O_BATCH: o.batch = (int)v; break;
			case O_SWEEPS: o.sweeps = (int)v; break;
			case O_SESS: o.sessions = (int)v; break;
			case O_CTX: o.context = (int)v; break;
			case O_PAGE: o.page = (int)v; break;
			case O_PARAMS: o.params = v; break;
			case O_CHUNK: o.chunk = v; break;
			case O_STEPS: o.steps = (int)v; break;
			case O_DEV: o.dev = (int)v; break;
			}
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	wl = argv[optind];
	if (strcmp(wl, "layers") && strcmp(wl, "kv") && strcmp(wl, "adam") &&
	    strcmp(wl, "bandwidth") && strcmp(wl, "all") && strcmp(wl, "probe")) {
		fprintf(stderr, "cxlbed-gpu: unknown workload '%s' (layers, kv, adam, bandwidth, all)\n", wl);
		return 2;
	}
	if (o.dim % 64 || o.batch % 64 || o.context % o.page) {
		fprintf(stderr, "cxlbed-gpu: --dim and --batch must be multiples of 64, --context of --page\n");
		return 2;
	}

	e = cudaGetDeviceCount(&ndev);
	if (e != cudaSuccess || ndev <= o.dev) {
		fprintf(stderr, "cxlbed-gpu: no usable CUDA GPU (%s)\n",
			e != cudaSuccess ? cudaGetErrorString(e) : "device index out of range");
		return 3;
	}
	CK(cudaSetDevice(o.dev));
	if (!strcmp(wl, "probe")) {
		jw_begin(&j, stdout);
		jw_obj(&j, NULL);
		device_json(&j, o.dev);
		jw_end_obj(&j);
		fputc('\n', stdout);
		return 0;
	}

	/* Far tiers: pinned host, then custom (if given), CXL, RDMA. */
	o.fars[o.nfars++] = presets[0];
	if (have_custom)
		o.fars[o.nfars++] = custom;
	o.fars[o.nfars++] = presets[1];
	o.fars[o.nfars++] = presets[2];
	o.primary_far = 1;

	rt_trace_init(&tr, 1 << 16);
	jw_begin(&j, stdout);
	jw_obj(&j, NULL);
	jw_str(&j, "tool", "cxlbed-gpu");
	jw_int(&j, "version", 1);
	jw_str(&j, "workload", wl);
	jw_str(&j, "clock", "host wall time (CLOCK_MONOTONIC) around GPU-synchronised passes");
	device_json(&j, o.dev);
	jw_arr(&j, "far_tiers");
	for (int i = 0; i < o.nfars; i++) {
		jw_obj(&j, NULL);
		jw_str(&j, "name", o.fars[i].name);
		jw_bool(&j, "shaped", o.fars[i].tier == RT_TIER_FAR);
		jw_num(&j, "latency_ns", (double)o.fars[i].p.latency_ns);
		jw_num(&j, "gbps", o.fars[i].p.gbps);
		jw_end_obj(&j);
	}
	jw_end_arr(&j);
	jw_str(&j, "primary_far", o.fars[o.primary_far].name);

	jw_arr(&j, "workloads");
	{
		bool all = !strcmp(wl, "all");
		struct rt_trace *t = &tr;	/* the first computing workload */

		if (!rc && (all || !strcmp(wl, "bandwidth")))
			rc = wl_bandwidth(&o, &j);
		if (!rc && (all || !strcmp(wl, "layers"))) {
			rc = wl_layers(&o, &j, t);
			t = NULL;
		}
		if (!rc && (all || !strcmp(wl, "kv"))) {
			rc = wl_kv(&o, &j, t);
			t = NULL;
		}
		if (!rc && (all || !strcmp(wl, "adam")))
			rc = wl_adam(&o, &j, t);
	}
	jw_end_arr(&j);
	if (rc)
		check_add("run completed", false, "a workload could not be set up; see stderr");
	targets_json(&j);
	checks_json(&j);
	jw_obj(&j, "trace");
	jw_str(&j, "run", "tiered pass of the first computing workload, primary far tier");
	jw_int(&j, "dropped", (long long)tr.dropped);
	jw_raw_begin(&j, "events");
	rt_trace_json(&tr, stdout);
	jw_end_obj(&j);
	jw_str(&j, "verdict", checks_all_pass() ? "pass" : "fail");
	jw_end_obj(&j);
	fputc('\n', stdout);
	rt_trace_fini(&tr);
	return checks_all_pass() ? 0 : 1;
bad:
	fprintf(stderr, "cxlbed-gpu: bad value '%s' for --%s\n", optarg,
		lo[c - O_LAT].name);
	return 2;
}
