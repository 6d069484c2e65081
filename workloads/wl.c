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
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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

void wl_parse(const char *name, int argc, char **argv, struct wl_opts *o)
{
	static const struct option longopts[] = {
		{ "node", required_argument, NULL, 'n' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "accesses", required_argument, NULL, 'a' },
		{ "seconds", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "n:b:a:s:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': o->node = atoi(optarg); break;
		case 'b': o->bytes = parse_size(name, optarg); break;
		case 'a': o->accesses = strtoull(optarg, NULL, 0); break;
		case 's': o->seconds = strtod(optarg, NULL); break;
		case 'h':
			printf("usage: cxlbed-%s [--node N] [--bytes SIZE] "
			       "[--accesses N] [--seconds S]\n"
			       "Prints one JSON object line with the result.\n", name);
			exit(0);
		default:
			wl_fail(name, "bad option (see --help)");
		}
	}
	if (optind < argc)
		wl_fail(name, "unexpected argument '%s'", argv[optind]);
	if (o->node >= MAX_NODES)
		wl_fail(name, "node %d out of range", o->node);
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

double wl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
