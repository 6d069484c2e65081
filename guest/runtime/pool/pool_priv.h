/* SPDX-License-Identifier: MIT */
/* libcxlpool internals shared by its files. */
#ifndef CXLPOOL_PRIV_H
#define CXLPOOL_PRIV_H

#include <pthread.h>

#include "arena.h"
#include "backend.h"
#include "classify.h"
#include "cxlpool.h"

#define CP_PAGE 4096u

/* A managed allocation: pages placed by heat. */
struct cp_managed {
	struct cp_managed *next;
	char *base;
	size_t npages;
	pthread_mutex_t lock;	/* hints against the epoch */
	struct rt_classifier cls;
	uint32_t *pro, *dem;	/* plan buffers, npages each */
	void **addrs;		/* move_pages scratch */
	int *nodes, *status;
};

struct cp_alloc {
	struct cp_alloc *next;
	void *ptr;
	size_t size;
	enum cxlpool_place place;
	struct cp_managed *m;	/* CXLPOOL_MANAGED */
	size_t fast_bytes;	/* charged to the budget */
};

struct cxlpool_objs;
struct cxlpool_stream;

struct cxlpool {
	struct cxlpool_opts o;
	int fast_node, far_node;	/* far_node -1: the far tier is devdax */
	int dax_fd;
	char *dax_base;
	size_t dax_size;
	struct cp_arena arena;		/* devdax far tier */
	struct rt_backend be;		/* NUMA/devdax backend for streams */

	pthread_mutex_t lock;		/* allocations, budget, lists, stats */
	/* Held by the helper through an epoch, and by whoever unlinks a
	 * managed region or a cache, so none goes away under an epoch.
	 * Taken before lock, never after. */
	pthread_mutex_t epoch_lock;
	size_t fast_used, far_used;
	struct cp_alloc *allocs;
	struct cp_managed *managed;
	struct cxlpool_objs *objs;
	struct cxlpool_stream *streams;
	struct cxlpool_stats closed;	/* of streams and caches already closed */
	uint64_t promoted, demoted, epochs;
	uint64_t helper_ns;		/* epochs, less their data movement */
	uint64_t move_ns;		/* move_pages of managed memory */

	pthread_t helper;
	bool helper_up, stop;
	pthread_cond_t wake;
};

/* Allocation without the public checks (backend, caches, streams). */
void *cp_alloc(struct cxlpool *p, size_t n, enum cxlpool_place where);
void cp_free(struct cxlpool *p, void *ptr);
/* Bind the calling thread to the helper CPU (if any). */
void cp_pin_helper(const struct cxlpool *p);
/* A stream's copy lane @lane: on its own CPU when it is a fetch lane. */
void cp_pin_lane(const struct cxlpool *p, int lane);
void cp_set_error(const char *why);
uint64_t cp_now_ns(void);

/* backend_numa.c */
void cp_backend_init(struct cxlpool *p);

/* One epoch of each kind, called by the helper thread with p->lock not
 * held; each returns the time it spent moving data (the rest of an epoch
 * is the runtime's overhead). */
uint64_t cp_managed_epoch(struct cxlpool *p, struct cp_managed *m);
uint64_t cp_objs_epoch(struct cxlpool_objs *o);
/* Add every counter of @from to @to (fast_used/far_used are not counters). */
void cp_stats_add(struct cxlpool_stats *to, const struct cxlpool_stats *from);
/* Add a cache's / stream's figures to @st. */
void cp_objs_stats(struct cxlpool_objs *o, struct cxlpool_stats *st);
/* Bytes of objects copied in or dropped so far (p->lock held). */
uint64_t cp_objs_moves(const struct cxlpool_objs *o);
void cp_stream_stats(struct cxlpool_stream *s, struct cxlpool_stats *st);

/* Lists (objcache.c / stream.c link themselves in through these). */
struct cxlpool_objs *cp_objs_next(struct cxlpool_objs *o);
struct cxlpool_stream *cp_stream_next(struct cxlpool_stream *s);

#endif
