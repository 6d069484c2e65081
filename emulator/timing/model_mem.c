// SPDX-License-Identifier: MIT
#include "model_mem.h"
#include "model_holders.h"
#include "spin_lock.h"

#include <stdlib.h>
#include <string.h>

bool tm_host_mem_init(struct tm_host_mem *h, const struct tm_mem_cfg *cfg,
		      struct mf_fabric *fabric)
{
	memset(h, 0, sizeof(*h));
	h->cfg = *cfg;
	h->fabric = fabric;
	if (!cfg->line_bytes || (cfg->line_bytes & (cfg->line_bytes - 1)))
		return false;
	while ((1u << h->line_shift) < cfg->line_bytes)
		h->line_shift++;
	h->holders = calloc(TM_HOLD_BUCKETS, sizeof(*h->holders));
	if (!h->holders)
		return false;
	if (!mc_level_init_locked(&h->llc, cfg->llc_bytes, cfg->llc_ways,
				  cfg->line_bytes)) {
		tm_host_mem_free(h);
		return false;
	}
	return true;
}

void tm_host_mem_free(struct tm_host_mem *h)
{
	mc_level_free(&h->llc);
	free(h->holders);
	h->holders = NULL;
}

bool tm_cpu_mem_init(struct tm_cpu_mem *c, const struct tm_host_mem *h)
{
	memset(c, 0, sizeof(*c));
	c->held = calloc(TM_HOLD_BUCKETS, sizeof(*c->held));
	c->held_scratch = calloc(TM_HOLD_BUCKETS, sizeof(*c->held_scratch));
	if (!c->held || !c->held_scratch ||
	    !mc_level_init(&c->l1, h->cfg.l1_bytes, h->cfg.l1_ways,
			   h->cfg.line_bytes) ||
	    !mc_level_init(&c->l2, h->cfg.l2_bytes, h->cfg.l2_ways,
			   h->cfg.line_bytes)) {
		tm_cpu_mem_free(c);
		return false;
	}
	c->who = -1;
	c->pf_starved = -1;
	c->pf.distance = h->cfg.prefetch_distance;
	for (unsigned int i = 0; i < TM_PASSED_PAGES; i++)
		c->passed_page[i] = UINT64_MAX;
	mf_window_init(&c->win, h->cfg.mlp);
	return true;
}

void tm_cpu_mem_free(struct tm_cpu_mem *c)
{
	mc_level_free(&c->l1);
	mc_level_free(&c->l2);
	free(c->held);
	free(c->held_scratch);
	c->held = c->held_scratch = NULL;
}

void tm_host_mem_add_core(struct tm_host_mem *h, struct tm_cpu_mem *c)
{
	int n = __atomic_load_n(&h->ncores, __ATOMIC_RELAXED);

	if (n >= TM_HOST_CORES)
		return;
	h->cores[n] = c;
	c->bit = 1u << n;
	tm_hold_join(h, c);
	__atomic_store_n(&h->ncores, n + 1, __ATOMIC_RELEASE);
}

/*
 * Is @line in another core's L1 or L2? Then a last-level miss gets it
 * from there, as a core's snoop does, not from memory: a line one core
 * wrote (a copy lane filling a slot) and another reads soon after (the
 * application thread) is not fetched from DRAM. It is not free either: a
 * cross-core transfer takes tens of nanoseconds on server parts, so it
 * arrives cfg.snoop_ns after it was asked for (or when the other core's
 * own fetch of it lands, if later) and holds a miss slot meanwhile, as a
 * memory fetch does. Both copies are then shared: the other core's is
 * clean from now on (a write of its own takes the line back from every
 * other core, invalidate_others), and the data it had written goes into
 * the last level dirty (*dirty), to reach memory when it leaves there.
 * The other core's caches are read and changed without its knowledge:
 * tags are whole 32-bit words and flags bytes, so a race with its own
 * fill of the set gives a stale answer or leaves a flag set, never a torn
 * entry; the worst a stale answer does is fetch from memory as before.
 * The ready time of a line still on its way there, in *ready.
 */
static bool snoop(const struct tm_host_mem *h, const struct tm_cpu_mem *c,
		  uint64_t line, double *ready, bool *dirty)
{
	/* only where the snoop filter says the line may be (model_holders.h) */
	for (uint32_t who = tm_holders(h, c, line); who; who &= who - 1) {
		struct tm_cpu_mem *o = h->cores[__builtin_ctz(who)];
		struct mc_ref r1, r2;

		mc_find(&o->l2, line, &r2);
		mc_find(&o->l1, line, &r1);
		if (r2.way < 0 && r1.way < 0)
			continue;
		*ready = r2.way >= 0 ? mc_ready(&o->l2, &r2) : mc_ready(&o->l1, &r1);
		*dirty = false;
		if (r2.way >= 0 && (mc_clear(&o->l2, &r2, MC_DIRTY) & MC_DIRTY))
			*dirty = true;
		if (r1.way >= 0 && (mc_clear(&o->l1, &r1, MC_DIRTY) & MC_DIRTY))
			*dirty = true;
		if (o->last_line == line + 1)
			o->last_dirty = false;	/* its next store must take it back */
		return true;
	}
	return false;
}

/*
 * A shared LLC line forgets its ready time once it is this far in the
 * past: far more than any skew bound, so no core can still be before it.
 */
#define TM_LLC_SETTLE_NS 1e6

/*
 * The lock of @line's set, on the set's own line (mc_level_init_locked).
 * With 64 locks on lines of their own, each covering sets hashed to it,
 * two streams that both swept every set moved a lock's line between the
 * host's cores at nearly every last-level operation, and took it with an
 * xchg, which waits for it: a quarter of two streaming vCPUs' host CPU.
 * The set's own lines move once a sweep, and mc_warm brings them early.
 */
static int *llc_lock_of(struct tm_host_mem *h, uint64_t line)
{
	return mc_set_lock(&h->llc, line);
}

static void llc_lock(struct tm_host_mem *h, uint64_t line)
{
	if (h->solo)
		return;
	tm_spin_lock(llc_lock_of(h, line));
}

static void llc_unlock(struct tm_host_mem *h, uint64_t line)
{
	if (h->solo)
		return;
	tm_spin_unlock(llc_lock_of(h, line));
}

/* @line's copy in the last level, if any, goes. */
static void llc_drop(struct tm_host_mem *h, uint64_t line)
{
	llc_lock(h, line);
	mc_take(&h->llc, line, 0, NULL);
	llc_unlock(h, line);
}

/* @line left @o's caches: no repeat of it may hit, it must miss. */
static void forget_repeat(struct tm_cpu_mem *o, uint64_t line)
{
	if (o->last_line == line + 1) {
		o->last_line = 0;
		if (o->repeat_key)
			*o->repeat_key = 0;
	}
}

/*
 * The other cores' copies of @line go (see invalidate_others), where the
 * snoop filter says they may be; the counts of a core it took from are
 * its own to mend (model_holders.h).
 */
static void take_from_others(struct tm_host_mem *h, struct tm_cpu_mem *c,
			     uint64_t line)
{
	bool took = false;

	for (uint32_t who = tm_holders(h, c, line); who; who &= who - 1) {
		struct tm_cpu_mem *o = h->cores[__builtin_ctz(who)];
		bool here = mc_take(&o->l1, line, 0, NULL);

		here |= mc_take(&o->l2, line, 0, NULL);
		if (here)
			tm_hold_taken(o);
		took |= here;
		forget_repeat(o, line);
	}
	c->st.invalidations += took;
}

/*
 * @c is about to write @line, which it does not hold dirty: the other
 * cores' copies go, and the last level's (a write takes the line for
 * itself, as a core's request for ownership does: the writer's copy is
 * the only up-to-date one, and a later reader gets it from there), so
 * that no core hits a line another has since written, and no snoop
 * serves a copy that is out of date. The last level's copy, dirty or
 * not, is superseded by the writer's, which reaches memory when it
 * leaves. One core alone has nobody to take the line from. Without
 * it a core's L2 kept lines long after another core had rewritten them
 * (the kernel zeroing a page on one vCPU for a buffer the other had used),
 * and a chase over them came out a tenth short of its path's latency in
 * some runs: which lines were left there followed the guest's scheduling,
 * not the model. The other core's caches are changed without its
 * knowledge, as snoop() reads them; a race with its own fill of the same
 * set can leave one line more or less there, never a torn entry. (A core
 * whose very last access was that line still takes its next access to it
 * as a repeat: tm_mem_access's shortcut.)
 */
static void invalidate_others(struct tm_host_mem *h, struct tm_cpu_mem *c,
			      uint64_t line)
{
	int n = __atomic_load_n(&h->ncores, __ATOMIC_ACQUIRE);

	if (n < 2)
		return;
	llc_drop(h, line);
	take_from_others(h, c, line);
}

/*
 * A dirty line leaves the last level: write it back. Nobody waits for the
 * write itself, but the way it leaves is only free once the write got
 * through the path: the fill that evicted it waits for that (c->wb_until),
 * so a stream of stores runs no faster than the path takes writes.
 */
static void write_back(struct tm_host_mem *h, struct tm_cpu_mem *c,
		       uint64_t line, double now)
{
	struct mf_target *t = mf_decode(h->fabric, line << h->line_shift, false);
	double passed;

	if (!t)
		return;
	mf_access_by(t, MF_WRITE, now, h->cfg.line_bytes, c->who, &passed);
	if (passed > c->wb_until)
		c->wb_until = passed;
	c->st.mem_writes[t->cxl]++;
}

/* Where llc_fill found a line. */
enum llc_source {
	LLC_HIT,	/* in the last level already: no request */
	LLC_SNOOP,	/* another core's L2: a request that holds a miss slot */
	LLC_MEMORY,	/* fetched through the fabric */
};

/*
 * Fetch @line (of target @t, NULL: not memory) into the last level (LLC
 * lock held) if it is not there, issued at @issue; returns when its data
 * is in, and where it came from in *src.
 */
static double llc_fill(struct tm_host_mem *h, struct tm_cpu_mem *c,
		       uint64_t line, struct mf_target *t, double issue,
		       enum llc_source *src)
{
	struct mc_ref r;
	uint64_t victim;
	double ready;
	bool dirty = false;

	*src = LLC_HIT;
	mc_find(&h->llc, line, &r);
	/* cores may be up to the skew bound behind this one: keep a margin */
	if (r.way >= 0) {
		mc_use(&h->llc, &r, 0, 0, issue - TM_LLC_SETTLE_NS, &ready);
		return ready;
	}
	if (snoop(h, c, line, &ready, &dirty)) {
		c->st.snoop_hits++;
		*src = LLC_SNOOP;
		if (ready < issue + h->cfg.snoop_ns)
			ready = issue + h->cfg.snoop_ns;
	} else {
		ready = t ? mf_access_by(t, MF_READ, issue, h->cfg.line_bytes,
					 c->who, NULL) : issue;
		if (t)
			c->st.mem_reads[t->cxl]++;
		*src = LLC_MEMORY;
	}
	c->wb_until = 0;
	if (mc_put(&h->llc, &r, dirty ? MC_DIRTY : 0, ready, &victim, NULL))
		write_back(h, c, victim, issue);
	/* the line goes in where the victim was: not before it has left */
	if (c->wb_until > ready)
		ready = c->wb_until;
	return ready;
}

/* Dirty line out of L2 goes to the last level. */
static void l2_victim(struct tm_host_mem *h, struct tm_cpu_mem *c,
		      uint64_t line, double now)
{
	struct mc_ref r;
	uint64_t victim;

	llc_lock(h, line);
	mc_find(&h->llc, line, &r);
	if (r.way >= 0)
		mc_use(&h->llc, &r, MC_DIRTY, 0, 0, NULL);
	else if (mc_put(&h->llc, &r, MC_DIRTY, now, &victim, NULL))
		write_back(h, c, victim, now);
	llc_unlock(h, line);
}

/*
 * Put the line @r did not find in @c's L1 or L2 (@l) there: counted in
 * the snoop filter before it goes in, its victim after it left
 * (model_holders.h). True when the victim was dirty (*victim).
 */
static bool own_put(struct tm_host_mem *h, struct tm_cpu_mem *c,
		    struct mc_level *l, const struct mc_ref *r, uint8_t flags,
		    double ready, uint64_t *victim)
{
	uint64_t gone;
	bool dirty;

	tm_hold_add(h, c, mc_ref_line(l, r));
	dirty = mc_put(l, r, flags, ready, victim, &gone);
	if (gone)
		tm_hold_sub(h, c, gone - 1);
	return dirty;
}

/* Put @line, which @r did not find in L2, there. */
static void l2_put(struct tm_host_mem *h, struct tm_cpu_mem *c,
		   const struct mc_ref *r, uint8_t flags, double ready,
		   double now)
{
	uint64_t victim;

	if (own_put(h, c, &c->l2, r, flags, ready, &victim))
		l2_victim(h, c, victim, now);
}

/* Put the line @r did not find in L1 there; a dirty victim goes to L2. */
static void l1_put(struct tm_host_mem *h, struct tm_cpu_mem *c,
		   const struct mc_ref *r, uint8_t flags, double ready,
		   double now)
{
	struct mc_ref r2;
	uint64_t victim;

	if (!own_put(h, c, &c->l1, r, flags, ready, &victim))
		return;
	mc_find(&c->l2, victim, &r2);
	if (r2.way >= 0)
		mc_use(&c->l2, &r2, MC_DIRTY, 0, 0, NULL);
	else
		l2_put(h, c, &r2, MC_DIRTY, now, now);
}

/*
 * A miss slot for a request of the core's own (a demand miss, a
 * non-temporal write) at @now: when one is free. It takes the slot a
 * waiting prefetcher would have had: the prefetcher's next request goes
 * no earlier, keeping the core's requests in time order.
 */
static double own_request_slot(struct tm_cpu_mem *c, double now)
{
	double issue = mf_window_slot(&c->win, now);

	if (c->pf_starved >= 0 && c->pf_starved < issue)
		c->pf_starved = issue;
	return issue;
}

static struct mf_target *target_of(const struct tm_host_mem *h, uint64_t line)
{
	return mf_decode(h->fabric, line << h->line_shift, false);
}

/*
 * A line the prefetcher passed longer ago than this was not passed by the
 * stream now entering a page (it takes ~1 us a page even from CXL).
 */
#define TM_PASSED_NS 20000.0

static unsigned int tm_page_shift(const struct tm_host_mem *h)
{
	return TM_PAGE_SHIFT - h->line_shift;
}

/* When the prefetcher passed the lines of @page (NULL: not lately). */
static double *passed_in(struct tm_cpu_mem *c, uint64_t page)
{
	for (unsigned int i = 0; i < TM_PASSED_PAGES; i++)
		if (c->passed_page[i] == page)
			return c->passed_at[i];
	return NULL;
}

/*
 * The prefetcher passed @line (cached already) or fetched it, in a page
 * after the core's, at @now.
 */
static void passed(struct tm_cpu_mem *c, uint64_t line, unsigned int page_shift,
		   double now)
{
	uint64_t page = line >> page_shift;
	double *at = passed_in(c, page);

	if (!at) {
		unsigned int i = c->passed_next++ % TM_PASSED_PAGES;

		c->passed_page[i] = page;
		at = c->passed_at[i];
		for (unsigned int j = 0; j < 1u << page_shift; j++)
			at[j] = -1;
	}
	at[line & ((1u << page_shift) - 1)] = now;
}

/*
 * When the prefetcher's next request goes out, the core being at @now: at
 * once, unless the prefetcher has been waiting for a miss slot; then when
 * the earliest slot freed (if that was after it began to wait). A core's
 * prefetcher issues as soon as a request buffer frees, not at the core's
 * next access. Issued at the access, every slot that freed meanwhile went
 * out at one moment: a stream held to its miss slots kept them in one
 * cluster, spaced only by the memory's transfer time, and stalled on the
 * cluster's head every round; a stream whose slots happened to be spread
 * did not. Which of the two a stream fell into depended on what came
 * before it (a kernel interrupt's few misses flipped it), and the same
 * stream read 6.31 or 6.56 GB/s.
 */
static double prefetch_issue(const struct tm_cpu_mem *c, double now)
{
	double freed = mf_window_earliest(&c->win);

	if (c->pf_starved < 0 || freed >= now)
		return now;
	return freed > c->pf_starved ? freed : c->pf_starved;
}

/* How far past the prefetcher's next line the sets are warmed (mc_warm) */
#define WARM_AHEAD 2

/* Run the stream prefetcher after the core touched @line at @now. */
static void prefetch(struct tm_host_mem *h, struct tm_cpu_mem *c,
		     uint64_t line, double now)
{
	unsigned int page_shift = tm_page_shift(h);
	uint64_t first, l;
	int dir, stream, n, i;

	n = mc_prefetch_observe(&c->pf, line, &first, &dir, &stream);
	if (n <= 0)
		return;
	for (i = 0, l = first; i < n; i++, l += dir) {
		struct mf_target *t;
		struct mc_ref r;
		enum llc_source src;
		double ready, issue;
		bool past = l >> page_shift != line >> page_shift;

		mc_find(&c->l2, l, &r);
		if (r.way >= 0) {
			if (!past)
				continue;
			/*
			 * Past the page: the line the stream wants may be
			 * elsewhere, so this counts as a request in flight (a
			 * miss slot until a fetch would be back).
			 */
			if (!mf_window_has_free(&c->win, now))
				break;
			issue = prefetch_issue(c, now);
			t = target_of(h, l);
			mf_window_fill(&c->win, issue + (t ? mf_target_latency(t, MF_READ) : 0));
			passed(c, l, page_shift, issue);
			continue;
		}
		/* a prefetch never stalls the core: stop when slots run out */
		if (!mf_window_has_free(&c->win, now))
			break;
		issue = prefetch_issue(c, now);
		t = target_of(h, l);
		llc_lock(h, l);
		ready = llc_fill(h, c, l, t, issue, &src);
		llc_unlock(h, l);
		if (src != LLC_HIT)
			mf_window_fill(&c->win, ready);
		c->st.prefetches++;
		if (past)
			passed(c, l, page_shift, issue);
		/* may take the LLC lock for a dirty victim: not held here */
		l2_put(h, c, &r, MC_PREFETCHED |
		       (src != LLC_HIT && past ? MC_RUNON : 0),
		       ready, now);
	}
	/*
	 * The L2 and last-level set blocks of the stream's request after
	 * next, into the host's caches now: QEMU's own traffic pushes them
	 * out, and a stream's lookups then waited for host memory.
	 */
	mc_warm(&c->l2, l + dir * WARM_AHEAD);
	mc_warm(&h->llc, l + dir * WARM_AHEAD);
	/* stopped short for want of a slot: it waits from now on, if not before */
	if (i < n) {
		if (c->pf_starved < 0)
			c->pf_starved = now;
	} else {
		c->pf_starved = -1;
	}
	mc_prefetch_issued(&c->pf, stream, l);
}

/* Put @line, fetched for the core's stream with data there at @ready, in L2 and the LLC. */
static void hop_put(struct tm_host_mem *h, struct tm_cpu_mem *c, uint64_t line,
		    double ready, double now)
{
	uint64_t victim;
	struct mc_ref r;

	llc_lock(h, line);
	mc_find(&h->llc, line, &r);
	if (r.way < 0 && mc_put(&h->llc, &r, 0, ready, &victim, NULL))
		write_back(h, c, victim, now);
	llc_unlock(h, line);
	mc_find(&c->l2, line, &r);
	l2_put(h, c, &r, MC_PREFETCHED, ready, now);
}

/* Fetch @line of @t for the core's stream as of @issue (in the past). */
static void hop_fetch(struct tm_host_mem *h, struct tm_cpu_mem *c, uint64_t line,
		      struct mf_target *t, double issue, double now)
{
	struct mc_ref r;
	enum llc_source src;
	double ready;

	llc_lock(h, line);
	ready = llc_fill(h, c, line, t, issue, &src);
	llc_unlock(h, line);
	c->st.prefetches++;
	mc_find(&c->l2, line, &r);
	l2_put(h, c, &r, MC_PREFETCHED, ready, now);
}

/* @line's page as the claim ring holds it (0 stands for none). */
static uint64_t claim_key(const struct tm_host_mem *h, uint64_t line)
{
	return (line >> tm_page_shift(h)) + 1;
}

static bool claimed(const struct tm_host_mem *h, const struct tm_cpu_mem *c,
		    uint64_t line)
{
	uint64_t key = claim_key(h, line);

	for (unsigned int i = 0; i < TM_CLAIMED; i++)
		if (c->claimed[i] == key)
			return true;
	return false;
}

/* A stream entered @line's page from the page before it: what ran on into it is its own. */
static void claim(const struct tm_host_mem *h, struct tm_cpu_mem *c, uint64_t line)
{
	if (!claimed(h, c, line))
		c->claimed[c->claimed_next++ % TM_CLAIMED] = claim_key(h, line);
}

/*
 * The prefetcher follows physical lines, so when a stream crosses into a
 * virtual page that lies elsewhere, what it fetched beyond the old page
 * were the lines after it in physical memory, and the new page's first
 * lines miss: three demand misses a page until the stream is confirmed
 * again. A real core misses and prefetches in virtual order (many misses
 * in flight, next-page prefetch), so a stream costs about the same on
 * scattered 4 KiB pages as on contiguous ones; the model's stream did not,
 * and a policy's figures depended on how fragmented its node was. Move
 * what was fetched to the lines it was meant for, same ready times, and
 * let the stream go on there. Both ends of the page are looked at (an
 * ascending stream enters at the start, a descending one at the end).
 */
void tm_mem_page_hop(struct tm_host_mem *h, struct tm_cpu_mem *c,
		     uint64_t from, uint64_t to, uint32_t span, double now)
{
	uint32_t n = c->pf.distance > 0 ? (uint32_t)c->pf.distance : 0;
	uint64_t run[2] = { 0, 0 };	/* lines there in a row from each end */
	const double *at;
	bool theirs;

	if (!mc_prefetch_entering(&c->pf, from, span))
		return;		/* no stream there: nothing went astray */
	at = passed_in(c, from >> tm_page_shift(h));
	/*
	 * Another stream entered that page since (pages in descending
	 * physical order: V's first page runs on into K's second): what
	 * is there is its, not to be taken from it.
	 */
	theirs = claimed(h, c, from);
	if (n > span / 2)
		n = span / 2;
	for (uint32_t i = 0; i < 2 * n; i++) {
		int end = i >= n;
		uint32_t k = end ? i - n : i, off = end ? span - 1 - k : k;
		struct mf_target *t = target_of(h, to + off), *was;
		double ready;

		if (!theirs && mc_take(&c->l2, from + off, MC_PREFETCHED, &ready)) {
			tm_hold_sub(h, c, from + off);
			was = target_of(h, from + off);
			if (mc_contains(&c->l2, to + off))
				;	/* there already: nothing to move */
			else if (was == t)
				hop_put(h, c, to + off, ready, now);
			else	/* fetched from another path: from the right one, then */
				hop_fetch(h, c, to + off, t,
					  ready - (was ? mf_target_latency(was, MF_READ) : 0),
					  now);
		} else if (at && at[off] >= 0 && now - at[off] < TM_PASSED_NS) {
			/* passed as cached, or fetched (and another stream's
			 * since): fetched as of then */
			if (!mc_contains(&c->l2, to + off))
				hop_fetch(h, c, to + off, t, at[off], now);
		} else {
			continue;
		}
		c->st.hop_lines++;
		if (run[end] == k)
			run[end]++;
	}
	c->st.page_hops++;
	mc_prefetch_move(&c->pf, from, to, span, run[0], run[1]);
	/*
	 * The stream goes on in @to as if from the page before it: lines
	 * another stream ran on into there are the ones it wants (in pages
	 * in descending physical order, K's second page is what V's first
	 * ran on into), not to be fetched again when it gets to them.
	 */
	claim(h, c, to);
}

void tm_mem_page_claim(struct tm_host_mem *h, struct tm_cpu_mem *c,
		       uint64_t first)
{
	/* only a stream that ended just before the page ran on into it; a
	 * page's first line touched again and again must not flood the ring */
	if (mc_prefetch_entering(&c->pf, first, 1u << tm_page_shift(h)))
		claim(h, c, first);
}

/*
 * @line (at @r in L2) was fetched running on past another page's end and
 * no stream entered its page from there: every line of the page fetched
 * so goes (the LLC's copies too, clean and from those same fetches), and
 * the core starts there as a new stream would, the one that ran on being
 * forgotten. @r then finds nothing.
 */
static void runon_refetch(struct tm_host_mem *h, struct tm_cpu_mem *c,
			  uint64_t line, struct mc_ref *r)
{
	unsigned int page_shift = tm_page_shift(h);
	uint64_t first = line >> page_shift << page_shift;

	for (uint64_t l = first; l < first + (1u << page_shift); l++) {
		struct mc_ref r2, rl;

		mc_find(&c->l2, l, &r2);
		if (r2.way < 0 || !(mc_flags(&c->l2, &r2) & MC_RUNON))
			continue;
		mc_drop(&c->l2, &r2);
		tm_hold_sub(h, c, l);
		llc_lock(h, l);
		mc_find(&h->llc, l, &rl);
		if (rl.way >= 0 && !(mc_flags(&h->llc, &rl) & MC_DIRTY))
			mc_drop(&h->llc, &rl);
		llc_unlock(h, l);
		c->st.runon_refetched++;
	}
	/* the stream that ran on here ended at its page: nothing follows it */
	mc_prefetch_forget(&c->pf, first, 1u << page_shift);
	mc_find(&c->l2, line, r);
}

double tm_mem_access_line(struct tm_host_mem *h, struct tm_cpu_mem *c,
			  uint64_t line, bool store, double now)
{
	uint8_t set = store ? MC_DIRTY : 0, flags;
	struct mc_ref r1, r2;
	struct mf_target *t;
	double ready, issue, go;
	enum llc_source src;

	c->st.accesses++;
	c->st.stores += store;
	c->st.loads += !store;
	c->last_line = line + 1;	/* 0: none yet */
	c->last_dirty = store;
	mc_find(&c->l1, line, &r1);
	if (r1.way >= 0) {
		flags = mc_use(&c->l1, &r1, set, 0, now, &ready);
		c->last_dirty = store || (flags & MC_DIRTY);
		if (store && !(flags & MC_DIRTY))
			invalidate_others(h, c, line);
		goto done;
	}
	c->st.l1_miss++;
	mc_find(&c->l2, line, &r2);
	if (r2.way >= 0 && (mc_flags(&c->l2, &r2) & MC_RUNON) &&
	    !claimed(h, c, line))
		runon_refetch(h, c, line, &r2);
	if (r2.way >= 0) {
		flags = mc_use(&c->l2, &r2, 0, MC_PREFETCHED | MC_RUNON, now, &ready);
		if (flags & MC_PREFETCHED)
			prefetch(h, c, line, now);
		/*
		 * A prefetched line's first load is served from L2 without a
		 * fill of L1: a hit at either level costs the same (nothing),
		 * and a stream's lines are each read once; a fill per line was
		 * 8% of the model's time on a sequential read. A later load
		 * of the line, or a store (whose dirty bit L1 keeps), fills it.
		 */
		if (store || !(flags & MC_PREFETCHED))
			l1_put(h, c, &r1, set, ready, now);
		if (store && !(flags & MC_DIRTY))
			invalidate_others(h, c, line);
		goto done;
	}
	c->st.l2_miss++;
	if (c->held_high && c->st.l2_miss >= c->recount_at)
		tm_hold_recount(h, c);
	/* a demand miss needs a miss slot like any other */
	issue = own_request_slot(c, now);
	t = target_of(h, line);
	llc_lock(h, line);
	ready = llc_fill(h, c, line, t, issue, &src);
	llc_unlock(h, line);
	if (src != LLC_HIT) {
		c->st.llc_miss++;
		mf_window_fill(&c->win, ready);
	}
	l2_put(h, c, &r2, 0, ready, now);
	l1_put(h, c, &r1, set, ready, now);
	prefetch(h, c, line, now);
	if (store) {
		/* served (from a snoop, perhaps), the line is now ours alone */
		invalidate_others(h, c, line);
		/* the store buffer absorbs the rest of the miss */
		ready = issue;
	}
	goto out;
done:
	if (store)
		ready = now;
out:
	go = ready > now ? ready : now;
	c->st.stall_ns += go - now;
	return go;
}

/*
 * A non-temporal store (movnt*): the line goes to memory through a write-
 * combining buffer and into no cache. No read for ownership is made;
 * every cached copy (this core's, the other cores', the last level's) is
 * dropped, as the store makes it stale; and the write holds a miss slot
 * (the fill buffer it combines in) until the path has taken it, as a
 * write-back's buffer entry is held: a stream of such stores runs at the
 * path's write bandwidth or at what the slots allow, whichever is less.
 * A copy whose reader is another core (a runtime's copy lanes) then
 * leaves the data in memory, not in the copying core's L2.
 */
double tm_mem_store_nt(struct tm_host_mem *h, struct tm_cpu_mem *c,
		       uint64_t pa, double now)
{
	uint64_t line = pa >> h->line_shift;
	struct mf_target *t;
	double issue, passed;

	c->st.accesses++;
	c->st.stores++;
	/* the rest of the line's stores combine in the same buffer */
	if (line + 1 == c->wc_line)
		return now;
	c->wc_line = line + 1;
	/* the line is in no cache of ours now: no repeat may hit it */
	if (c->last_line == line + 1)
		c->last_line = 0;
	if (mc_take(&c->l1, line, 0, NULL))
		tm_hold_sub(h, c, line);
	if (mc_take(&c->l2, line, 0, NULL))
		tm_hold_sub(h, c, line);
	llc_drop(h, line);
	take_from_others(h, c, line);
	t = target_of(h, line);
	issue = own_request_slot(c, now);
	if (!t)
		return issue;
	mf_access_by(t, MF_WRITE, issue, h->cfg.line_bytes, c->who, &passed);
	mf_window_fill(&c->win, passed);
	c->st.mem_writes[t->cxl]++;
	c->st.nt_stores++;
	c->st.stall_ns += issue - now;
	return issue;
}

/*
 * @o's copies of @line go, flushed by @o itself (@own) or by another core
 * (then @o's snoop filter counts are its own to mend); true if one was
 * dirty.
 */
static bool flush_from(struct tm_host_mem *h, struct tm_cpu_mem *o,
		       uint64_t line, bool own)
{
	struct mc_level *levels[2] = { &o->l1, &o->l2 };
	bool dirty = false;

	for (int k = 0; k < 2; k++) {
		struct mc_ref r;

		mc_find(levels[k], line, &r);
		if (r.way < 0)
			continue;
		dirty |= (mc_flags(levels[k], &r) & MC_DIRTY) != 0;
		mc_drop(levels[k], &r);
		if (own)
			tm_hold_sub(h, o, line);
		else
			tm_hold_taken(o);
	}
	forget_repeat(o, line);
	return dirty;
}

double tm_mem_flush(struct tm_host_mem *h, struct tm_cpu_mem *c, uint64_t pa,
		    double now)
{
	uint64_t line = pa >> h->line_shift;
	bool dirty;
	struct mf_target *t;
	double issue, passed;

	/* every copy of the host goes: its own, and the other cores' where
	 * the snoop filter says they may be */
	dirty = flush_from(h, c, line, true);
	for (uint32_t who = tm_holders(h, c, line); who; who &= who - 1)
		dirty |= flush_from(h, h->cores[__builtin_ctz(who)], line, false);
	llc_lock(h, line);
	dirty |= mc_take(&h->llc, line, MC_DIRTY, NULL);
	mc_take(&h->llc, line, 0, NULL);
	llc_unlock(h, line);
	t = target_of(h, line);
	if (!dirty || !t)
		return now;
	/* a dirty line is written back, holding a miss slot until the path
	 * took it, as a non-temporal store's line does */
	issue = own_request_slot(c, now);
	mf_access_by(t, MF_WRITE, issue, h->cfg.line_bytes, c->who, &passed);
	mf_window_fill(&c->win, passed);
	c->st.mem_writes[t->cxl]++;
	c->st.stall_ns += issue - now;
	return issue;
}
