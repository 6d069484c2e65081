/* SPDX-License-Identifier: MIT */
/*
 * Cache model: one set-associative, LRU level, and a stream prefetcher.
 * Addresses are line numbers (physical address >> line shift). Each line
 * carries the modeled time its data arrives (a prefetch may still be in
 * flight when the core asks for it) and a dirty bit for write-back.
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
 * Layout: the model's big levels (an LLC of tens of MiB) do not fit in the
 * host's caches, so everything a lookup and an LRU choice read is packed
 * in one 64-bit word per way, a set's words side by side (16 ways: two
 * host cache lines). A word holds
 *   bits  0-31  line / sets + 1 (the set is implied; 0 = invalid way)
 *   bits 32-55  LRU stamp (larger = more recent)
 *   bits 56-63  flags (MC_DIRTY, MC_PREFETCHED)
 * Ready times are read only on a hit or written on an insert: apart.
 */
#define MC_TAG_MASK	0xffffffffull
#define MC_STAMP_SHIFT	32
#define MC_STAMP_MAX	0xffffffu
#define MC_FLAG_SHIFT	56

struct mc_level {
	uint32_t sets, ways;
	uint32_t set_mask;	/* sets - 1 when sets is a power of two, else 0 */
	uint32_t set_shift;	/* log2(sets) when a power of two */
	uint64_t *way;		/* [set * ways + way], packed as above */
	double *ready;		/* [set * ways + way]: modeled ns the data is there */
	uint32_t clock;		/* LRU stamps; halved when they reach the top */
	uint64_t hits, misses;
};

/* @bytes total, @ways associativity; false if the geometry is unusable. */
bool mc_level_init(struct mc_level *l, uint64_t bytes, uint32_t ways,
		   uint32_t line_bytes);
void mc_level_free(struct mc_level *l);

/*
 * Look @line up. On a hit: refresh LRU, OR @set_flags into its flags, give
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
/* Clear @flags on @line if present. */
void mc_clear_flags(struct mc_level *l, uint64_t line, uint8_t flags);
bool mc_contains(const struct mc_level *l, uint64_t line);

/*
 * Insert @line (not present) evicting the LRU way. Returns true when a
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
};

/*
 * Tell the prefetcher the core asked for @line (a miss, or the first use
 * of a prefetched line). Returns the number of lines to prefetch, the
 * first in *first and the direction in *dir; the caller then reports how
 * far it got with mc_prefetch_issued() (the miss window may stop it).
 */
int mc_prefetch_observe(struct mc_prefetcher *p, uint64_t line,
			uint64_t *first, int *dir, int *stream);
void mc_prefetch_issued(struct mc_prefetcher *p, int stream, uint64_t next);

#endif
