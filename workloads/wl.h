/* SPDX-License-Identifier: MIT */
/* Shared helpers of the guest workloads: options, node-bound memory, time. */
#ifndef CXLBED_WL_H
#define CXLBED_WL_H

#include <stddef.h>
#include <stdint.h>

struct wl_opts {
	int node;		/* -1: no binding */
	size_t bytes;
	uint64_t accesses;
	double seconds;
};

/* Parse --node N --bytes N[K|M|G] --accesses N --seconds S; exits on error. */
void wl_parse(const char *name, int argc, char **argv, struct wl_opts *o);
/* Anonymous memory bound (MPOL_BIND) to node and touched; exits on error. */
void *wl_alloc_on_node(const char *name, size_t bytes, int node);
/* Fraction of sampled pages of buf that really sit on node (0..1). */
double wl_on_node(void *buf, size_t bytes, int node);
double wl_now(void);
/* Print {"workload":name,"error":msg} and exit 2. */
void wl_fail(const char *name, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

#endif
