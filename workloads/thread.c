// SPDX-License-Identifier: MIT
#include <errno.h>
#include <sched.h>
#include <string.h>

#include "thread.h"
#include "wl.h"

/* The CPUs we were allowed at start, in order: pinning picks from them. */
static cpu_set_t allowed;
static int allowed_read;

static void read_allowed(void)
{
	if (!allowed_read && sched_getaffinity(0, sizeof(allowed), &allowed) == 0)
		allowed_read = 1;
}

int wl_ncpus(void)
{
	read_allowed();
	return allowed_read ? CPU_COUNT(&allowed) : 1;
}

void wl_pin(const char *name, int cpu)
{
	cpu_set_t set;
	int seen = 0;

	read_allowed();
	CPU_ZERO(&set);
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (CPU_ISSET(c, &allowed) && seen++ == cpu) {
			CPU_SET(c, &set);
			break;
		}
	}
	if (!CPU_COUNT(&set))
		wl_fail(name, "no vCPU #%d to pin to (%d online)", cpu, wl_ncpus());
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		wl_fail(name, "sched_setaffinity: %s", strerror(errno));
}

void wl_run_threads(const char *name, int n, void *(*fn)(void *), void *args,
		    size_t size)
{
	pthread_t tid[WL_MAX_THREADS];
	int err;

	read_allowed();	/* before any thread narrows its own mask */
	for (int i = 0; i < n; i++)
		if ((err = pthread_create(&tid[i], NULL, fn, (char *)args + i * size)))
			wl_fail(name, "pthread_create: %s", strerror(err));
	for (int i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
}
