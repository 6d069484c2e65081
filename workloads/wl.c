// SPDX-License-Identifier: MIT
/*
 * Shared workload helpers. NUMA placement uses the mbind/move_pages system
 * calls directly, so the guest image needs no libnuma.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "cxlbed-roi.h"
#include "cycle.h"
#include "pass.h"
#include "wl.h"

#define MPOL_BIND 2
#define MPOL_MF_STRICT (1 << 0)
#define MAX_NODES 64

void wl_fail(const char *name, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\n", name, msg);
	for (char *c = msg; *c; c++)	/* keep the JSON line valid */
		if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20)
			*c = '\'';
	printf("{\"workload\":\"%s\",\"error\":\"%s\"}\n", name, msg);
	exit(2);
}

/* Regions start at once unless --start tick (see wl_tick_start). */
static int start_now = 1;
/* --together N: hosts whose workloads start with this one (wl_tick_start). */
static int together;

static size_t parse_size(const char *name, const char *s)
{
	char *end;
	double v = strtod(s, &end);

	switch (*end) {
	case 'k': case 'K': v *= 1024; end++; break;
	case 'm': case 'M': v *= 1024 * 1024; end++; break;
	case 'g': case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
	}
	if (*end || v <= 0)
		wl_fail(name, "bad size '%s'", s);
	return (size_t)v;
}

static int parse_int(const char *name, const char *opt, const char *s,
		     int lo, int hi)
{
	char *end;
	long v = strtol(s, &end, 0);

	if (*end || v < lo || v > hi)
		wl_fail(name, "--%s wants %d..%d, not '%s'", opt, lo, hi, s);
	return (int)v;
}

static unsigned int parse_mix(const char *name, const char *s)
{
	if (!strcmp(s, "all"))
		return (1u << WL_NKINDS) - 1;
	for (int k = 0; k < WL_NKINDS; k++)
		if (!strcmp(s, wl_kind_label(k)))
			return 1u << k;
	wl_fail(name, "--mix wants read|write|2:1|1:1|all, not '%s'", s);
}

static int parse_chain(const char *name, const char *s)
{
	static const char *const modes[] = {
		[WL_CHAIN_STORED] = "stored", [WL_CHAIN_COMPUTED] = "computed",
		[WL_CHAIN_AUTO] = "auto",
	};

	for (int m = 0; m < (int)(sizeof(modes) / sizeof(modes[0])); m++)
		if (!strcmp(s, modes[m]))
			return m;
	wl_fail(name, "--chain wants stored|computed|auto, not '%s'", s);
}

static __attribute__((noreturn)) void usage(const char *name, unsigned int accept)
{
	printf("usage: cxlbed-%s [--node N] [--bytes SIZE] [--evict SIZE] [--start tick|now] [--together N]%s%s%s%s%s%s%s%s%s%s%s\n"
	       "Prints one JSON object line with the result.\n", name,
	       accept & WL_OPT_ACCESSES ? " [--accesses N]" : "",
	       accept & WL_OPT_SECONDS ? " [--seconds S]" : "",
	       accept & WL_OPT_THREADS ? " [--threads N]" : "",
	       accept & WL_OPT_MIX ? " [--mix read|write|2:1|1:1|all]" : "",
	       accept & WL_OPT_PATTERN ? " [--pattern seq|random]" : "",
	       accept & WL_OPT_PASSES ? " [--passes N]" : "",
	       accept & WL_OPT_LOAD ?
			" [--load-threads N] [--stream-bytes SIZE] [--neighbour HOST]" : "",
	       accept & WL_OPT_DAX ? " [--dax daxN.M]" : "",
	       accept & WL_OPT_CHAIN ? " [--chain stored|computed|auto]" : "",
	       accept & WL_OPT_MARKERS ? " [--no-markers]" : "",
	       accept & WL_OPT_SLEEP ? " [--sleep S]" : "");
	if (accept & WL_OPT_CHAIN)
		printf("--chain: how the chase finds its next line. stored: pointers kept\n"
		       "  in the lines (default without --dax). computed: from a counter,\n"
		       "  each load still waiting for the one before, whatever memory holds:\n"
		       "  for memory that keeps no data, as QEMU 10 does behind a second\n"
		       "  switch level (timing-model figures only). auto (default with\n"
		       "  --dax): stored if a sample of it reads back, else computed.\n");
	printf("--start: now (default): each timed region starts at once; tick:\n"
	       "  half a kernel tick past the next tick boundary, so the kernel's\n"
	       "  periodic work falls at the same offsets in every run (not for\n"
	       "  workloads that must start with another host's, `together = on`).\n"
	       "--together N: each region starts when N hosts' workloads are ready\n"
	       "  to start it, at one modeled time (cxlbed passes it for `together = on`;\n"
	       "  a no-op without the timing plugin).\n");
	if (accept & WL_OPT_MARKERS)
		printf("--no-markers: no region-of-interest markers; the figure is the\n"
		       "  guest's own clock (modeled time with cxlbed's guest clock).\n");
	exit(0);
}

void wl_parse(const char *name, int argc, char **argv, struct wl_opts *o,
	      unsigned int accept)
{
	/* flag: the WL_OPT_ bit an option needs (0: always accepted) */
	static const struct { struct option o; unsigned int flag; } opts[] = {
		{ { "node", required_argument, NULL, 'n' }, 0 },
		{ { "bytes", required_argument, NULL, 'b' }, 0 },
		{ { "evict", required_argument, NULL, 'e' }, 0 },
		{ { "help", no_argument, NULL, 'h' }, 0 },
		{ { "accesses", required_argument, NULL, 'a' }, WL_OPT_ACCESSES },
		{ { "seconds", required_argument, NULL, 's' }, WL_OPT_SECONDS },
		{ { "threads", required_argument, NULL, 't' }, WL_OPT_THREADS },
		{ { "mix", required_argument, NULL, 'm' }, WL_OPT_MIX },
		{ { "pattern", required_argument, NULL, 'p' }, WL_OPT_PATTERN },
		{ { "passes", required_argument, NULL, 'P' }, WL_OPT_PASSES },
		{ { "load-threads", required_argument, NULL, 'l' }, WL_OPT_LOAD },
		{ { "stream-bytes", required_argument, NULL, 'S' }, WL_OPT_LOAD },
		{ { "neighbour", required_argument, NULL, 'N' }, WL_OPT_LOAD },
		{ { "dax", required_argument, NULL, 'd' }, WL_OPT_DAX },
		{ { "chain", required_argument, NULL, 'c' }, WL_OPT_CHAIN },
		{ { "no-markers", no_argument, NULL, 'M' }, WL_OPT_MARKERS },
		{ { "sleep", required_argument, NULL, 'z' }, WL_OPT_SLEEP },
		{ { "start", required_argument, NULL, 'T' }, 0 },
		{ { "together", required_argument, NULL, 'g' }, 0 },
	};
	enum { N = sizeof(opts) / sizeof(opts[0]) };
	struct option longopts[N + 1];
	int c, nl = 0, chain = -1;

	for (int i = 0; i < N; i++)
		if (!opts[i].flag || (accept & opts[i].flag))
			longopts[nl++] = opts[i].o;
	memset(&longopts[nl], 0, sizeof(longopts[nl]));
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': o->node = parse_int(name, "node", optarg, -1, MAX_NODES - 1); break;
		case 'b': o->bytes = parse_size(name, optarg); break;
		case 'e': o->evict = strcmp(optarg, "0") ? parse_size(name, optarg) : 0; break;
		case 'a': o->accesses = strtoull(optarg, NULL, 0); break;
		case 's': o->seconds = strtod(optarg, NULL); break;
		case 't': o->threads = parse_int(name, "threads", optarg, 1, WL_MAX_THREADS); break;
		case 'm': o->kinds = parse_mix(name, optarg); break;
		case 'p':
			if (strcmp(optarg, "seq") && strcmp(optarg, "random"))
				wl_fail(name, "--pattern wants seq|random, not '%s'", optarg);
			o->random = !strcmp(optarg, "random");
			break;
		case 'P': o->passes = parse_int(name, "passes", optarg, 1, 1 << 20); break;
		case 'l': o->load_threads = parse_int(name, "load-threads", optarg, 0, WL_MAX_THREADS - 1); break;
		case 'S': o->stream_bytes = parse_size(name, optarg); break;
		case 'd': o->dax = optarg; break;
		case 'N': o->neighbour = optarg; break;
		case 'c': chain = parse_chain(name, optarg); break;
		case 'M': o->no_markers = 1; break;
		case 'z': o->sleep = strtod(optarg, NULL); break;
		case 'T':
			if (strcmp(optarg, "tick") && strcmp(optarg, "now"))
				wl_fail(name, "--start wants tick|now, not '%s'", optarg);
			start_now = !strcmp(optarg, "now");
			break;
		case 'g': together = parse_int(name, "together", optarg, 2, WL_MAX_TOGETHER); break;
		case 'h': usage(name, accept);
		default:
			wl_fail(name, "bad option (see --help)");
		}
	}
	if (optind < argc)
		wl_fail(name, "unexpected argument '%s'", argv[optind]);
	if (o->dax && o->node >= 0)
		wl_fail(name, "--dax and --node exclude each other");
	/* a device may keep no data (see cycle.h): check it unless told */
	o->chain = chain >= 0 ? chain : o->dax ? WL_CHAIN_AUTO : WL_CHAIN_STORED;
}

/* One unsigned number from a sysfs file of dax device @dax; 0 if none. */
static unsigned long long dax_attr(const char *dax, const char *attr)
{
	char path[128];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/dax/devices/%s/%s", dax, attr);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

void *wl_map_dax_untouched(const char *name, const char *dax, size_t bytes,
			   size_t *mapped)
{
	unsigned int region, id, maj, min;
	unsigned long long size, align;
	char node[64], path[128];
	size_t len;
	int end = 0, fd;
	FILE *f;
	void *p;

	/* strict daxN.M: the name becomes a sysfs and a /dev path */
	if (sscanf(dax, "dax%u.%u%n", &region, &id, &end) != 2 || dax[end] ||
	    strlen(dax) > 24)
		wl_fail(name, "--dax wants daxN.M, not '%s'", dax);
	size = dax_attr(dax, "size");
	if (!size)
		wl_fail(name, "%s: no such dax device (or no capacity)", dax);
	/* device-dax maps only whole multiples of its alignment; kernels
	 * without the attribute align to pages */
	align = dax_attr(dax, "align");
	if (!align)
		align = sysconf(_SC_PAGESIZE);
	if (align & (align - 1))
		wl_fail(name, "%s: odd alignment %llu", dax, align);
	len = (bytes + align - 1) / align * align;
	if (len > size)
		wl_fail(name, "%s: %zu bytes wanted, the device has %llu", dax,
			bytes, size);
	/* the guest has no udev: make the node from sysfs if devtmpfs did not */
	snprintf(node, sizeof(node), "/dev/%s", dax);
	if (access(node, F_OK) < 0) {
		snprintf(path, sizeof(path), "/sys/bus/dax/devices/%s/dev", dax);
		f = fopen(path, "r");
		if (!f || fscanf(f, "%u:%u", &maj, &min) != 2)
			wl_fail(name, "%s: no device numbers in %s", dax, path);
		fclose(f);
		if (mknod(node, S_IFCHR | 0600, makedev(maj, min)) < 0 &&
		    errno != EEXIST)
			wl_fail(name, "mknod %s: %s", node, strerror(errno));
	}
	fd = open(node, O_RDWR);
	if (fd < 0)
		wl_fail(name, "open %s: %s (is it devdax, not kmem?)", node,
			strerror(errno));
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		wl_fail(name, "mmap %zu bytes of %s: %s", len, node, strerror(errno));
	close(fd);
	*mapped = len;
	return p;
}

void *wl_map_dax(const char *name, const char *dax, size_t bytes)
{
	size_t len;
	void *p = wl_map_dax_untouched(name, dax, bytes, &len);

	/* fault in by reading: a shared pool's bytes belong to every host */
	for (size_t off = 0; off < len; off += sysconf(_SC_PAGESIZE))
		(void)((volatile char *)p)[off];
	return p;
}

void *wl_alloc_on_node(const char *name, size_t bytes, int node)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		wl_fail(name, "mmap %zu bytes: %s", bytes, strerror(errno));
	if (node >= 0) {
		unsigned long mask[MAX_NODES / (8 * sizeof(long))] = { 0 };

		mask[node / (8 * sizeof(long))] = 1UL << (node % (8 * sizeof(long)));
		/* Bind before the first touch, so every page lands there. */
		if (syscall(SYS_mbind, p, bytes, MPOL_BIND, mask, MAX_NODES + 1,
			    MPOL_MF_STRICT) < 0)
			wl_fail(name, "mbind to node %d: %s", node, strerror(errno));
	}
	/* Fault every page in now (the kernel zeroes it): one write a page. */
	for (size_t off = 0; off < bytes; off += sysconf(_SC_PAGESIZE))
		((volatile char *)p)[off] = 0;
	return p;
}

const char *wl_host(void)
{
	static char host[64];
	static int looked;
	char line[4096], *p;
	FILE *f;

	if (looked)
		return host;
	looked = 1;
	f = fopen("/proc/cmdline", "r");
	if (!f)
		return host;
	if (fgets(line, sizeof(line), f) && (p = strstr(line, "cxlbed.host=")))
		sscanf(p + strlen("cxlbed.host="), "%63[^ \n]", host);
	fclose(f);
	return host;
}

double wl_on_node(void *buf, size_t bytes, int node)
{
	enum { SAMPLES = 32 };
	void *pages[SAMPLES];
	int status[SAMPLES], i, hits = 0;
	long pg = sysconf(_SC_PAGESIZE);

	if (node < 0)
		return 1.0;
	for (i = 0; i < SAMPLES; i++)
		pages[i] = (char *)buf + ((bytes / SAMPLES) * i) / pg * pg;
	/* move_pages with no target nodes only reports where pages are. */
	if (syscall(SYS_move_pages, 0, SAMPLES, pages, NULL, status, 0) < 0)
		return -1;
	for (i = 0; i < SAMPLES; i++)
		hits += status[i] == node;
	return (double)hits / SAMPLES;
}

/* The start barrier's marker carries N in the instruction: one per N. */
#define TOGETHER_CASE(n) case n: cxlbed_roi_mark(CXLBED_ROI_TOGETHER, n); break
void wl_together(void)
{
	switch (together) {
	TOGETHER_CASE(2); TOGETHER_CASE(3); TOGETHER_CASE(4); TOGETHER_CASE(5);
	TOGETHER_CASE(6); TOGETHER_CASE(7); TOGETHER_CASE(8); TOGETHER_CASE(9);
	TOGETHER_CASE(10); TOGETHER_CASE(11); TOGETHER_CASE(12); TOGETHER_CASE(13);
	TOGETHER_CASE(14); TOGETHER_CASE(15); TOGETHER_CASE(16);
	}
}

uint64_t wl_tick_start(void)
{
	struct timespec res, now;
	uint64_t tick, t;

	wl_together();

	/* the coarse clock's resolution is the kernel's tick (HZ) */
	if (start_now ||
	    clock_getres(CLOCK_MONOTONIC_COARSE, &res) || res.tv_sec || !res.tv_nsec ||
	    clock_gettime(CLOCK_MONOTONIC, &now))
		return 0;
	tick = (uint64_t)res.tv_nsec;
	t = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	return (t / tick + 1) * tick + tick / 2;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Sleeps to WL_SPIN_NS before @ns, then reads the clock until @ns. A
 * timer wake-up may be late, by the kernel's timer slack (50 us) and by
 * the wake-up path (timer interrupts up to 18 us late, late_max_ns in
 * the timing report), and by different amounts on different vCPUs; the
 * spin ends on every vCPU within one clock read of @ns. The reading is returned so
 * that a thread that times its region need not read the clock again: one
 * more read on one thread (a system call, no vDSO for the modeled clock)
 * began its region 8-18 us of modeled time after the others' (table.t,
 * 2026-12-02), 1% of a 1.2 ms region. */
#define WL_SPIN_NS 200000u
uint64_t wl_sleep_until(uint64_t ns)
{
	uint64_t wake = ns > WL_SPIN_NS ? ns - WL_SPIN_NS : 0, now;
	struct timespec at = { (time_t)(wake / 1000000000u),
			       (long)(wake % 1000000000u) };

	if (ns)
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR)
			;
	while ((now = now_ns()) < ns)
		;
	return now;
}

double wl_now(void)
{
	return now_ns() / 1e9;
}
