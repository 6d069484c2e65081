/* SPDX-License-Identifier: MIT */
/*
 * The fabric manager's ownership map: every logical device (LD) of every
 * lending pool, who holds it, on which port and in which window. Pure
 * bookkeeping (no QMP, no guest): it decides what a bind may do and
 * refuses what it may not (an LD already bound, a host the pool does not
 * lend to, no free port, no window room). Callers hold the FM's lock.
 */
#ifndef CXLBED_FM_MAP_H
#define CXLBED_FM_MAP_H

#include "topology/topology.h"

#include <json-glib/json-glib.h>

enum fm_ld_state {
	FM_LD_FREE,		/* in the pool, nobody's */
	FM_LD_BINDING,		/* QMP and the guest's attach under way */
	FM_LD_BOUND,		/* a host holds it */
	FM_LD_RELEASING,	/* release handshake under way */
	FM_LD_FAILING,		/* taken from its host without a release (a
				 * fault): QEMU is removing the device */
	FM_LD_FAILED,		/* its pool node is dead: never bound again */
};

/* What a bound LD is on its host. */
struct fm_binding {
	const struct cb_host *host;
	const struct cb_port *port;
	const struct cb_window *window;
	char *backend;		/* QEMU memory-backend id of this binding */
	char *mode;		/* "ram" | "devdax" */
	char *region;		/* guest region, e.g. "region1" */
	char *dax;		/* guest dax device */
	int node;		/* NUMA node (ram), -1 otherwise */
	uint64_t base;		/* host physical address the guest mapped it at */
	double since_s;		/* run clock when it was bound */
	int64_t used_bytes;	/* last utilisation sample; -1: not known */
};

struct fm_ld {
	const struct cb_ld *ld;
	enum fm_ld_state state;
	struct fm_binding b;	/* meaningful unless FREE */
	unsigned int gen;	/* bindings so far: each gets a fresh backend id */
};

struct fm_map {
	const struct cb_topology *t;
	GPtrArray *lds;		/* struct fm_ld *, topology order */
	GHashTable *port_user;	/* const struct cb_port * -> LD id (char *) */
};

struct fm_map *fm_map_new(const struct cb_topology *t);
void fm_map_free(struct fm_map *m);

struct fm_ld *fm_map_find(struct fm_map *m, const char *ld_id);
/* The first free LD of @pool (NULL: any lending pool). */
struct fm_ld *fm_map_first_free(struct fm_map *m, const struct cb_pool *pool);
/* @h's most recently bound LD of @pool (NULL: any), or NULL. */
struct fm_ld *fm_map_newest_of(struct fm_map *m, const struct cb_host *h,
			       const struct cb_pool *pool);

const char *fm_ld_state_name(enum fm_ld_state s);

/*
 * May @e be bound to @h now? On yes: the port and window it will use.
 * On no: false and *why (caller frees), e.g. "p0.ld1 is bound to h0".
 */
bool fm_map_plan_bind(struct fm_map *m, const struct fm_ld *e,
		      const struct cb_host *h, const struct cb_port **port,
		      const struct cb_window **window, char **why);
/* State changes; each keeps the port map in step. */
void fm_map_begin_bind(struct fm_map *m, struct fm_ld *e, const struct cb_host *h,
		       const struct cb_port *port, const struct cb_window *w,
		       const char *mode, double now_s);
void fm_map_bound(struct fm_map *m, struct fm_ld *e);
void fm_map_begin_release(struct fm_map *m, struct fm_ld *e);
/* Back to the pool; @port_reusable false keeps the port taken (a device
 * QEMU could not remove still sits there). */
void fm_map_freed(struct fm_map *m, struct fm_ld *e, bool port_reusable);
/* A release the host refused: the LD stays where it was. */
void fm_map_release_failed(struct fm_map *m, struct fm_ld *e);
/* Faults (docs/faults.md): a bound LD is being surprise-removed... */
void fm_map_begin_fail(struct fm_map *m, struct fm_ld *e);
/* ...and is gone: dead for good (@dead: its pool node was killed) or back
 * to the pool (revoked); @port_reusable as for fm_map_freed. */
void fm_map_failed(struct fm_map *m, struct fm_ld *e, bool dead, bool port_reusable);

/* Capacity figures of one pool (or all, @pool NULL), bytes. */
struct fm_totals {
	uint64_t size;		/* the pool(s) */
	uint64_t lent;		/* bound, binding or releasing */
	uint64_t used;		/* what hosts report allocated on lent LDs */
	uint64_t free;		/* size - lent - failed */
	uint64_t stranded;	/* lent - used */
	uint64_t failed;	/* in dead pool nodes: neither lent nor free */
	int unknown;		/* lent LDs whose use is not known (counted used) */
};
struct fm_totals fm_map_totals(const struct fm_map *m, const struct cb_pool *pool,
			       const struct cb_host *h);

/* "Get LD Info": one row per LD (id, serial, pool, offset, size, state,
 * host, port, window, region, node, mode, since). */
JsonArray *fm_map_ld_info(const struct fm_map *m);
/* "Get LD Allocations": per host, what it holds and uses, per pool. */
JsonObject *fm_map_allocations(const struct fm_map *m);

#endif
