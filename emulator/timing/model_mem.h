/* SPDX-License-Identifier: MIT */
/*
 * The memory hierarchy of one host: private L1 and L2 per vCPU with a
 * stream prefetcher at L2, a shared last level per host, and the fabric
 * below. tm_mem_access() answers "when may this core go on?" for one
 * access; only last-level misses (and dirty write-backs) reach memory.
 *
 * Loads block until their data arrives: a dependent chain pays the full
 * latency of each miss. Stores retire into a store buffer: they only wait
 * for a free miss slot. The prefetcher is what overlaps misses of a
 * stream, up to the core's bound on misses in flight; with enough of them
 * a stream runs at the narrowest resource's bandwidth.
 */
#ifndef CXLBED_MODEL_MEM_H
#define CXLBED_MODEL_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "model_cache.h"
#include "model_fabric.h"

struct tm_mem_cfg {
	uint32_t line_bytes;
	uint64_t l1_bytes, l2_bytes, llc_bytes;
	uint32_t l1_ways, l2_ways, llc_ways;
	int mlp;		/* misses in flight per core */
	int prefetch_distance;	/* lines; 0 = no prefetcher */
	/*
	 * A last-level miss served from another core's L2 (a snoop) arrives
	 * this long after it was issued, and holds a miss slot meanwhile.
	 */
	double snoop_ns;
};

/* Guest pages: x86's 4 KiB (a huge page maps its 4 KiB parts alike), and
 * the most lines one holds (16-byte lines) */
#define TM_PAGE_SHIFT 12
#define TM_PAGE_LINES_MAX 256
#define TM_PASSED_PAGES 4
/* cores of a host whose caches the model knows (TM_MAX_VCPUS) */
#define TM_HOST_CORES 32
/* pages a core remembers a stream entering from their physical neighbour */
#define TM_CLAIMED 16
/* buckets of guest pages in the snoop filter (model_holders.h) */
#define TM_HOLD_BUCKETS (1u << 16)

struct tm_mem_stats {
	uint64_t accesses, loads, stores;
	uint64_t l1_miss, l2_miss, llc_miss;
	uint64_t mem_reads[2], mem_writes[2];	/* [0] local, [1] cxl */
	uint64_t prefetches;
	/* tm_mem_page_hop: calls whose page moved, and lines moved with it */
	uint64_t page_hops, hop_lines;
	/* pages entered at an end from a page elsewhere, not hopped because
	 * kernel code ran since the page before (the plugin's page_entered) */
	uint64_t hops_refused;
	/* lines a stream fetched past its page's end that the core then used
	 * without entering that page from the stream's: fetched again */
	uint64_t runon_refetched;
	/* last-level misses another core's L2 of the host served (snoop) */
	uint64_t snoop_hits;
	/* lines this core's stores took from other cores' caches */
	uint64_t invalidations;
	/* non-temporal stores' lines written to memory (tm_mem_store_nt) */
	uint64_t nt_stores;
	/*
	 * lines of modeled memory QEMU served through its I/O path (each
	 * access decoded by a device model) rather than like RAM: a stock
	 * QEMU's CXL windows; 0 for them on cxlbed's QEMU (docs/qemu.md)
	 */
	uint64_t mmio_lines;
	double stall_ns;
};

struct tm_cpu_mem;

struct tm_host_mem {
	struct tm_mem_cfg cfg;
	unsigned int line_shift;
	/* a lock in each set (mc_level_init_locked, llc_lock_of) */
	struct mc_level llc;
	struct mf_fabric *fabric;
	/* the host's cores, whose L2s a last-level miss looks in (snoop) */
	struct tm_cpu_mem *cores[TM_HOST_CORES];
	int ncores;
	/*
	 * The snoop filter (model_holders.h): per bucket of guest pages, the
	 * cores (bit i: cores[i]) that may hold one of its lines in L1 or L2.
	 */
	uint32_t *holders;
	/*
	 * One requester: the host's only vCPU, and no other host on the
	 * segment. Nobody else touches the last level then: no lock.
	 */
	bool solo;
};

struct tm_cpu_mem {
	int who;		/* requester id on shared resources; -1 none */
	/* the line touched last: in L1 and most recent, so a repeat is a hit */
	uint64_t last_line;
	bool last_dirty;
	/*
	 * Where the caller keeps its own shortcut for repeats of the last
	 * line (the plugin's virtual line; NULL: none): zeroed, as last_line
	 * is, when another core takes that line away (invalidate_others).
	 */
	uint64_t *repeat_key;
	struct mc_level l1, l2;
	/*
	 * The snoop filter's side of this core (model_holders.h): its bit in
	 * the host's holders (0 until tm_host_mem_add_core), its lines in L1
	 * and L2 per bucket (and a second array to recount into), and whether
	 * another core took lines from it since it last counted (then the
	 * counts may be high), with when it may count again (its L2 misses).
	 */
	uint32_t bit;
	uint32_t *held, *held_scratch;
	bool held_high;
	uint64_t recount_at;
	struct mc_prefetcher pf;
	struct mf_window win;
	/*
	 * The prefetcher stopped for want of a free miss slot at this time
	 * and has wanted lines since (< 0: it got all it wanted). A slot
	 * that frees in between serves it at once, not at the core's next
	 * access (prefetch() in model_mem.c).
	 */
	double pf_starved;
	double wb_until;	/* latest write-back of the fill under way got through */
	/*
	 * The line a non-temporal store wrote last, plus 1 (0: none): its
	 * write-combining buffer, where the rest of the line's stores merge
	 * even with loads between them (a copy loop).
	 */
	uint64_t wc_line;
	/*
	 * The prefetcher went on past the page of the line it was asked for
	 * and found lines there already cached (someone's data, in physical
	 * memory after this page) or fetched them: when each was passed, by
	 * its line in the page (< 0: not passed), for the last few such pages
	 * (streams side by side run on into different ones). Should the
	 * stream's next page lie elsewhere, those are the moments its lines
	 * would have been fetched (tm_mem_page_hop).
	 */
	uint64_t passed_page[TM_PASSED_PAGES];
	double passed_at[TM_PASSED_PAGES][TM_PAGE_LINES_MAX];
	unsigned int passed_next;
	/*
	 * Pages (line >> page shift, plus 1; 0: none) a stream lately entered
	 * from the page physically before it (after, going down), or by a
	 * hop: the lines run on into them are its (tm_mem_page_claim), and
	 * no other stream's hop takes them (tm_mem_page_hop). A ring.
	 */
	uint64_t claimed[TM_CLAIMED];
	unsigned int claimed_next;
	struct tm_mem_stats st;
};

bool tm_host_mem_init(struct tm_host_mem *h, const struct tm_mem_cfg *cfg,
		      struct mf_fabric *fabric);
void tm_host_mem_free(struct tm_host_mem *h);
bool tm_cpu_mem_init(struct tm_cpu_mem *c, const struct tm_host_mem *h);
void tm_cpu_mem_free(struct tm_cpu_mem *c);
/*
 * @c is one of @h's cores from now on: its L2 can serve the others'
 * last-level misses. The caller serialises calls; cores never leave.
 */
void tm_host_mem_add_core(struct tm_host_mem *h, struct tm_cpu_mem *c);

/* Everything but a repeat of the last line (tm_mem_access). */
double tm_mem_access_line(struct tm_host_mem *h, struct tm_cpu_mem *c,
			  uint64_t line, bool store, double now);

/*
 * A non-temporal store to @pa (memory) at @now: written to memory past
 * every cache (model_mem.c). Returns when the core may go on.
 */
double tm_mem_store_nt(struct tm_host_mem *h, struct tm_cpu_mem *c,
		       uint64_t pa, double now);

/*
 * clflush/clflushopt/clwb of @pa at @now: the line leaves every cache of
 * the host (clwb keeps a clean copy on hardware; the model drops it too),
 * and a dirty copy is written to memory. Returns when the core may go on
 * (a write-back takes a miss slot, as a non-temporal store's does). For
 * memory shared with other hosts without coherence (model_stale.h).
 */
double tm_mem_flush(struct tm_host_mem *h, struct tm_cpu_mem *c, uint64_t pa,
		    double now);

/*
 * The core's accesses went on into the next virtual page, which is not
 * the next physical one: the prefetcher guessed the page at line @from
 * and it is at line @to (@span lines a page). At @now, before the access.
 * If a stream was entering @from, what it fetched (or passed as cached)
 * there moves to @to and the stream goes on from there; else nothing.
 */
void tm_mem_page_hop(struct tm_host_mem *h, struct tm_cpu_mem *c,
		     uint64_t from, uint64_t to, uint32_t span, double now);

/*
 * The core's accesses went on into the next virtual page, and it is the
 * next physical one too (line @first is its first): what the prefetcher
 * fetched there running on past the page before is the stream's. Lines it
 * fetched past a page's end that no stream claimed are fetched again when
 * the core uses them: a core's prefetcher follows a stream into its
 * virtually next page, never into whatever lies after it physically.
 */
void tm_mem_page_claim(struct tm_host_mem *h, struct tm_cpu_mem *c,
		       uint64_t first);

/*
 * One access to cacheable physical address @pa at modeled time @now
 * (already known to be memory, local or CXL). Returns the modeled time at
 * which the core may go on (>= now). Most accesses touch the line before
 * them again: that case is decided here, inline, at no cost.
 */
static inline double tm_mem_access(struct tm_host_mem *h, struct tm_cpu_mem *c,
				   uint64_t pa, bool store, double now)
{
	uint64_t line = pa >> h->line_shift;

	if (line + 1 == c->last_line && (!store || c->last_dirty)) {
		c->st.accesses++;
		c->st.stores += store;
		c->st.loads += !store;
		return now;
	}
	return tm_mem_access_line(h, c, line, store, now);
}

#endif
