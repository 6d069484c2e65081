// SPDX-License-Identifier: MIT
/*
 * cxlbed-stream: bandwidth of one NUMA node for sequential or random line
 * order and for reads, writes and 2:1 / 1:1 read:write mixes. Each of
 * --threads threads, pinned to its own vCPU, streams its own buffer; each
 * phase (kind) is one region of interest per thread, ids in roi.h.
 * With --dax daxN.M the buffers are back to back in the devdax device
 * instead (a shared pool: every host streams the same bytes).
 * A phase that writes starts with the LLC full of dirty lines of the
 * measured memory (evict.h), so that its figure includes write-backs.
 */
#include <pthread.h>
#include <stdio.h>

#include "evict.h"
#include "pass.h"
#include "roi.h"
#include "thread.h"
#include "wl.h"

struct streamer {
	int k;
	void *buf;
	double placed;
};

static struct wl_opts o = {
	/* Sized for emulated CXL memory under TCG (~1 us an access): a
	 * phase of one 8 MiB pass takes seconds with the timing plugin. */
	.node = -1, .bytes = 8 << 20, .threads = 1, .passes = 1,
	.kinds = 1 << WL_READ | 1 << WL_WRITE, .evict = WL_EVICT_DEFAULT,
};
static pthread_barrier_t bar;
static uint64_t start_ns;	/* where each phase's region starts (wl_tick_start) */
static double wall_s[WL_NKINDS];	/* guest clock, first begin to last end */
static struct wl_moved moved[WL_NKINDS];	/* all threads */
static pthread_mutex_t moved_lock = PTHREAD_MUTEX_INITIALIZER;

static void phase(struct streamer *s, int kind)
{
	size_t lines = o.bytes / WL_LINE;
	struct wl_moved m = { 0 };
	struct roi_entry e = {
		.id = ROI_STREAM + 100 * kind + s->k, .kind = wl_kind_roi(kind),
		.thread = s->k, .role = "streamer",
	};
	double t0;

	wl_evict();
	pthread_barrier_wait(&bar);
	if (kind != WL_READ && s->k == 0)
		wl_evict_dirty(kind);
	if (s->k == 0)
		start_ns = wl_tick_start();
	pthread_barrier_wait(&bar);
	t0 = wl_sleep_until(start_ns) / 1e9;	/* every thread: the same point */
	ROI_MARK_KIND(CXLBED_ROI_BEGIN, ROI_STREAM, kind, s->k);
	for (int p = 0; p < o.passes; p++)
		wl_pass(s->buf, lines, kind, o.random, s->k * 7919 + p, &m);
	e.bytes = m.read_bytes + m.write_bytes;
	if (kind == WL_MIX21 || kind == WL_MIX11) {
		e.mix = wl_kind_label(kind);
		e.read_fraction = (double)m.read_bytes / e.bytes;
	}
	ROI_END_RECORD(ROI_MARK_KIND(CXLBED_ROI_END, ROI_STREAM, kind, s->k), &e);
	pthread_barrier_wait(&bar);
	if (s->k == 0)
		wall_s[kind] = wl_now() - t0;
	pthread_mutex_lock(&moved_lock);
	moved[kind].read_bytes += m.read_bytes;
	moved[kind].write_bytes += m.write_bytes;
	pthread_mutex_unlock(&moved_lock);
}

static void *streamer(void *arg)
{
	struct streamer *s = arg;

	wl_pin("stream", s->k);
	/* bound and touched here, so each thread faults its own pages in */
	if (!s->buf) {
		s->buf = wl_alloc_on_node("stream", o.bytes, o.node);
		s->placed = wl_on_node(s->buf, o.bytes, o.node);
	}
	for (int kind = 0; kind < WL_NKINDS; kind++)
		if (o.kinds & 1u << kind)
			phase(s, kind);
	return NULL;
}

int main(int argc, char **argv)
{
	static const char *const key[WL_NKINDS] = {
		[WL_READ] = "read", [WL_WRITE] = "write",
		[WL_MIX21] = "mix21", [WL_MIX11] = "mix11",
	};
	struct streamer s[WL_MAX_THREADS];
	double placed = 1.0;
	char *dax = NULL;
	bool writes;

	cxlbed_roi_arm();	/* early: arming re-reads the plugin's config */
	wl_parse("stream", argc, argv, &o, WL_OPT_THREADS | WL_OPT_MIX |
		 WL_OPT_PATTERN | WL_OPT_PASSES | WL_OPT_DAX);
	if (o.bytes < WL_LINE)
		wl_fail("stream", "--bytes must hold at least one %d-byte line",
			WL_LINE);
	o.bytes -= o.bytes % WL_LINE;
	writes = o.evict && (o.kinds & ~(1u << WL_READ));
	if (o.threads > wl_ncpus())
		wl_fail("stream", "--threads %d: only %d vCPUs (one thread each)",
			o.threads, wl_ncpus());
	wl_evict_init("stream", o.evict);
	pthread_barrier_init(&bar, NULL, o.threads);
	/* the dirty eviction buffer follows the streams' buffers */
	if (o.dax)
		dax = wl_map_dax("stream", o.dax, o.threads * o.bytes +
				 (writes ? o.evict : 0));
	if (writes)
		wl_evict_dirty_init(dax ? dax + o.threads * o.bytes :
				    wl_alloc_on_node("stream", o.evict, o.node));
	for (int k = 0; k < o.threads; k++)
		s[k] = (struct streamer){ .k = k, .placed = 1.0,
					  .buf = dax ? dax + k * o.bytes : NULL };
	wl_run_threads("stream", o.threads, streamer, s, sizeof(s[0]));
	for (int k = 0; k < o.threads; k++)
		placed = placed < s[k].placed ? placed : s[k].placed;

	printf("{\"workload\":\"stream\",\"node\":%d,\"bytes\":%zu,"
	       "\"threads\":%d,\"pattern\":\"%s\",\"passes\":%d",
	       o.node, o.bytes, o.threads, o.random ? "random" : "seq",
	       o.passes);
	if (o.dax)
		printf(",\"dax\":\"%s\"", o.dax);
	for (int kind = 0; kind < WL_NKINDS; kind++) {
		double b = moved[kind].read_bytes + moved[kind].write_bytes;

		if (!(o.kinds & 1u << kind))
			continue;
		/* no time seen (a clock that stood still): no rate, and
		 * never "inf", which is not JSON */
		if (wall_s[kind] > 0)
			printf(",\"%s_gbps\":%.3f", key[kind], b / wall_s[kind] / 1e9);
		else
			printf(",\"%s_gbps\":null", key[kind]);
		printf(",\"%s_bytes\":%.0f,\"%s_s\":%.3f", key[kind], b,
		       key[kind], wall_s[kind]);
	}
	printf(",\"on_node\":%.2f,\"clock\":\"guest\"", placed);
	roi_print(stdout);
	printf("}\n");
	return 0;
}
