// SPDX-License-Identifier: MIT
/*
 * Host-side cost of the memory model, without QEMU: host ns per guest
 * access and per new cache line for the access patterns of membench (a
 * sequential read and write of 8-byte words, a random pointer chase),
 * through the same cache geometry and a DRAM target as the plugin's
 * default. Prints figures; the QEMU-side cost is overhead.sh's.
 *   modelbench [MiB] [passes] [seq|read|write|chase] [local|cxl]
 * seq is read and write; cxl puts the memory behind a CXL path of four
 * resources (host bridge, link, switch port, device media) instead of
 * local DRAM's one: a miss reserves on each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model_mem.h"
#include "shm_links.h"

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	uint64_t mib = argc > 1 ? strtoull(argv[1], NULL, 0) : 32;
	int passes = argc > 2 ? atoi(argv[2]) : 4;
	const char *only = argc > 3 ? argv[3] : "";
	struct tm_mem_cfg cfg = {
		.line_bytes = 64, .l1_bytes = 48 << 10, .l2_bytes = 2 << 20,
		.llc_bytes = 32 << 20, .l1_ways = 12, .l2_ways = 16,
		.llc_ways = 16, .mlp = 10, .prefetch_distance = 16,
	};
	struct mf_target mem = { .name = "local", .path = "local" };
	struct mf_fabric fab = { .ntargets = 1, .targets = &mem, .local = &mem };
	struct tm_host_mem h;
	struct tm_cpu_mem c;
	struct tm_shared *shm;
	uint64_t words = (mib << 20) / 8, lines = (mib << 20) / 64;
	uint64_t *next;
	double now = 0, t0;
	char *err = NULL;

	/* an unknown word would run some other pattern and print its figures */
	if ((strcmp(only, "") && strcmp(only, "seq") && strcmp(only, "read") &&
	     strcmp(only, "write") && strcmp(only, "chase")) ||
	    (argc > 4 && strcmp(argv[4], "local") && strcmp(argv[4], "cxl"))) {
		fprintf(stderr, "usage: modelbench [MiB] [passes] "
			"[seq|read|write|chase] [local|cxl]\n");
		return 2;
	}
	shm = tm_shared_open(NULL, &err);
	mem.media_ns[MF_READ] = mem.media_ns[MF_WRITE] = 90;
	if (argc > 4 && !strcmp(argv[4], "cxl")) {
		mem.cxl = true;
		mem.media_ns[MF_READ] = mem.media_ns[MF_WRITE] = 170;
		mem.hops_ns = 80;
		mem.res[mem.nres++] = tm_shared_res(shm, "hb0", 64, 64, 0);
		mem.res[mem.nres++] = tm_shared_res(shm, "link0", 32, 32, 10);
		mem.res[mem.nres++] = tm_shared_res(shm, "sw0.p1", 32, 32, 10);
		mem.res[mem.nres++] = tm_shared_res(shm, "mem0", 24, 16, 34);
	} else {
		mem.res[mem.nres++] = tm_shared_res(shm, "dram", 40, 30, 22.5);
	}
	if (!tm_host_mem_init(&h, &cfg, &fab) || !tm_cpu_mem_init(&c, &h))
		return 1;
	/* one vCPU, one host: no locks, as the plugin runs such a guest */
	h.solo = mem.solo = true;
	c.who = 0;
	printf("model cost, host harness (%llu MiB, %d passes, %s, host CPU time "
	       "of the thread):\n", (unsigned long long)mib, passes,
	       mem.cxl ? "a CXL path of 4 resources" : "local DRAM");
	for (int store = 0; store < 2 && strcmp(only, "chase"); store++) {
		if (!strcmp(only, store ? "read" : "write"))
			continue;
		t0 = cpu_s();
		for (int p = 0; p < passes; p++)
			for (uint64_t i = 0; i < words; i++) {
				if (!(i & 511))	/* a new page, entered from the last */
					tm_mem_page_claim(&h, &c, i >> 3);
				now = tm_mem_access(&h, &c, i * 8, store, now + 0.75);
			}
		t0 = cpu_s() - t0;
		printf("  sequential %-5s %6.2f ns per access, %6.1f ns per line\n",
		       store ? "write" : "read", 1e9 * t0 / (words * passes),
		       1e9 * t0 / (lines * passes));
	}
	if (strcmp(only, "") && strcmp(only, "chase"))
		return 0;	/* seq, read or write */
	/* a random single cycle through every line (Sattolo) */
	next = malloc(lines * sizeof(*next));
	for (uint64_t i = 0; i < lines; i++)
		next[i] = i;
	srand(7);
	for (uint64_t i = lines - 1; i > 0; i--) {
		uint64_t j = rand() % i, tmp = next[i];

		next[i] = next[j];
		next[j] = tmp;
	}
	t0 = cpu_s();
	for (uint64_t i = 0, l = 0; i < lines * passes; i++, l = next[l])
		now = tm_mem_access(&h, &c, (l << 6) + (1ull << 32), false,
				    now + 0.75);
	t0 = cpu_s() - t0;
	printf("  pointer chase    %6.1f ns per access\n",
	       1e9 * t0 / (lines * passes));
	return 0;
}
