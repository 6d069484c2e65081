/* SPDX-License-Identifier: MIT */
/*
 * libcxlpool's protected blocks: a program's data kept across pool nodes
 * (failure domains) so that a node dying loses nothing (docs/faults.md).
 *
 * libcxlpool owns the fabric side: it maps the pool LDs the fabric
 * manager bound to this host as devdax (the agent's list, ldreg.h), one
 * failure domain per pool; it follows the kernel's CXL trace events and
 * AER reports (monitor.h) and the SIGBUS/poison reports of pool memory
 * (guard.h); it runs the repair thread that re-protects onto surviving
 * capacity; and when no distinct pool is left with room it asks the
 * fabric manager for an LD of a pool the data does not use yet
 * (pool-demand on the agent's demand socket). The store underneath
 * (guest/protect, protect.h) owns placement, checksums and codes.
 *
 * The program calls cxlpool_prot_take_events before each operation and
 * cxlpool_prot_poll every few: that is where events are acted on,
 * canaries checked, new LDs taken and capacity asked for. Reads never return a block whose checksum is wrong.
 *
 * Links libcxlprotect.a and libtracefs beside libcxlpool.a.
 */
#ifndef CXLPOOL_PROT_H
#define CXLPOOL_PROT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ldreg.h"
#include "monitor.h"
#include "protect.h"

/*
 * What libcxlpool did, for the program's own log; every hook may be NULL.
 * @repair_bytes runs on the repair threads (several at once), @failure
 * under the store's lock, the others on the thread that calls
 * cxlpool_prot_open/poll/settle or on the repair thread (@repair_begin,
 * @repair_end).
 */
struct cxlpool_prot_hooks {
	void *ctx;
	void (*note)(void *ctx, const char *line);
	void (*capacity)(void *ctx, const struct ldreg_entry *ld);
	void (*kernel_event)(void *ctx, const struct mon_event *e);
	void (*cost)(void *ctx, uint64_t serial, double cost);
	void (*demand)(void *ctx, uint64_t bytes);
	void (*failure)(void *ctx, const struct prot_failure *f,
			const struct ldreg_entry *ld);
	void (*repair_begin)(void *ctx);
	void (*repair_bytes)(void *ctx, uint64_t bytes);
	void (*repair_end)(void *ctx);
};

struct cxlpool_prot_opts {
	struct prot_scheme scheme;
	size_t block;		/* bytes per block, a multiple of 64 */
	uint64_t blocks;
	/* false: a block is one chunk of a stripe (k blocks share a stripe);
	 * true: a block is split across a whole stripe (k chunks of block/k) */
	bool split;
	int copy_threads;	/* helpers writing a stripe's chunks side by side */
	bool repair;		/* re-protect after a failure (a thread) */
	int repair_threads;	/* copying at once in a repair burst, 1..4 */
	bool demand;		/* ask the fabric manager for capacity */
	int lds;		/* devdax LDs to wait for at open */
	double wait_s;		/* ... for at most this long */
	const char *from;	/* who asks, in the FM's log */
	struct cxlpool_prot_hooks hooks;
};

struct cxlpool_prot;

void cxlpool_prot_opts_default(struct cxlpool_prot_opts *o);
/* Map the LDs (waiting for o->lds), start the monitor and guard; the
 * repair thread starts with the first poll. NULL: cxlpool_error() says
 * why. */
struct cxlpool_prot *cxlpool_prot_open(const struct cxlpool_prot_opts *o);
/* Stop the repair thread and the monitor; unmap nothing (the process's). */
void cxlpool_prot_close(struct cxlpool_prot *p);

/* Block @b: 0, PROT_RECOVERED (served from redundancy) or PROT_LOST. */
int cxlpool_prot_read(struct cxlpool_prot *p, uint64_t b, void *buf);
/* 0, or -1: no room in enough distinct pools. */
int cxlpool_prot_write(struct cxlpool_prot *p, uint64_t b, const void *buf);
/* Blocks @b .. @b + k - 1 at once (k: the scheme's; block layout only, @b
 * a multiple of k): no read-modify-write. */
int cxlpool_prot_write_k(struct cxlpool_prot *p, uint64_t b, const void *const *bufs);

/* Act on the kernel's queued events (cheap: before every operation, so
 * that a failure is known at once). */
void cxlpool_prot_take_events(struct cxlpool_prot *p);
/* That, and check canaries and poison reports, take new LDs, ask the FM
 * for capacity when repairs wait for it (every few operations). */
void cxlpool_prot_poll(struct cxlpool_prot *p);
/* Let a repair under way finish (up to @max_s of guest time), then stop
 * the repair thread. */
void cxlpool_prot_settle(struct cxlpool_prot *p, double max_s);

/* One JSON object to the host, through the agent's socket (a datagram:
 * dropped when no agent listens); the agent forwards what it knows
 * (guest/agent/demand.c). */
void cxlpool_tell_host(const char *msg);
/* Tell the host that the program's phase @phase begins (a scheduled
 * fault may wait for it); @from names the program. */
void cxlpool_announce_phase(const char *from, const char *phase);

/* The store (stats, extents) and the LDs taken, for reports. */
struct prot_store *cxlpool_prot_store(struct cxlpool_prot *p);
int cxlpool_prot_nlds(const struct cxlpool_prot *p);
const struct ldreg_entry *cxlpool_prot_ld(const struct cxlpool_prot *p, uint64_t serial);
/* Whether the kernel's trace events are followed (tracefs was there). */
bool cxlpool_prot_monitoring(const struct cxlpool_prot *p);

#endif
