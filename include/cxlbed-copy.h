/* SPDX-License-Identifier: MIT */
/*
 * Copy engines for guest programs (include this; no library needed): an
 * RDMA NIC or a DMA engine that moves N bytes between two regions while
 * the program goes on, timed by the timing plugin as that engine would
 * move them (docs/timing-model.md, "Copy engines"; docs/kv-share.md).
 *
 *     cxlbed_copy(engine, dst, src, n, tag);   post: the bytes are here now
 *     ... other work ...
 *     cxlbed_copy_wait(tag);                   the transfer's completion
 *
 * The program moves the bytes itself (a memcpy between two markers that
 * the plugin does not model: the modeled time is the engine's, charged at
 * the wait), so the data is right on any machine and the figure is the
 * NIC's. @engine is the index of an `engine` line in the host's timing
 * config (the runner writes them from the topology's [host] nics and
 * dma-engine, in that order; docs/kv-share.md). Without the plugin, or on
 * hardware, the markers are no-ops and the copy is a plain memcpy.
 *
 * Each marker is the ROI marker's nopl (cxlbed-roi.h, op 7) with its
 * argument in %rax, which the plugin reads when the marker runs.
 */
#ifndef CXLBED_COPY_H
#define CXLBED_COPY_H

#include <stdint.h>
#include <string.h>

#include "cxlbed-roi.h"

#define CXLBED_COPY_MAGIC	0x31505943u	/* "CYP1" */

/* Marker ids under CXLBED_ROI_COPY; %rax holds the argument. */
#define CXLBED_COPY_POST	0	/* rax: struct cxlbed_copy *; modeling of this vCPU pauses */
#define CXLBED_COPY_MOVED	1	/* the bytes are moved: modeling resumes where POST left it */
#define CXLBED_COPY_WAIT	2	/* rax: tag; the vCPU waits for that transfer's completion */
#define CXLBED_COPY_BUSY	3	/* rax: ns; the vCPU is busy this long (modeled compute) */

struct cxlbed_copy {
	uint32_t magic;
	uint32_t engine;	/* index of the host's engine */
	uint64_t tag;		/* the program's name for the transfer */
	uint64_t src, dst;	/* virtual addresses */
	uint64_t bytes;
};

#if defined(__x86_64__)
#define cxlbed_copy_mark(id, arg) \
	__asm__ __volatile__(".byte 0x0f, 0x1f, 0x84, 0x00\n\t.long %c0" \
			     :: "i"(CXLBED_ROI_WORD(CXLBED_ROI_COPY, id)), \
				"a"((uint64_t)(arg)) : "memory")
#else
#define cxlbed_copy_mark(id, arg) do { (void)(arg); } while (0)
#endif

/* Post a transfer of @n bytes from @src to @dst on @engine, tagged @tag. */
static inline void cxlbed_copy(unsigned int engine, void *dst, const void *src,
			       uint64_t n, uint64_t tag)
{
	struct cxlbed_copy d = {
		.magic = CXLBED_COPY_MAGIC, .engine = engine, .tag = tag,
		.src = (uint64_t)(uintptr_t)src, .dst = (uint64_t)(uintptr_t)dst,
		.bytes = n,
	};

	cxlbed_copy_mark(CXLBED_COPY_POST, &d);
	memcpy(dst, src, n);
	cxlbed_copy_mark(CXLBED_COPY_MOVED, 0);
}

/* Wait for the transfer tagged @tag (posted by this thread). */
static inline void cxlbed_copy_wait(uint64_t tag)
{
	cxlbed_copy_mark(CXLBED_COPY_WAIT, tag);
}

/* Modeled compute: the vCPU is busy @ns (an accelerator's kernel). */
static inline void cxlbed_busy_ns(uint64_t ns)
{
	cxlbed_copy_mark(CXLBED_COPY_BUSY, ns);
}

#endif
