// SPDX-License-Identifier: MIT
/*
 * cxlbed-stream: sequential read and sequential write bandwidth of one
 * NUMA node. Each phase repeats whole passes over the buffer until
 * --seconds have passed (at least one pass).
 */
#include <stdint.h>
#include <stdio.h>

#include "roi.h"
#include "wl.h"

/* Keeps the read sums from being optimised away. */
static volatile uint64_t sink;

static double read_pass(const uint64_t *a, size_t n, uint64_t *sum)
{
	uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	size_t i;

	for (i = 0; i + 4 <= n; i += 4) {
		s0 += a[i];
		s1 += a[i + 1];
		s2 += a[i + 2];
		s3 += a[i + 3];
	}
	*sum += s0 + s1 + s2 + s3;
	return (double)n * sizeof(*a);
}

static double write_pass(uint64_t *a, size_t n, uint64_t v)
{
	size_t i;

	for (i = 0; i < n; i++)
		a[i] = v;
	__asm__ __volatile__("" : : "r"(a) : "memory");
	return (double)n * sizeof(*a);
}

int main(int argc, char **argv)
{
	/* Sized for emulated CXL memory under TCG (~0.1 GB/s); see chase.c. */
	struct wl_opts o = { .node = -1, .bytes = 4 << 20, .seconds = 1.0 };
	double t0, t_read, t_write, moved_r = 0, moved_w = 0, placed;
	uint64_t *a, sum = 0, pass = 0;
	size_t n;

	wl_parse("stream", argc, argv, &o);
	n = o.bytes / sizeof(*a);
	if (n < 4)
		wl_fail("stream", "--bytes too small");
	a = wl_alloc_on_node("stream", n * sizeof(*a), o.node);
	placed = wl_on_node(a, n * sizeof(*a), o.node);

	roi_begin();
	t0 = wl_now();
	do
		moved_r += read_pass(a, n, &sum);
	while ((t_read = wl_now() - t0) < o.seconds);
	t0 = wl_now();
	do
		moved_w += write_pass(a, n, ++pass);
	while ((t_write = wl_now() - t0) < o.seconds);
	roi_end();

	printf("{\"workload\":\"stream\",\"node\":%d,\"bytes\":%zu,"
	       "\"read_gbps\":%.3f,\"write_gbps\":%.3f,\"read_bytes\":%.0f,"
	       "\"write_bytes\":%.0f,\"read_s\":%.3f,\"write_s\":%.3f,"
	       "\"on_node\":%.2f,\"clock\":\"guest\"}\n",
	       o.node, n * sizeof(*a), moved_r / t_read / 1e9,
	       moved_w / t_write / 1e9, moved_r, moved_w, t_read, t_write,
	       placed);
	sink = sum;
	return 0;
}
