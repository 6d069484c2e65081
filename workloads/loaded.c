// SPDX-License-Identifier: MIT
/*
 * cxlbed-loaded: loaded latency of one NUMA node. A chaser thread (vCPU 0)
 * pointer-chases while --load-threads streamer threads (vCPUs 1..N) stream
 * their own buffers on the same node; the chaser's region of interest runs
 * from the common start until the last streamer ends, so it overlaps the
 * streamers' regions. One point of the latency-bandwidth curve per run:
 * (aggregate streamer GB/s, chaser ns per access). With --dax daxN.M the
 * chaser's cycle and then the streamers' buffers lie in the devdax device.
 * The chaser's chain is stored or computed (cycle.h, --chain).
 *
 * --neighbour HOST makes the run on that host the noisy neighbour of the
 * others sharing the --dax device (a pool): there thread 0 streams instead
 * of chasing. Hosts are started one after another and prepare at different
 * speeds, so the neighbour waits for a flag that the chaser raises in the
 * pool just before its region begins; while it spins, the timing model's
 * skew bound holds both hosts together in modeled time, so its stream
 * starts with the chase.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "cycle.h"
#include "evict.h"
#include "pass.h"
#include "roi.h"
#include "thread.h"
#include "wl.h"

struct worker {
	int k;		/* 0: the chaser; 1..N: streamers */
	void *buf;
	size_t bytes;
	double placed;
	struct wl_moved moved;
	uint64_t accesses;
	double seconds;	/* guest clock, common start to own end */
};

static struct wl_opts o = {
	/* chaser: 64 MiB = 2x the default LLC, see chase.c; streamers: one
	 * pass over 8 MiB each, seconds under TCG with the timing plugin */
	.node = -1, .bytes = 64 << 20, .stream_bytes = 8 << 20,
	.accesses = 100000, .load_threads = 1, .passes = 1,
	.kinds = 1 << WL_READ, .evict = WL_EVICT_DEFAULT,
};
static struct wl_chain chain;	/* the chaser's */
static volatile uint64_t sink;	/* keeps the chase live */
static pthread_barrier_t bar;
static atomic_int streamers_left;
static double t_start;
static int neighbour;		/* this host streams on thread 0, no chaser */

/*
 * The start flag: the first line of the --dax mapping (the cycle and the
 * buffers follow it). The pool file is new each run and the chaser lowers
 * the flag when it ends, so a raised flag is this run's.
 */
#define GO_MAGIC	0x63786c62676f2121ULL	/* "cxlbgo!!" */
#define DAX_CTL		4096
static volatile uint64_t *go_flag;
static const char *sync_how = "none";
static uint64_t start_ns;	/* where the regions start (wl_tick_start) */

static void go_wait(void)
{
	double t0 = wl_now();

	sync_how = "flag";
	while (*go_flag != GO_MAGIC) {
		__builtin_ia32_pause();
		/* a chaser that never comes (another scenario): stream anyway */
		if (wl_now() - t0 > 120) {
			sync_how = "timeout";
			break;
		}
	}
}

static void chase(struct worker *w)
{
	size_t lines = w->bytes / WL_LINE;
	/* at most one lap: a line visited twice could hit a cache */
	uint64_t limit = o.load_threads ? lines : (o.accesses < lines ? o.accesses : lines);
	struct roi_entry e = { .id = ROI_LOADED_CHASE, .kind = "chase",
			       .role = "chaser" };
	uint64_t done = 0, step = o.load_threads ? 64 : limit, at = 0;

	if (go_flag) {
		*go_flag = GO_MAGIC;
		sync_how = "flag";
	}
	cxlbed_roi_begin(ROI_LOADED_CHASE);
	while (done < limit) {
		if (step > limit - done)
			step = limit - done;
		at = wl_chain_walk(&chain, step);
		done += step;
		if (o.load_threads && !atomic_load_explicit(&streamers_left,
							    memory_order_relaxed))
			break;
	}
	e.accesses = done;
	ROI_END_RECORD(cxlbed_roi_end(ROI_LOADED_CHASE), &e);
	if (go_flag)
		*go_flag = 0;
	w->seconds = wl_now() - t_start;
	w->accesses = done;
	sink = at;
}

static void stream(struct worker *w)
{
	int kind = __builtin_ctz(o.kinds);
	struct roi_entry e = {
		.id = ROI_LOADED_STREAM + 100 * kind + w->k,
		.kind = wl_kind_roi(kind), .thread = w->k, .role = "streamer",
	};

	ROI_MARK_KIND(CXLBED_ROI_BEGIN, ROI_LOADED_STREAM, kind, w->k);
	for (int p = 0; p < o.passes; p++)
		wl_pass(w->buf, w->bytes / WL_LINE, kind, o.random,
			w->k * 7919 + p, &w->moved);
	e.bytes = w->moved.read_bytes + w->moved.write_bytes;
	if (kind == WL_MIX21 || kind == WL_MIX11) {
		e.mix = wl_kind_label(kind);
		e.read_fraction = (double)w->moved.read_bytes / e.bytes;
	}
	ROI_END_RECORD(ROI_MARK_KIND(CXLBED_ROI_END, ROI_LOADED_STREAM, kind,
				     w->k), &e);
	w->seconds = wl_now() - t_start;
	atomic_fetch_sub(&streamers_left, 1);
}

static void *worker(void *arg)
{
	struct worker *w = arg;
	double began;

	wl_pin("loaded", w->k);
	if (!w->buf) {
		w->buf = wl_alloc_on_node("loaded", w->bytes, o.node);
		w->placed = wl_on_node(w->buf, w->bytes, o.node);
	}
	if (w->k == 0 && !neighbour)
		wl_chain_build("loaded", &chain, w->buf, w->bytes / WL_LINE,
			       0x9e3779b97f4a7c15ULL, o.chain);
	pthread_barrier_wait(&bar);
	wl_evict();
	/* the neighbour meets the chaser's wl_tick_start at the start barrier */
	if (w->k == 0 && neighbour)
		wl_together();
	if (w->k == 0 && neighbour && go_flag)
		go_wait();
	/* (a host's streamers that a chaser on another host starts go at once) */
	if (w->k == 0 && !neighbour)
		start_ns = wl_tick_start();
	pthread_barrier_wait(&bar);
	/* chaser and streamers: the same point */
	began = wl_sleep_until(start_ns) / 1e9;
	if (w->k == 0)
		t_start = began;
	if (w->k == 0 && !neighbour)
		chase(w);
	else
		stream(w);
	return NULL;
}

int main(int argc, char **argv)
{
	struct worker w[WL_MAX_THREADS];
	int n, first;
	double placed = 1.0, load_bytes = 0, load_s = 0;
	char *dax = NULL;

	cxlbed_roi_arm();	/* early: arming re-reads the plugin's config */
	wl_parse("loaded", argc, argv, &o, WL_OPT_ACCESSES | WL_OPT_MIX |
		 WL_OPT_PATTERN | WL_OPT_PASSES | WL_OPT_LOAD | WL_OPT_DAX |
		 WL_OPT_CHAIN);
	if (o.kinds & (o.kinds - 1))
		wl_fail("loaded", "--mix: one of read|write|2:1|1:1");
	if (o.load_threads > wl_ncpus() - 1)
		wl_fail("loaded", "--load-threads %d: only %d vCPUs (chaser + one "
			"each)", o.load_threads, wl_ncpus());
	o.bytes -= o.bytes % WL_LINE;
	o.stream_bytes -= o.stream_bytes % WL_LINE;
	if (o.bytes < 2 * WL_LINE || o.stream_bytes < WL_LINE)
		wl_fail("loaded", "--bytes or --stream-bytes too small");
	neighbour = o.neighbour && !strcmp(o.neighbour, wl_host());
	first = neighbour ? 0 : 1;	/* the first streamer */
	n = 1 + o.load_threads;
	wl_evict_init("loaded", o.evict);
	atomic_store(&streamers_left, o.load_threads);
	pthread_barrier_init(&bar, NULL, n);
	if (o.dax) {
		/* flag, cycle, streamers: a neighbour never writes the cycle */
		dax = wl_map_dax("loaded", o.dax, DAX_CTL + o.bytes +
				 (n - first) * o.stream_bytes);
		if (o.neighbour)
			go_flag = (volatile uint64_t *)dax;
		if (o.neighbour && !neighbour)
			*go_flag = 0;
		dax += DAX_CTL;
	}
	for (int k = 0; k < n; k++)
		w[k] = (struct worker){ .k = k, .placed = 1.0,
					.bytes = k >= first ? o.stream_bytes : o.bytes,
					.buf = !dax ? NULL : k < first ? dax :
					       dax + o.bytes + (k - first) * o.stream_bytes };
	wl_run_threads("loaded", n, worker, w, sizeof(w[0]));
	for (int k = 0; k < n; k++) {
		placed = placed < w[k].placed ? placed : w[k].placed;
		if (k >= first) {
			load_bytes += w[k].moved.read_bytes + w[k].moved.write_bytes;
			load_s = load_s > w[k].seconds ? load_s : w[k].seconds;
		}
	}

	printf("{\"workload\":\"loaded\",\"node\":%d,\"bytes\":%zu,"
	       "\"stream_bytes\":%zu,\"load_threads\":%d,\"mix\":\"%s\","
	       "\"pattern\":\"%s\",\"passes\":%d,\"accesses\":%llu,"
	       "\"chase_ns_per_access\":%.1f,\"chase_s\":%.3f,"
	       "\"load_gbps\":%.3f,\"load_bytes\":%.0f,\"load_s\":%.3f,"
	       "\"on_node\":%.2f,\"clock\":\"guest\"",
	       o.node, o.bytes, o.stream_bytes, o.load_threads,
	       wl_kind_label(__builtin_ctz(o.kinds)),
	       o.random ? "random" : "seq", o.passes,
	       (unsigned long long)w[0].accesses,
	       w[0].accesses ? w[0].seconds * 1e9 / w[0].accesses : 0.0,
	       neighbour ? 0.0 : w[0].seconds,
	       load_s > 0 ? load_bytes / load_s / 1e9 : 0.0, load_bytes,
	       load_s, placed);
	if (!neighbour)		/* a neighbour builds no chain */
		printf(",\"chain\":\"%s\"", wl_chain_name(&chain));
	if (o.dax)
		printf(",\"dax\":\"%s\"", o.dax);
	if (o.neighbour)
		printf(",\"host\":\"%s\",\"neighbour\":%s,\"sync\":\"%s\"",
		       wl_host(), neighbour ? "true" : "false", sync_how);
	roi_print(stdout);
	printf("}\n");
	return 0;
}
