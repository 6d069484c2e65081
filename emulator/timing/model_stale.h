/* SPDX-License-Identifier: MIT */
/*
 * Stale reads of memory that hosts share without coherence. CXL 2.0 and
 * 3.0 pools without back-invalidate keep no host's cache in step with
 * another host's writes: the writer must flush (clflush, clflushopt, clwb)
 * what it wrote before the reader may see it in memory, and the reader
 * must invalidate (clflush) what it cached before it reads again, or it
 * reads its old copy. QEMU shares the bytes, so a wrong protocol still
 * reads the right data here; the timing model, which keeps each host's
 * caches apart, tells when it would not have on hardware.
 *
 * Per line of the shared space (offsets of a pool both hosts map, the
 * same on every host): a version bumped by every store that reaches the
 * model (a line's repeats are one), the host that stored last, the
 * version its writer last flushed, and per host the version of the copy it
 * holds (0: none: never read, or invalidated since). A load by host H is
 *
 *   - not invalidated: H holds a copy older than another host's store
 *     (it cached the line, the other host wrote it, H did not invalidate);
 *   - not flushed: H fetches the line while another host's last store
 *     to it has not been flushed (memory is old), or reads again the old
 *     copy it fetched so (an invalidate would not have helped).
 *
 * A copy is held from its first read until the host invalidates it, even
 * if the host's cache has let it go meanwhile: a protocol that is right
 * only when eviction happens to come first is wrong. The table lives in
 * the segment every host maps (shm_links.h); fields are updated with
 * relaxed atomics (a race between hosts on one line can lose a version
 * bump, not tear one).
 */
#ifndef CXLBED_MODEL_STALE_H
#define CXLBED_MODEL_STALE_H

#include <stdint.h>

/* Lines of the shared space tracked: 64 MiB of 64-byte lines. */
#define SR_LINES (1u << 20)
/* Hosts tracked (index 0..SR_HOSTS-1); others are not checked. */
#define SR_HOSTS 4
/* Stale reads kept with their address and call site, per host: the first
 * of each program (a program's first marker restarts its host's log). */
#define SR_LOG 32

enum sr_kind { SR_FRESH = 0, SR_NOT_INVALIDATED, SR_NOT_FLUSHED };

struct sr_line {
	uint16_t wver;		/* stores so far */
	uint16_t fver;		/* wver when its writer last flushed it */
	uint8_t writer;		/* host index + 1 of the last store; 0 none */
	uint8_t pad[3];
	uint16_t held[SR_HOSTS];	/* version of the host's copy + 1; 0 none */
};

struct sr_event {
	uint64_t line;		/* in the shared space */
	uint64_t vaddr;		/* the load's virtual address */
	uint64_t pc;		/* the loading instruction's address */
	double t_ns;		/* modeled time of the load */
	int32_t host, writer;	/* host indices */
	int32_t kind;		/* enum sr_kind */
	int32_t roi;		/* the region open on the vCPU; -1 none */
};

struct sr_table {
	uint64_t stale[SR_HOSTS][3];	/* loads by host and enum sr_kind */
	uint64_t flushes[SR_HOSTS];	/* lines invalidated or written back */
	/* stale[] and flushes[] when the host's program started (its log's
	 * restart): what the program's own run counted is the difference */
	uint64_t stale_at_start[SR_HOSTS][3], flushes_at_start[SR_HOSTS];
	int nlog[SR_HOSTS];	/* events logged (up to SR_LOG kept) */
	struct sr_event log[SR_HOSTS][SR_LOG];
	struct sr_line line[SR_LINES];
};

/* Host @host stored to shared line @line. */
void sr_store(struct sr_table *s, uint64_t line, int host);
/* Host @host flushed @line: its copy goes; what it wrote reaches memory. */
void sr_flush(struct sr_table *s, uint64_t line, int host);
/* Host @host loads @line: fresh or how it is stale (counted). */
enum sr_kind sr_load(struct sr_table *s, uint64_t line, int host);
/* Keep @e in its host's log if there is room (the first SR_LOG are kept). */
void sr_log(struct sr_table *s, const struct sr_event *e);
/* Empty @host's log and note its counts: a new program starts there. */
void sr_log_restart(struct sr_table *s, int host);

#endif
