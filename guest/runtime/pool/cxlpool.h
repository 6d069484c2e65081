/* SPDX-License-Identifier: MIT */
/*
 * libcxlpool: the in-guest pooling runtime (docs/pooling.md).
 *
 * It finds the host's memory tiers (local DRAM, each CXL NUMA node, each
 * devdax region) through libcxl and sysfs, and manages a program's data
 * across a fast tier (a local node) and a far tier (a CXL node or a
 * devdax region) within a budget of fast memory:
 *
 *  - allocation in a tier, or "managed" memory whose pages the runtime
 *    promotes and demotes (move_pages) by heat: hints given through
 *    the API, classified with hysteresis (classify.h);
 *  - ordered streams (layer sweeps, KV blocks): blocks staged into fast
 *    slots by a helper thread ahead of use, so transfer overlaps compute
 *    (the shared tiering core, runtime.h);
 *  - object caches (embedding rows): the hottest objects copied into the
 *    fast tier, lookups served from there.
 *
 * Plain C on libc, libnuma and libcxl. One struct cxlpool per process;
 * its calls are for one compute thread (the helper threads are its own).
 */
#ifndef CXLPOOL_H
#define CXLPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- tiers ---- */

enum cxlpool_kind { CXLPOOL_LOCAL, CXLPOOL_CXL, CXLPOOL_DAX };

#define CXLPOOL_MAX_TIERS 16
#define CXLPOOL_MAX_SERIALS 16

struct cxlpool_tier {
	enum cxlpool_kind kind;
	int node;		/* NUMA node; -1 for a devdax region */
	char dax[32];		/* "dax0.0" (devdax, or the kmem device of a node) */
	char region[32];	/* "region0"; "" for local DRAM */
	uint64_t size, free;	/* bytes (free: the node's MemFree) */
	unsigned read_latency_ns, write_latency_ns;	/* access0; 0: unknown */
	unsigned read_mbps, write_mbps;
	int memtier;		/* memory_tierN holding the node; -1 unknown */
	int nserials;		/* memdevs under the region */
	uint64_t serials[CXLPOOL_MAX_SERIALS];
};

/* Fill @t with up to @max tiers: local nodes first, then CXL nodes, then
 * devdax regions. Returns how many, or -1 (errno) when sysfs is absent. */
int cxlpool_tiers(struct cxlpool_tier *t, int max);
const char *cxlpool_kind_name(enum cxlpool_kind k);

/* ---- the pool ---- */

struct cxlpool_opts {
	int fast_node;		/* -1: the first local node */
	int far_node;		/* -1: the first CXL node (unless far_dax) */
	const char *far_dax;	/* "dax0.0": the far tier is this devdax region */
	size_t fast_budget;	/* bytes of fast memory the pool may use */
	int helper_cpu;		/* CPU for the helper threads; -1: any */
	int copy_lanes;		/* a stream's fetch lanes, CPUs helper_cpu,
				 * helper_cpu + 1, ...: a block's copy is split
				 * across them (0, 1: one lane) */
	unsigned epoch_us;	/* classification period; 0: 2000 */
};

struct cxlpool;

void cxlpool_opts_default(struct cxlpool_opts *o);
struct cxlpool *cxlpool_open(const struct cxlpool_opts *o);
void cxlpool_close(struct cxlpool *p);
/* Why the last call failed (static text). */
const char *cxlpool_error(void);

/* ---- allocation ---- */

enum cxlpool_place {
	CXLPOOL_FAST,		/* in the fast tier (counts against the budget) */
	CXLPOOL_FAR,		/* in the far tier */
	CXLPOOL_MANAGED,	/* pages move between the tiers by heat (NUMA only) */
};

/* Page-aligned, populated, zeroed; NULL when over budget or out of room. */
void *cxlpool_alloc(struct cxlpool *p, size_t n, enum cxlpool_place where);
void cxlpool_free(struct cxlpool *p, void *ptr);

/* Managed memory: one observed access to [addr, addr + len) standing for
 * @weight accesses (1: a plain hint; 16: one of a 1-in-16 sample). The
 * classifier weighs the evidence by observations: a page hinted once at
 * weight 16 is not as surely hot as one hinted 16 times. Cheap: a counter
 * per page. */
void cxlpool_hint(struct cxlpool *p, const void *addr, size_t len, float weight);
/* Run one classification epoch now (the helper runs them every epoch_us). */
void cxlpool_rebalance(struct cxlpool *p);

/* ---- ordered streams ---- */

struct cxlpool_stream;

/* @slots fast slots of @block_size (from the budget), prefetch @window
 * blocks ahead on the helper CPU. */
struct cxlpool_stream *cxlpool_stream_open(struct cxlpool *p, size_t block_size,
					   int slots, int window);
/* A block whose home is @home (far tier memory); returns its id. */
int64_t cxlpool_stream_block(struct cxlpool_stream *s, void *home, size_t n);
/* The order blocks will be used in; @ids must stay valid. */
void cxlpool_stream_order(struct cxlpool_stream *s, const uint32_t *ids,
			  size_t n, bool cyclic);
/* The block, in the fast tier; valid until cxlpool_stream_put. */
void *cxlpool_stream_get(struct cxlpool_stream *s, uint32_t id);
void cxlpool_stream_put(struct cxlpool_stream *s, uint32_t id, bool dirty);
/* Write dirty blocks home and wait for every copy. */
void cxlpool_stream_flush(struct cxlpool_stream *s);
void cxlpool_stream_close(struct cxlpool_stream *s);

/* ---- object caches ---- */

struct cxlpool_objs;

/* @n objects of @obj_size at @base (their home, usually far); the hottest
 * are copied into @fast_bytes of the fast tier. */
struct cxlpool_objs *cxlpool_objs_open(struct cxlpool *p, const void *base,
				       size_t obj_size, size_t n,
				       size_t fast_bytes);
/* Pointers from cxlpool_obj stay valid from cxlpool_objs_begin to
 * cxlpool_objs_end (a batch, e.g. one bag of lookups). */
void cxlpool_objs_begin(struct cxlpool_objs *o);
const void *cxlpool_obj(struct cxlpool_objs *o, size_t i);
void cxlpool_objs_end(struct cxlpool_objs *o);
void cxlpool_objs_close(struct cxlpool_objs *o);

/* ---- figures ---- */

struct cxlpool_stats {
	uint64_t fast_used, far_used;	/* bytes placed now */
	uint64_t promoted, demoted;	/* bytes of managed pages moved by heat */
	uint64_t copied;		/* bytes of objects copied into caches */
	uint64_t staged_in, staged_out;	/* bytes copied by streams */
	uint64_t accesses, hits;	/* stream blocks + objects: fast on use */
	uint64_t pf_issued, pf_timely, pf_late, pf_useless;
	uint64_t epochs;
	uint64_t helper_ns;	/* bookkeeping: the classifier thread's epochs and
				 * the copy lanes' time outside copies and waits */
	uint64_t mover_ns;	/* busy time of the copy lanes (transfer) */
	uint64_t stall_ns;	/* compute waiting on a stream block */
};

void cxlpool_stats(struct cxlpool *p, struct cxlpool_stats *st);

#endif
