/* SPDX-License-Identifier: MIT */
/*
 * A quota governor for damon's promotion scheme (docs/pooling.md, "damon").
 *
 * DAMOS migrate_hot allocates its target pages without reclaim
 * (GFP_NOWAIT): on a local node held full it takes the node down to its
 * min watermark, where the kernel's own next allocation that only that
 * node can serve (a page table) finds nothing to reclaim (no swap, no
 * demotion) and the OOM killer takes the workload. Newer kernels stop
 * promotion with a quota goal on the node's free memory; 6.12 has no such
 * metric, so this thread plays it: every period it reads the node's free
 * pages and sets the hot scheme's quota from the room above the node's
 * high watermarks (less a margin), committing it through sysfs.
 *
 * A commit is not immediate: 6.12's sysfs hands it to the kdamond and
 * polls for the answer in 100 ms sleeps, and DAMOS fixes a charge
 * window's quota when the window opens. So a quota stays in force for
 * the commit's latency plus a window, and is set to that share of the
 * room: room x window / (latency + window), the latency being the
 * longest commit measured so far. Whatever windows open before the next
 * commit lands then promote at most the room it was computed from.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "policy.h"
#include "pw.h"
#include "sysfs.h"

#define KD "/sys/kernel/mm/damon/admin/kdamonds"

static struct {
	pthread_t thread;
	bool running;
	atomic_bool stop;
	int node, kdamond;
	long long floor_pages;	/* free pages the node keeps: high + reserve */
	unsigned long long cap, margin, period_us;
	unsigned long long last_quota;
	double window_ms, latency_ms;	/* charge window; longest commit */
	struct pw_damon_gov_stats st;
} gov;

/* The node's free pages (MemFree: the zones' free counts, without the
 * CPUs' lists), or -1. */
static long long node_free_pages(int node)
{
	long long b = cp_node_meminfo(node, "MemFree");

	return b < 0 ? -1 : b / 4096;
}

/* Free memory above the floor, bytes (< 0: under it). */
static long long room_of(long long free_pages)
{
	return (free_pages - gov.floor_pages) * 4096;
}

/* The quota for @room less the margin: its share for the time a quota
 * stays in force, rounded down to pages; 1 (a quota that lets no region
 * through: 0 would mean no limit) when there is none. */
static unsigned long long quota_for(long long room)
{
	double share = gov.window_ms / (gov.window_ms + gov.latency_ms);
	unsigned long long q;

	room -= (long long)gov.margin;
	if (room < 4096)
		return 1;
	q = (unsigned long long)((double)room * share) & ~4095ull;
	if (q < 4096)
		return 1;
	return q > gov.cap ? gov.cap : q;
}

static int write_quota(unsigned long long q)
{
	char v[32];

	snprintf(v, sizeof(v), "%llu", q);
	return cp_writef(v, KD "/%d/contexts/0/schemes/0/quotas/bytes", gov.kdamond);
}

static int commit_quota(unsigned long long q)
{
	double t0 = pw_now_ms(), took;

	if (write_quota(q) || cp_writef("commit", KD "/%d/state", gov.kdamond))
		return -1;
	took = pw_now_ms() - t0;
	if (took > gov.latency_ms)
		gov.latency_ms = took;
	gov.last_quota = q;
	gov.st.commits++;
	return 0;
}

static void *gov_main(void *arg)
{
	struct timespec tick = { 0, (long)gov.period_us * 1000 };

	(void)arg;
	pw_pin(1);
	while (!atomic_load_explicit(&gov.stop, memory_order_relaxed)) {
		long long free = node_free_pages(gov.node);
		unsigned long long q;

		gov.st.checks++;
		if (free >= 0) {
			long long room = room_of(free);

			if (gov.st.checks == 1 || room < gov.st.lowest_room)
				gov.st.lowest_room = room;
			q = quota_for(room);
			if (q == 1)
				gov.st.closed++;
			/* commit on a change of at least 64 KiB, or on closing
			 * and opening: each commit rebuilds the kdamond's
			 * parameters from sysfs */
			if ((q == 1) != (gov.last_quota == 1) ||
			    (q > gov.last_quota ? q - gov.last_quota : gov.last_quota - q) >= (64u << 10))
				if (commit_quota(q))
					gov.st.failed++;
		}
		nanosleep(&tick, NULL);
	}
	return NULL;
}

int pw_damon_gov_prepare(int node, int kdamond, unsigned long long cap,
			 long long usable_bytes, unsigned window_ms)
{
	long long free = node_free_pages(node);

	if (free < 0 || usable_bytes < 0 || !window_ms)
		return -1;
	memset(&gov.st, 0, sizeof(gov.st));
	gov.node = node;
	gov.kdamond = kdamond;
	gov.cap = cap;
	gov.margin = 256u << 10;
	gov.period_us = 1000;
	gov.window_ms = window_ms;
	gov.latency_ms = 100;	/* 6.12's sysfs polls in 100 ms sleeps */
	/* what zoneinfo counts as usable (above each zone's high watermark
	 * and reserve) against the node's free total, once: the floor moves
	 * only with min_free_kbytes */
	gov.floor_pages = free - usable_bytes / 4096;
	gov.last_quota = quota_for(room_of(free));
	return write_quota(gov.last_quota);
}

int pw_damon_gov_start(void)
{
	atomic_store(&gov.stop, false);
	if (pthread_create(&gov.thread, NULL, gov_main, NULL))
		return -1;
	gov.running = true;
	return 0;
}

void pw_damon_gov_stop(struct pw_damon_gov_stats *st)
{
	if (gov.running) {
		atomic_store(&gov.stop, true);
		pthread_join(gov.thread, NULL);
		gov.running = false;
	}
	gov.st.latency_ms = gov.latency_ms;
	if (st)
		*st = gov.st;
}
