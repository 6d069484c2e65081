/* SPDX-License-Identifier: MIT */
/*
 * Region-of-interest markers for guest programs (include this in a
 * workload; no library needed). A marker is one 8-byte no-op,
 *
 *     nopl 0xCB5EOIII(%rax,%rax,1)     bytes 0f 1f 84 00 III O 5E CB
 *
 * whose displacement carries a signature (0xCB5E), an operation O and a
 * region id III (0..4095). It does nothing on hardware or without the
 * timing plugin; the plugin spots it when it translates the code.
 * Ids must be compile-time constants.
 */
#ifndef CXLBED_ROI_H
#define CXLBED_ROI_H

#define CXLBED_ROI_SIG		0xCB5Eu
#define CXLBED_ROI_BEGIN	1	/* start timing region @id on this vCPU */
#define CXLBED_ROI_END		2	/* end it: the plugin reports it */
#define CXLBED_ROI_ARM		3	/* start modeling (no region) */
#define CXLBED_ROI_DUMP		4	/* write the report now */
#define CXLBED_ROI_CLOCK	5	/* guest clock device; id: see cxlbed-clock.h */
/*
 * Start together with the run's other hosts: wait until @id (2..16)
 * vCPUs, on any hosts of the run, have executed this marker; all resume
 * at the latest one's modeled time (a `together` workload's start).
 */
#define CXLBED_ROI_TOGETHER	6
/* A copy engine's transfer, or modeled busy time (cxlbed-copy.h). */
#define CXLBED_ROI_COPY		7

/* The guest agent's region around a whole workload command (its `run`
 * with "roi": true); workloads' own ids stay below it. */
#define CXLBED_ROI_COMMAND	2000

#define CXLBED_ROI_WORD(op, id) \
	((CXLBED_ROI_SIG << 16) | (((op) & 0xfu) << 12) | ((id) & 0xfffu))

#if defined(__x86_64__) || defined(__i386__)
#define cxlbed_roi_mark(op, id) \
	__asm__ __volatile__(".byte 0x0f, 0x1f, 0x84, 0x00\n\t.long %c0" \
			     :: "i"(CXLBED_ROI_WORD(op, id)) : "memory")
#else
#define cxlbed_roi_mark(op, id) do { } while (0)
#endif

#define cxlbed_roi_begin(id)	cxlbed_roi_mark(CXLBED_ROI_BEGIN, id)
#define cxlbed_roi_end(id)	cxlbed_roi_mark(CXLBED_ROI_END, id)
#define cxlbed_roi_arm()	cxlbed_roi_mark(CXLBED_ROI_ARM, 0)
#define cxlbed_roi_dump()	cxlbed_roi_mark(CXLBED_ROI_DUMP, 0)

#endif
