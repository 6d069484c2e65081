/* SPDX-License-Identifier: MIT */
/*
 * Emptying the modeled caches before a region of interest. Preparing a
 * buffer leaves (part of) it in the caches, and the timing model's LLC
 * (32 MiB in the default topology) is larger than the buffers that are
 * affordable under TCG, so a region would measure cache hits. clflush is
 * no help: the model sees loads and stores only. Reading a local buffer
 * larger than the LLC, one load a line, evicts what was there (LRU), and
 * local memory is cheap under TCG.
 */
#ifndef CXLBED_WL_EVICT_H
#define CXLBED_WL_EVICT_H

#include <stddef.h>

#define WL_EVICT_DEFAULT	(64u << 20)	/* 2x the default LLC */

/* Allocate and touch the eviction buffer (0 bytes: evicting is off). */
void wl_evict_init(const char *name, size_t bytes);
/* Read it through on the calling CPU: its L1/L2 and the shared LLC. */
void wl_evict(void);

/*
 * Before a phase that writes: leave the LLC as the steady state of that
 * phase leaves it, full of lines of the memory being measured, dirty where
 * the phase writes. Each line the phase then brings in evicts one of them,
 * written back over the same path when dirty: the phase's figure includes
 * its writes (a buffer smaller than the LLC would otherwise stay in it,
 * dirty, past the end of the phase). @buf is wl_evict_init's size of that
 * memory (a node's pages or devdax), mapped.
 */
void wl_evict_dirty_init(void *buf);
/* Run a pass of @kind (pass.h) over that buffer (after wl_evict()). */
void wl_evict_dirty(int kind);

#endif
