/* SPDX-License-Identifier: MIT */
/*
 * Flushes of shared memory whose virtual address the plugin cannot yet
 * translate (QEMU runs clflush without a page walk, and a reader must
 * invalidate before its first access: plugin_share.c). They wait by 2 MiB
 * area of virtual memory until the area's first access gives one
 * translation; the whole area is then taken to lie at that offset, as a
 * devdax mapping (2 MiB aligned, shared pools' mode) does, and every line
 * waiting in it is flushed at once, before that access and before any
 * prefetch it starts: as if each had been flushed when it ran, since this
 * mapping cached nothing of the area in between.
 */
#ifndef CXLBED_FLUSH_PENDING_H
#define CXLBED_FLUSH_PENDING_H

#include <stdint.h>

#define FP_AREA_SHIFT	21
#define FP_LINE_SHIFT	6		/* 64-byte lines */
#define FP_LINES	(1u << (FP_AREA_SHIFT - FP_LINE_SHIFT))
#define FP_AREAS	16		/* 32 MiB waiting at most */

struct fp_area {
	uint64_t vbase1;		/* the area's virtual base + 1; 0 free */
	uint64_t stamp;			/* when it got its first line */
	uint64_t bits[FP_LINES / 64];
};

struct flush_pending {
	int used;			/* areas in use */
	uint64_t clock;
	uint64_t dropped;		/* lines given up (FP_AREAS full) */
	struct fp_area a[FP_AREAS];
};

/* The line of @vaddr waits for its area's translation. When every area is
 * taken, the oldest area's lines are given up (counted in dropped). */
void fp_add(struct flush_pending *p, uint64_t vaddr);

/*
 * @vaddr is at @pa: each line waiting in its area, as a physical address,
 * through @fn; the area is then free. Returns how many.
 */
int fp_take(struct flush_pending *p, uint64_t vaddr, uint64_t pa,
	    void (*fn)(uint64_t pa, void *ctx), void *ctx);

#endif
