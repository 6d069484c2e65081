/* SPDX-License-Identifier: MIT */
/* Shared helpers of the guest workloads: options, node-bound memory, time. */
#ifndef CXLBED_WL_H
#define CXLBED_WL_H

#include <stddef.h>
#include <stdint.h>

#define WL_MAX_THREADS	32	/* ROI ids are per thread: see roi.h */

/* Options a program accepts beyond --node, --bytes, --evict, --help. */
enum {
	WL_OPT_ACCESSES		= 1 << 0,
	WL_OPT_SECONDS		= 1 << 1,
	WL_OPT_THREADS		= 1 << 2,
	WL_OPT_MIX		= 1 << 3,
	WL_OPT_PATTERN		= 1 << 4,
	WL_OPT_PASSES		= 1 << 5,
	WL_OPT_LOAD		= 1 << 6,	/* --load-threads, --stream-bytes */
	WL_OPT_DAX		= 1 << 7,	/* --dax daxN.M */
	WL_OPT_CHAIN		= 1 << 8,	/* --chain stored|computed|auto */
	WL_OPT_MARKERS		= 1 << 9,	/* --no-markers */
	WL_OPT_SLEEP		= 1 << 10,	/* --sleep S */
};

struct wl_opts {
	int node;		/* -1: no binding */
	size_t bytes;
	uint64_t accesses;
	double seconds;
	double sleep;		/* --sleep: seconds to sleep (cxlbed-timecheck) */
	int threads;
	unsigned int kinds;	/* bit per enum wl_kind (pass.h) */
	int random;		/* --pattern random */
	int passes;
	int load_threads;
	size_t stream_bytes;
	size_t evict;		/* bytes read to empty the caches; 0: off */
	const char *dax;	/* daxN.M: map the device instead of --node */
	const char *neighbour;	/* cxlbed-loaded: the host that only streams */
	int chain;		/* enum wl_chain_mode (cycle.h); without
				 * --chain: auto with --dax, else stored */
	int no_markers;		/* --no-markers: time with the guest clock only */
};

/* Parse the common options plus those in @accept; exits on error. */
void wl_parse(const char *name, int argc, char **argv, struct wl_opts *o,
	      unsigned int accept);
/* Anonymous memory bound (MPOL_BIND) to node and touched; exits on error. */
void *wl_alloc_on_node(const char *name, size_t bytes, int node);
/*
 * @bytes of /dev/@dax mapped shared (rounded up to the device's alignment)
 * and faulted in by reading, so that bytes another host keeps there (a
 * shared pool) stay as they are; exits on error.
 */
void *wl_map_dax(const char *name, const char *dax, size_t bytes);
/* The same, not touched (*@mapped: its length): a host that shares the
 * pool without coherence must not read a line it has not invalidated. */
void *wl_map_dax_untouched(const char *name, const char *dax, size_t bytes,
			   size_t *mapped);
/* This guest's host name in the topology (cxlbed.host= on the kernel
 * command line), or "" when it was not booted by cxlbed. */
const char *wl_host(void);
/* Fraction of sampled pages of buf that really sit on node (0..1). */
double wl_on_node(void *buf, size_t bytes, int node);
double wl_now(void);
/*
 * Where a timed region should start: half a kernel tick past the next tick
 * boundary of CLOCK_MONOTONIC (ns). With cxlbed's guest clock that clock
 * is modeled time and the kernel's periodic work (the tick, the timer
 * wheel) sits on that grid, so a region started there meets it at the
 * same offsets in every run. Threads that sleep to the same point start
 * together. 0 when the clock's tick cannot be read, or without `--start tick`
 * (a `together` workload, which must start with another host's: the
 * hosts' tick grids are not aligned with each other).
 */
uint64_t wl_tick_start(void);
/*
 * With --together N (2..WL_MAX_TOGETHER): wait, in the timing plugin,
 * until N hosts' workloads have called this, and all go on at the latest
 * one's modeled time (CXLBED_ROI_TOGETHER); without, nothing.
 * wl_tick_start calls it first.
 */
#define WL_MAX_TOGETHER 16
void wl_together(void);
/* Return when CLOCK_MONOTONIC reads @ns, on every vCPU within one clock
 * read of it (0: at once); returns that reading, in ns. */
uint64_t wl_sleep_until(uint64_t ns);
/* Print {"workload":name,"error":msg} and exit 2. */
void wl_fail(const char *name, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

#endif
