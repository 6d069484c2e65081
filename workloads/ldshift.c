// SPDX-License-Identifier: MIT
/*
 * cxlbed-ldshift: capacity moving between two hosts through the fabric
 * manager, with checksums proving that no byte is lost (docs/pooling.md).
 * Run on both hosts at once (together = on); each finds its role by its
 * host name:
 *
 *   --falls HOST   writes --bytes of checksummed data onto every pool LD
 *                  it holds (each LD is a NUMA node of its own), offers
 *                  one LD back (pool-demand -LD), waits until one of those
 *                  nodes is gone (the kernel migrated its pages away while
 *                  the LD was released), then verifies every byte.
 *   --rises HOST   asks for one LD more (pool-demand +LD), waits for a new
 *                  node to come online, then writes and verifies --bytes
 *                  there: capacity another host gave back, in use.
 *
 * Demand goes to the agent's datagram socket, which forwards it to the
 * fabric manager. --hold S then keeps the program (and its data) for S
 * seconds more of guest (modeled) time; --hold-host S for S seconds of
 * the host's time: a phase in which the fabric manager can be driven from
 * outside, by a person or a script that acts in host time (a modeled
 * second of an idle guest passes in a few host milliseconds). Prints one
 * JSON line; exit 1 on a checksum mismatch or a timeout.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cxlbed-rtc.h"
#include "wl.h"

#define NAME "cxlbed-ldshift"
#define MAX_NODES 64
#define DEMAND_SOCK "/run/cxlbed-demand.sock"

static long long node_mem(int node)
{
	char path[96], line[256];
	long long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Node %*d MemTotal: %lld kB", &kb) == 1)
			break;
	fclose(f);
	return kb > 0 ? kb * 1024 : 0;
}

/* CXL nodes with memory (every node but 0, the host's DRAM). */
static int cxl_nodes(int *out)
{
	int n = 0;

	for (int i = 1; i < MAX_NODES; i++)
		if (node_mem(i) > 0)
			out[n++] = i;
	return n;
}

static void demand(long long bytes)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char msg[128];
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", DEMAND_SOCK);
	snprintf(msg, sizeof(msg), "{\"want\": %lld, \"from\": \"%s\"}", bytes, NAME);
	if (fd < 0 || sendto(fd, msg, strlen(msg), 0, (struct sockaddr *)&sa,
			     sizeof(sa)) < 0)
		wl_fail(NAME, "%s: %s (no fabric manager channel on this host?)",
			DEMAND_SOCK, strerror(errno));
	close(fd);
}

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* FNV-1a over 64-bit words: the checksum of a buffer. */
static uint64_t checksum(const uint64_t *w, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ w[i]) * 0x100000001b3ull;
	return h;
}

struct chunk {
	int node;		/* where it was written */
	uint64_t *buf;
	size_t words;
	uint64_t sum;		/* at write time */
};

/* @salt: the writer's role, so that each host's bytes are its own. */
static void fill(struct chunk *c, int node, size_t bytes, uint64_t salt)
{
	c->node = node;
	c->buf = wl_alloc_on_node(NAME, bytes, node);
	c->words = bytes / sizeof(uint64_t);
	for (size_t i = 0; i < c->words; i++)
		c->buf[i] = mix64(salt << 56 ^ (uint64_t)node << 40 ^ i);
	c->sum = checksum(c->buf, c->words);
}

static void print_chunk(const struct chunk *c, uint64_t now, int released, int last)
{
	printf("{\"node\": %d, \"sum_written\": \"%016llx\", \"sum_read\": \"%016llx\", "
	       "\"ok\": %s, \"on_node_now\": %.3f%s}%s", c->node,
	       (unsigned long long)c->sum, (unsigned long long)now,
	       now == c->sum ? "true" : "false",
	       wl_on_node(c->buf, c->words * 8, c->node),
	       c->node == released ? ", \"node_released\": true" : "",
	       last ? "" : ", ");
}

static int wait_nodes(int *nodes, int n_before, bool fewer, double timeout,
		      double *waited)
{
	double t0 = wl_now();
	int n;

	do {
		n = cxl_nodes(nodes);
		if (fewer ? n < n_before : n > n_before)
			break;
		usleep(100000);
	} while (wl_now() - t0 < timeout);
	*waited = wl_now() - t0;
	return n;
}

static int falls(size_t bytes, long long ld, double timeout)
{
	int before[MAX_NODES], after[MAX_NODES], n, m, released = -1, bad = 0;
	struct chunk c[MAX_NODES];
	double waited;

	n = cxl_nodes(before);
	if (!n)
		wl_fail(NAME, "this host holds no pool LD (no CXL node with memory)");
	for (int i = 0; i < n; i++)
		fill(&c[i], before[i], bytes, 1);
	demand(-ld);
	m = wait_nodes(after, n, true, timeout, &waited);
	for (int i = 0; i < n && m < n; i++) {
		bool still = false;

		for (int j = 0; j < m; j++)
			still |= after[j] == before[i];
		if (!still)
			released = before[i];
	}
	printf("{\"workload\": \"ldshift\", \"role\": \"falls\", \"lds_before\": %d, "
	       "\"lds_after\": %d, \"released_node\": %d, \"wait_s\": %.2f, "
	       "\"bytes_per_node\": %zu, \"chunks\": [", n, m, released, waited, bytes);
	for (int i = 0; i < n; i++) {
		uint64_t now = checksum(c[i].buf, c[i].words);

		bad += now != c[i].sum;
		print_chunk(&c[i], now, released, i == n - 1);
	}
	printf("], \"verified_bytes\": %zu, \"checksum_ok\": %s}\n", bytes * n,
	       bad ? "false" : "true");
	return bad || released < 0;
}

/*
 * A node that has just come online takes a binding only once the kernel
 * has added it to the allowed nodes (seen: mbind EINVAL a moment after
 * MemTotal showed). Probe with one page until it does.
 */
static void wait_bindable(int node, double timeout)
{
	unsigned long mask[MAX_NODES / (8 * sizeof(long))] = { 0 };
	long page = sysconf(_SC_PAGESIZE);
	double t0 = wl_now();
	void *p = mmap(NULL, page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	mask[node / (8 * sizeof(long))] = 1UL << (node % (8 * sizeof(long)));
	while (p != MAP_FAILED && syscall(SYS_mbind, p, page, 2 /* MPOL_BIND */,
					  mask, MAX_NODES + 1, 0) < 0 &&
	       errno == EINVAL && wl_now() - t0 < timeout)
		usleep(100000);
	if (p != MAP_FAILED)
		munmap(p, page);
}

static int rises(size_t bytes, long long ld, double timeout)
{
	int before[MAX_NODES], after[MAX_NODES], n, m, fresh = -1;
	struct chunk c;
	double waited;
	uint64_t now;

	n = cxl_nodes(before);
	demand(ld);
	m = wait_nodes(after, n, false, timeout, &waited);
	for (int j = 0; j < m; j++) {
		bool old = false;

		for (int i = 0; i < n; i++)
			old |= after[j] == before[i];
		if (!old)
			fresh = after[j];
	}
	if (fresh < 0) {
		printf("{\"workload\": \"ldshift\", \"role\": \"rises\", \"lds_before\": %d, "
		       "\"wait_s\": %.2f, \"error\": \"no new LD came online\"}\n", n, waited);
		return 1;
	}
	wait_bindable(fresh, 10);
	fill(&c, fresh, bytes, 2);
	now = checksum(c.buf, c.words);
	printf("{\"workload\": \"ldshift\", \"role\": \"rises\", \"lds_before\": %d, "
	       "\"lds_after\": %d, \"new_node\": %d, \"new_node_bytes\": %lld, "
	       "\"wait_s\": %.2f, \"bytes\": %zu, \"chunks\": [", n, m, fresh,
	       node_mem(fresh), waited, bytes);
	print_chunk(&c, now, -1, 1);
	printf("], \"verified_bytes\": %zu, \"checksum_ok\": %s}\n", bytes,
	       now == c.sum ? "true" : "false");
	return now != c.sum;
}

/* Wait @s seconds of host time (to the RTC's second), polling it. */
static void hold_host(double s)
{
	long long t0 = cxlbed_rtc_seconds(), t;

	if (t0 < 0)
		wl_fail(NAME, "--hold-host: cannot read the RTC (/dev/rtc0): %s", strerror(errno));
	do
		usleep(200 * 1000);	/* modeled: idle, so little host time */
	while ((t = cxlbed_rtc_seconds()) >= 0 && t - t0 < (long long)(s + 0.5));
}

int main(int argc, char **argv)
{
	const char *fall = NULL, *rise = NULL, *me = wl_host();
	size_t bytes = 32 << 20;
	long long ld = 256ll << 20;
	double timeout = 180, hold = 0, hold_host_s = 0;
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--falls") && v)
			fall = argv[++i];
		else if (!strcmp(argv[i], "--rises") && v)
			rise = argv[++i];
		else if (!strcmp(argv[i], "--bytes") && v)
			bytes = strtoull(argv[++i], NULL, 0) << (strchr(v, 'M') ? 20 : 0);
		else if (!strcmp(argv[i], "--ld-bytes") && v)
			ld = strtoll(argv[++i], NULL, 0) << (strchr(v, 'M') ? 20 : 0);
		else if (!strcmp(argv[i], "--timeout") && v)
			timeout = atof(argv[++i]);
		else if (!strcmp(argv[i], "--hold") && v)
			hold = atof(argv[++i]);
		else if (!strcmp(argv[i], "--hold-host") && v)
			hold_host_s = atof(argv[++i]);
		else
			wl_fail(NAME, "usage: %s --falls HOST --rises HOST [--bytes 32M] "
				"[--ld-bytes 256M] [--timeout S] [--hold S] [--hold-host S]", NAME);
	}
	if (!bytes || bytes % 4096)
		wl_fail(NAME, "--bytes: a whole number of pages, e.g. 32M");
	if (fall && !strcmp(me, fall))
		rc = falls(bytes, ld, timeout);
	else if (rise && !strcmp(me, rise))
		rc = rises(bytes, ld, timeout);
	else
		printf("{\"workload\": \"ldshift\", \"role\": \"none\", \"host\": "
		       "\"%s\", \"held_s\": %g, \"held_host_s\": %g}\n", me, hold, hold_host_s);
	fflush(stdout);
	if (hold > 0)
		usleep((useconds_t)(hold * 1e6));
	if (hold_host_s > 0)
		hold_host(hold_host_s);
	return rc;
}
