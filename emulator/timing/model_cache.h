/* SPDX-License-Identifier: MIT */
/*
 * Cache model: one set-associative level with pseudo-LRU replacement, and
 * a stream prefetcher. Addresses are line numbers (physical address >>
 * line shift). Each line carries the modeled time its data arrives (a
 * prefetch may still be in flight when the core asks for it) and a dirty
 * bit for write-back.
 * No locking here: the caller owns a level (private) or locks it (shared).
 */
#ifndef CXLBED_MODEL_CACHE_H
#define CXLBED_MODEL_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#define MC_DIRTY	0x1
#define MC_PREFETCHED	0x2	/* brought in by the prefetcher, not yet used */
/*
 * The way's ready time may still matter (see mc_lookup_at). Without it a
 * hit does not read the ready array: one host cache miss less per hit.
 */
#define MC_PENDING	0x4
/*
 * Fetched by a stream that ran on past the end of its page into the
 * physically next one: the stream's own only if it enters that page from
 * the page before it (model_mem.c, tm_mem_page_claim).
 */
#define MC_RUNON	0x8

/*
 * Layout: one block per set, aligned to host cache lines. First what a
 * lookup and a replacement choice read (16 ways: two lines; 12 or fewer:
 * one): the ways' tags (32-bit: line / sets + 1, the set implied; 0 =
 * empty way), their flags (a byte each), and the set's MRU bits. Tags are
 * compared four at a time. Then the ways' ready times, read only on a hit
 * of a pending line and written on an insert: a stream does both for
 * every line, and with them in a separate array each was a host cache
 * miss of its own (the block's next lines come in with it).
 *
 * Replacement is pseudo-LRU with one MRU bit per way (as many real caches
 * do): a use sets its way's bit, and when that would set them all, the
 * others are cleared; the victim is the first empty way, else the first
 * way whose bit is clear. For two ways this is exactly LRU.
 */
struct mc_level {
	uint32_t sets, ways;
	uint32_t set_mask;	/* sets - 1 when sets is a power of two, else 0 */
	uint32_t set_shift;	/* log2(sets) when a power of two */
	uint32_t block;		/* bytes per set */
	uint32_t ready_off;	/* where a block's ready times begin */
	uint32_t lock_off;	/* where a block's lock is (0: none) */
	uint32_t full;		/* MRU bits of every way */
	uint8_t *mem;		/* sets * block; a way's ready time: modeled ns
				 * its data is there (kept while MC_PENDING) */
};

/*
 * Where a line lives in a level: its set, its tag there and its way (< 0:
 * not there). Found once, used for the lookup and for the fill that may
 * follow, so that a miss scans its set once.
 */
struct mc_ref {
	uint8_t *set;		/* the set's block */
	uint64_t index;		/* the set's number */
	uint32_t tag;
	int way;
};

/* @bytes total, @ways associativity; false if the geometry is unusable. */
bool mc_level_init(struct mc_level *l, uint64_t bytes, uint32_t ways,
		   uint32_t line_bytes);
/*
 * The same, with a lock in each set, on the host cache line of its MRU
 * bits (mc_set_lock): for a level that several cores share. One lock
 * taken with the set's own line costs one line transfer between the
 * host's cores where a lock elsewhere cost two (docs/timing-model.md).
 */
bool mc_level_init_locked(struct mc_level *l, uint64_t bytes, uint32_t ways,
			  uint32_t line_bytes);
void mc_level_free(struct mc_level *l);

/* find, use, put and their kin: inline, in their own file */
#include "model_cache_set.h"

/*
 * Look @line up. On a hit: mark it used, OR @set_flags into its flags, give
 * back its ready time and flags (before the OR), return true.
 */
bool mc_lookup(struct mc_level *l, uint64_t line, uint8_t set_flags,
	       double *ready, uint8_t *flags);
/*
 * The same, for a caller to whom every ready time up to @settled is past:
 * a line whose data arrived by then forgets its ready time (reports 0
 * from then on), so later hits skip reading it. A core's private levels
 * pass its clock (monotonic); a shared level must leave a margin for
 * cores that are behind.
 */
bool mc_lookup_at(struct mc_level *l, uint64_t line, uint8_t set_flags,
		  double settled, double *ready, uint8_t *flags);
/*
 * Take @line out of @l if it is there with every flag of @flags set (0:
 * whatever its flags); its ready time (0: arrived long ago) in *ready,
 * unless @ready is NULL.
 */
bool mc_take(struct mc_level *l, uint64_t line, uint8_t flags, double *ready);
/*
 * Clear @flags on the way @r found, leaving its place in the replacement
 * order alone; returns its flags before (MC_PENDING left out).
 */
uint8_t mc_clear(struct mc_level *l, const struct mc_ref *r, uint8_t flags);
bool mc_contains(const struct mc_level *l, uint64_t line);

/*
 * Insert @line (not present) evicting the pseudo-LRU way. Returns true when a
 * dirty line was evicted, with its number in *victim.
 */
bool mc_insert(struct mc_level *l, uint64_t line, uint8_t flags, double ready,
	       uint64_t *victim);

/* Stream prefetcher: a few streams, each a direction and a confidence. */
#define MC_STREAMS 8

struct mc_stream {
	uint64_t last;		/* last line seen in the stream */
	uint64_t next_pf;	/* next line to prefetch */
	int dir;		/* +1, -1, or 0 while undecided */
	int conf;
	uint64_t stamp;
};

struct mc_prefetcher {
	int distance;		/* lines kept ahead of the demand stream; 0 = off */
	struct mc_stream s[MC_STREAMS];
	uint64_t clock;
	int hot;		/* the stream matched last */
};

/*
 * Tell the prefetcher the core asked for @line (a miss, or the first use
 * of a prefetched line). Returns the number of lines to prefetch, the
 * first in *first and the direction in *dir; the caller then reports how
 * far it got with mc_prefetch_issued() (the miss window may stop it).
 */
int mc_prefetch_observe(struct mc_prefetcher *p, uint64_t line,
			uint64_t *first, int *dir, int *stream);
/*
 * The lines [@from, @from + @span) of the streams are really at [@to,
 * @to + @span): a stream that ended just before @from (ascending) or just
 * after it (descending) goes on there. @up lines from the page's start
 * and @down from its end are already fetched: an ascending stream
 * prefetches from @to + @up on, a descending one from @to + @span - 1 -
 * @down down.
 */
void mc_prefetch_move(struct mc_prefetcher *p, uint64_t from, uint64_t to,
		      uint64_t span, uint64_t up, uint64_t down);
/* Is a stream about to enter [@from, @from + @span) (as mc_prefetch_move)? */
bool mc_prefetch_entering(const struct mc_prefetcher *p, uint64_t from,
			  uint64_t span);
/* Forget the streams about to enter [@from, @from + @span): they end there. */
void mc_prefetch_forget(struct mc_prefetcher *p, uint64_t from, uint64_t span);
void mc_prefetch_issued(struct mc_prefetcher *p, int stream, uint64_t next);

#endif
