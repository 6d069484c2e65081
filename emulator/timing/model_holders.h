/* SPDX-License-Identifier: MIT */
/*
 * Who may hold a line: the host's snoop filter. A last-level miss looks
 * for its line in the other cores' L1 and L2 (model_mem.c, snoop()), and
 * a store takes the line from them (invalidate_others). Each look reads
 * set blocks that their core rewrites at every fill of its own, so every
 * look moved host cache lines between the host's cores: two vCPUs
 * streaming together cost 2.3-2.6x one vCPU's host CPU per access, and
 * 1.5-2.1x with the looks left out (docs/timing-model.md, "Keeping vCPUs
 * and hosts in step").
 *
 * The filter keeps, for each bucket of guest pages, a bit per core that
 * may hold one of the bucket's lines in L1 or L2; a core looks only in
 * the caches whose bit is set. Each core counts its own lines per bucket;
 * its bit changes only when its first line of a bucket comes in and its
 * last goes out, about twice a page for a stream, so the bits stay in
 * every core's host cache.
 *
 * A bit is set before its line goes in and cleared after it went out: a
 * clear bit means "not there", up to the races that reading another
 * core's caches always had (model_mem.c, snoop()). A core that takes
 * lines from another's caches (invalidate_others, tm_mem_flush) leaves
 * that core's counts high: more looks than needed, never fewer, until
 * the owner counts its lines again (tm_hold_recount).
 */
#ifndef CXLBED_MODEL_HOLDERS_H
#define CXLBED_MODEL_HOLDERS_H

#include "model_mem.h"

/* Recount at most once per this many L2 misses of the core. */
#define TM_HOLD_RECOUNT_MISSES (1u << 18)

/* @line's bucket: its 4 KiB page, hashed. */
static inline uint32_t tm_hold_bucket(const struct tm_host_mem *h, uint64_t line)
{
	uint64_t page = line >> (TM_PAGE_SHIFT - h->line_shift);

	return (uint32_t)(page ^ page >> 16) & (TM_HOLD_BUCKETS - 1);
}

/*
 * @line goes into @c's L1 or L2 (each level counts apart). A host with
 * one vCPU for the whole run (solo) has nobody to look: no counts.
 */
static inline void tm_hold_add(struct tm_host_mem *h, struct tm_cpu_mem *c,
			       uint64_t line)
{
	uint32_t b;

	if (h->solo)
		return;
	b = tm_hold_bucket(h, line);
	if (c->held[b]++ == 0 && c->bit)
		__atomic_fetch_or(&h->holders[b], c->bit, __ATOMIC_SEQ_CST);
}

/* @line, which @c held, left its L1 or L2. */
static inline void tm_hold_sub(struct tm_host_mem *h, struct tm_cpu_mem *c,
			       uint64_t line)
{
	uint32_t b;

	if (h->solo)
		return;
	b = tm_hold_bucket(h, line);
	if (c->held[b] && --c->held[b] == 0 && c->bit)
		__atomic_fetch_and(&h->holders[b], ~c->bit, __ATOMIC_RELEASE);
}

/* The cores other than @c that may hold @line: bit i for h->cores[i]. */
static inline uint32_t tm_holders(const struct tm_host_mem *h,
				  const struct tm_cpu_mem *c, uint64_t line)
{
	return __atomic_load_n(&h->holders[tm_hold_bucket(h, line)],
			       __ATOMIC_ACQUIRE) & ~c->bit;
}

/* Another core took lines from @o's caches: its counts may be high. */
static inline void tm_hold_taken(struct tm_cpu_mem *o)
{
	if (!__atomic_load_n(&o->held_high, __ATOMIC_RELAXED))
		__atomic_store_n(&o->held_high, true, __ATOMIC_RELAXED);
}

/* @c counts the lines of its L1 and L2 again, and clears the bits it no longer needs. */
void tm_hold_recount(struct tm_host_mem *h, struct tm_cpu_mem *c);

/* @c just became core @bit of @h: its bits for what it already holds. */
void tm_hold_join(struct tm_host_mem *h, struct tm_cpu_mem *c);

#endif
