// SPDX-License-Identifier: MIT
/*
 * cxlbed-chase: idle load-to-use latency of one NUMA node. A chase through
 * every line of a working set much larger than the caches in a scattered
 * order (cycle.h: stored pointers or a computed order): every load depends
 * on the previous one, so ns/access is the latency. The chase is region of
 * interest 1 for the timing model; with --no-markers only the guest's own
 * clock times it (modeled time under cxlbed's guest clock).
 */
#include <stdint.h>
#include <stdio.h>

#include "cycle.h"
#include "evict.h"
#include "roi.h"
#include "thread.h"
#include "wl.h"

/* Keeps the chase from being optimised away. */
static volatile uint64_t sink;

int main(int argc, char **argv)
{
	/*
	 * 64 MiB: twice the default topology's modeled LLC. 200000 accesses
	 * stay within one lap of its 2^20 lines, so none hits a cache.
	 */
	struct wl_opts o = { .node = -1, .bytes = 64 << 20, .accesses = 200000,
			     .evict = WL_EVICT_DEFAULT };
	struct roi_entry e = { .id = ROI_CHASE, .kind = "chase",
			       .role = "chaser" };
	struct wl_chain chain;
	struct wl_line *buf;
	uint64_t done = 0, chunk, at;
	double t0, t1, placed;
	size_t n;

	wl_parse("chase", argc, argv, &o, WL_OPT_ACCESSES | WL_OPT_SECONDS |
		 WL_OPT_DAX | WL_OPT_CHAIN | WL_OPT_MARKERS);
	if (!o.no_markers)
		cxlbed_roi_arm();	/* early: arming re-reads the plugin's config */
	wl_pin("chase", 0);	/* the region is then one vCPU's */
	n = o.bytes / WL_LINE;
	if (o.dax) {
		buf = wl_map_dax("chase", o.dax, n * WL_LINE);
		placed = 1.0;
	} else {
		buf = wl_alloc_on_node("chase", n * WL_LINE, o.node);
		placed = wl_on_node(buf, n * WL_LINE, o.node);
	}
	wl_chain_build("chase", &chain, buf, n, 0x9e3779b97f4a7c15ULL, o.chain);
	wl_evict_init("chase", o.evict);

	at = wl_chain_walk(&chain, 10000);	/* warm the TLB a little */
	wl_evict();
	/* With --seconds, run in chunks until the time is up. */
	chunk = o.seconds > 0 ? 65536 : o.accesses;
	if (!o.no_markers) {
		wl_sleep_until(wl_tick_start());
		cxlbed_roi_begin(ROI_CHASE);
	}
	t0 = wl_now();
	do {
		at = wl_chain_walk(&chain, chunk);
		done += chunk;
		t1 = wl_now();
	} while (o.seconds > 0 && t1 - t0 < o.seconds);
	e.accesses = done;
	if (!o.no_markers)
		ROI_END_RECORD(cxlbed_roi_end(ROI_CHASE), &e);

	printf("{\"workload\":\"chase\",\"node\":%d,\"bytes\":%zu,\"accesses\":%llu,"
	       "\"ns_per_access\":%.1f,\"seconds\":%.3f,\"on_node\":%.2f,"
	       "\"clock\":\"guest\",\"chain\":\"%s\"",
	       o.node, n * WL_LINE, (unsigned long long)done,
	       (t1 - t0) * 1e9 / done, t1 - t0, placed, wl_chain_name(&chain));
	if (o.dax)
		printf(",\"dax\":\"%s\"", o.dax);
	if (!o.no_markers)
		roi_print(stdout);
	printf("}\n");
	sink = at;
	return 0;
}
