// SPDX-License-Identifier: MIT
/* The store's mapping and the clock both roles time themselves with. */
#include <sys/mman.h>
#include <time.h>

#include "kv.h"
#include "wl.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

void *kv_map(const char *dax, uint64_t bytes)
{
	size_t len;
	void *p = wl_map_dax_untouched(KV_NAME, dax, bytes, &len);

	/* page tables filled without a load (Linux 5.14+; else faults come
	 * with the first accesses) */
	(void)madvise(p, len, MADV_POPULATE_READ);
	return p;
}

uint64_t kv_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
