/* SPDX-License-Identifier: MIT */
/*
 * The protection layer: fixed-size blocks kept across failure domains
 * (pool nodes) so that losing a domain loses nothing, and so that nothing
 * is ever handed back as good unless its checksum says so.
 *
 * A store is configured with a scheme and a chunk size and given capacity
 * as mapped extents (a pool LD used as devdax), each in a failure domain
 * (its pool). Blocks are grouped into stripes: a stripe is k data chunks
 * and m redundancy chunks, each on a different domain:
 *   none     k = 1, m = 0: one copy; a lost domain loses its blocks
 *   repR     k = 1, m = R-1: R copies
 *   rsK+M    k = K, m = M: Reed-Solomon (rs.h), any M chunks may go
 * Every chunk's CRC-32C lives in local memory with the stripe map.
 *
 * Failure is learnt from the caller (an LD's kernel events, say) and
 * found by the store itself: a chunk whose checksum does not match, a
 * copy that faults (guard.h), an extent whose canary (its first bytes,
 * written when it was added) is gone. Reads then come from the surviving
 * chunks; prot_repair rebuilds what is missing onto healthy capacity in
 * domains the stripe does not use yet.
 *
 * This is the interface libcxlpool calls (docs/faults.md, "Plugging in"):
 * it owns the LDs (maps them, knows their pools and serials) and gives
 * them to the store; the store owns placement within them.
 * Thread safety: every call takes the store's lock.
 */
#ifndef CXLBED_PROTECT_H
#define CXLBED_PROTECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROT_NAME 32
/* Bytes at the start of each extent that hold its canary. */
#define PROT_HEADER 4096

enum prot_kind { PROT_SCHEME_NONE, PROT_SCHEME_REPLICA, PROT_SCHEME_RS };

struct prot_scheme {
	enum prot_kind kind;
	int k, m;		/* data and redundancy chunks per stripe */
};

/* "none", "rep2", "rep3", "rs4+2": 0, or -1 when not a scheme. */
int prot_scheme_parse(const char *text, struct prot_scheme *s);
/* Its name as parsed above, into @buf. */
const char *prot_scheme_name(const struct prot_scheme *s, char *buf, size_t len);

/* How a failure came to light. */
enum prot_cause {
	PROT_CAUSE_EVENT,	/* the caller was told (kernel trace event, ...) */
	PROT_CAUSE_CANARY,	/* an extent's canary no longer reads back */
	PROT_CAUSE_CHECKSUM,	/* a chunk read back with the wrong CRC */
	PROT_CAUSE_SIGBUS,	/* a copy faulted: the mapping is gone */
	PROT_CAUSE_POISON,	/* the kernel reported poisoned memory */
};
const char *prot_cause_name(enum prot_cause c);

/* One failure the store registered (passed to the failure callback). */
struct prot_failure {
	uint64_t tag;		/* the extent's tag (an LD's serial) */
	char domain[PROT_NAME];
	enum prot_cause cause;
	bool whole_extent;	/* the extent is gone, not only some chunks */
	uint64_t chunks;	/* chunks that became unreadable */
	uint64_t bytes_at_risk;	/* their bytes */
	uint64_t blocks_lost;	/* blocks that became unrecoverable */
};

typedef void (*prot_failure_cb)(void *ctx, const struct prot_failure *f);

struct prot_config {
	struct prot_scheme scheme;
	size_t chunk;		/* bytes per block and per chunk, multiple of 64 */
	uint64_t blocks;	/* the store's size in blocks */
	prot_failure_cb on_failure;	/* may be NULL; called under the lock */
	void *ctx;
	/* may be NULL: called when a read or a repair of @stripe has let go of
	 * the lock to copy, before it copies (tests use it to write then) */
	void (*unlocked)(void *ctx, uint64_t stripe);
	/* helper threads that write a stripe's chunks side by side (0: the
	 * writer copies them in turn); copiers.h */
	int copy_threads;
};

struct prot_store;

struct prot_store *prot_new(const struct prot_config *c);
void prot_free(struct prot_store *s);

/*
 * Capacity: @len bytes at @base in failure domain @domain (a pool),
 * known to the caller as @tag (an LD's serial) and to the kernel at host
 * physical address @hpa (0: unknown). 0, or -1 (too small, table full).
 */
int prot_add_capacity(struct prot_store *s, const char *domain, uint64_t tag,
		      void *base, size_t len, uint64_t hpa);
/* Is capacity @tag known (and not failed)? */
bool prot_has_capacity(struct prot_store *s, uint64_t tag);

/* Blocks: 0 (or PROT_RECOVERED: served from redundancy) or PROT_LOST. */
#define PROT_RECOVERED 1
#define PROT_LOST (-1)
/* -1 when there is no room for it in enough distinct domains. */
int prot_write(struct prot_store *s, uint64_t block, const void *buf);
/* A whole stripe at once (k blocks from stripe * k): no read-modify-write. */
int prot_write_stripe(struct prot_store *s, uint64_t stripe,
		      const void *const *bufs);
int prot_read(struct prot_store *s, uint64_t block, void *buf);
/* A whole stripe's k data blocks into @bufs[k] (the worst of their
 * results): with a block split across a stripe, one block's read. */
int prot_read_stripe(struct prot_store *s, uint64_t stripe, void *const *bufs);

/* What the caller learnt: capacity @tag is gone (0, or -1: unknown tag). */
int prot_fail_capacity(struct prot_store *s, uint64_t tag, enum prot_cause cause);
/* Poisoned memory, by host physical address or by virtual address. */
int prot_poison_hpa(struct prot_store *s, uint64_t hpa, uint64_t len,
		    enum prot_cause cause);
int prot_poison_va(struct prot_store *s, uintptr_t va, uint64_t len,
		   enum prot_cause cause);
/* Extent @tag looks unhealthy (link errors): > 1 makes it less preferred. */
void prot_set_cost(struct prot_store *s, uint64_t tag, double cost);

/*
 * Look for failure: take the kernel's queued poison reports (guard.h) and
 * read every extent's canary. Returns how many failures it registered.
 */
int prot_check(struct prot_store *s);

/*
 * Rebuild missing chunks onto healthy capacity in domains their stripe
 * does not use, up to about @max_bytes written; returns bytes written.
 * Stripes that find no such domain wait: prot_wanted says for how much.
 * Up to PROT_MAX_REPAIRERS threads may call it at once (the copies run
 * outside the store's lock, one stripe per caller); more get 0.
 */
#define PROT_MAX_REPAIRERS 4
uint64_t prot_repair(struct prot_store *s, uint64_t max_bytes);
/* Bytes of capacity in a new domain the waiting repairs need. */
uint64_t prot_wanted(struct prot_store *s);

struct prot_stats {
	uint64_t blocks_written;	/* distinct blocks ever written */
	uint64_t bytes_stored;		/* chunk bytes placed (data + redundancy) */
	uint64_t capacity;		/* healthy capacity added, bytes */
	uint64_t reads, reads_recovered, reads_lost;
	uint64_t writes, writes_failed;
	uint64_t chunk_errors;		/* checksum mismatches found */
	uint64_t faults;		/* guarded copies that faulted */
	uint64_t failures;		/* failures registered */
	uint64_t stripes_degraded;	/* readable but missing chunks now */
	uint64_t stripes_unplaceable;	/* of those, waiting for a new domain */
	uint64_t blocks_lost;		/* unrecoverable now */
	uint64_t bytes_repaired;	/* chunk bytes rebuilt and written */
	uint64_t repairs_retried;	/* stripes changed under a repair: redone */
	uint64_t domains, domains_failed;
};
void prot_get_stats(struct prot_store *s, struct prot_stats *st);

/* Per extent, for reports: reads served from it, its state. */
struct prot_extent_info {
	uint64_t tag;
	char domain[PROT_NAME];
	bool failed;
	double cost;
	uint64_t chunks, reads;
};
/* Up to @max extents into @out; returns how many there are. */
int prot_extents(struct prot_store *s, struct prot_extent_info *out, int max);

#endif
