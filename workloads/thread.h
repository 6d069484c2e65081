/* SPDX-License-Identifier: MIT */
/*
 * Threads of the multi-threaded workloads: each runs pinned to its own
 * vCPU, so that a region's modeled time is that vCPU's clock.
 */
#ifndef CXLBED_WL_THREAD_H
#define CXLBED_WL_THREAD_H

#include <pthread.h>

/* vCPUs this process may run on. */
int wl_ncpus(void);
/* Pin the calling thread to the @cpu-th of them; exits on error. */
void wl_pin(const char *name, int cpu);
/* Start @n threads running fn(&args[i]), args spaced @size apart, join them. */
void wl_run_threads(const char *name, int n, void *(*fn)(void *), void *args,
		    size_t size);

#endif
