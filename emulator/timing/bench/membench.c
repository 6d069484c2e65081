// SPDX-License-Identifier: MIT
/*
 * A memory-bound guest loop for the timing plugin's overhead benchmark and
 * smoke tests: a sequential read and a pointer chase over a buffer, each
 * inside a region of interest, timed by the guest clock too.
 *   membench [MiB] [passes]             anonymous memory
 *   membench --node N [MiB] [passes]    anonymous memory bound to NUMA node N
 *   membench --phys ADDR MiB [passes]   a guest-physical range via /dev/mem
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cxlbed-roi.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	size_t mib = 16, n, i;
	int passes = 2, a = 1;
	uint64_t *buf, sum = 0, p;
	double t;

	/* stay on one vCPU: a region's figures are then that core's */
	{
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(sched_getcpu(), &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	if (a < argc && !strcmp(argv[a], "--phys")) {
		off_t addr = strtoull(argv[a + 1], NULL, 0);
		int fd = open("/dev/mem", O_RDWR | O_SYNC);

		mib = strtoul(argv[a + 2], NULL, 0);
		buf = fd < 0 ? MAP_FAILED :
		      mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, MAP_SHARED,
			   fd, addr);
		if (buf == MAP_FAILED) {
			perror("membench: /dev/mem");
			return 1;
		}
		a += 3;
	} else {
		int node = -1;

		if (a + 1 < argc && !strcmp(argv[a], "--node")) {
			node = atoi(argv[a + 1]);
			a += 2;
		}
		if (a < argc)
			mib = strtoul(argv[a++], NULL, 0);
		buf = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED) {
			perror("membench: mmap");
			return 1;
		}
		if (node >= 0) {	/* MPOL_BIND = 2, before first touch */
			unsigned long mask = 1ul << node;

			if (syscall(SYS_mbind, buf, mib << 20, 2, &mask,
				    sizeof(mask) * 8, 0)) {
				perror("membench: mbind");
				return 1;
			}
		}
		memset(buf, 1, mib << 20);
	}
	if (a < argc)
		passes = atoi(argv[a]);
	n = (mib << 20) / sizeof(*buf);

	/* a random chain through every line, one hop per 64-byte line */
	for (i = 0; i < n; i += 8)
		buf[i] = i;
	srand(7);
	for (i = n / 8 - 1; i > 0; i--) {
		size_t j = rand() % i;	/* Sattolo: one single cycle */
		uint64_t tmp = buf[i * 8];

		buf[i * 8] = buf[j * 8];
		buf[j * 8] = tmp;
	}

	cxlbed_roi_arm();
	t = now_s();
	cxlbed_roi_begin(1);
	for (int r = 0; r < passes; r++)
		for (i = 0; i < n; i++)
			sum += buf[i];
	cxlbed_roi_end(1);
	printf("membench: seq %zu MiB x %d: %.3f s guest clock\n", mib, passes,
	       now_s() - t);

	t = now_s();
	cxlbed_roi_begin(2);
	p = buf[0];
	for (i = 0; i < n / 8 * passes; i++)
		p = buf[p];
	cxlbed_roi_end(2);
	printf("membench: chase %zu hops: %.3f s guest clock (%lu)\n",
	       n / 8 * passes, now_s() - t, (unsigned long)(sum + p));
	cxlbed_roi_dump();
	return 0;
}
