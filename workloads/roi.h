/* SPDX-License-Identifier: MIT */
/*
 * Regions of interest of the workloads: the timing plugin's markers
 * (include/cxlbed-roi.h) with the workloads' id table, and the
 * "rois" list each workload prints so that the runner can turn the
 * plugin's modeled time into latency and bandwidth.
 *
 * A marker's id is an immediate in the instruction, so per-thread ids are
 * a switch over the thread number. Ids (see README.md):
 *   1                  cxlbed-chase                       chaser
 *   2                  cxlbed-loaded                      chaser
 *   100/200/300/400+k  cxlbed-stream read/write/2:1/1:1   streamer k
 *   1100/.../1400+k    cxlbed-loaded, same kinds          streamer k
 */
#ifndef CXLBED_WL_ROI_H
#define CXLBED_WL_ROI_H

#include <stdint.h>
#include <stdio.h>

#include "cxlbed-roi.h"

#define ROI_CHASE		1
#define ROI_LOADED_CHASE	2
#define ROI_STREAM		100	/* + 100 * kind + thread */
#define ROI_LOADED_STREAM	1100	/* + 100 * kind + thread */

#define ROI_C1(op, id, k)	case k: cxlbed_roi_mark(op, (id) + k); break;
#define ROI_C4(op, id, k)	ROI_C1(op, id, k) ROI_C1(op, id, k + 1) \
				ROI_C1(op, id, k + 2) ROI_C1(op, id, k + 3)
#define ROI_C16(op, id, k)	ROI_C4(op, id, k) ROI_C4(op, id, k + 4) \
				ROI_C4(op, id, k + 8) ROI_C4(op, id, k + 12)
/* Marker @op for id @id + @k, k < 32 (WL_MAX_THREADS) chosen at run time. */
#define ROI_MARK_K(op, id, k) do {					\
	switch (k) { ROI_C16(op, id, 0) ROI_C16(op, id, 16) default: break; } \
} while (0)
/* The same for family @fam (ROI_STREAM, ROI_LOADED_STREAM) and @kind. */
#define ROI_MARK_KIND(op, fam, kind, k) do {				\
	switch (kind) {							\
	case 0: ROI_MARK_K(op, (fam) + 0, k); break;			\
	case 1: ROI_MARK_K(op, (fam) + 100, k); break;			\
	case 2: ROI_MARK_K(op, (fam) + 200, k); break;			\
	case 3: ROI_MARK_K(op, (fam) + 300, k); break;			\
	}								\
} while (0)

/* What one region measured: one entry of the "rois" list. */
struct roi_entry {
	int id;
	const char *kind;	/* chase, read, write, mix */
	const char *mix;	/* 2:1, 1:1 for kind mix, else NULL */
	uint64_t accesses;	/* chase */
	uint64_t bytes;		/* read, write, mix */
	double read_fraction;	/* mix */
	int thread;
	const char *role;	/* chaser, streamer */
};

/*
 * End a region and record it. The lock makes the list's order the order in
 * which the END markers ran, which is the order the plugin reports them.
 */
#define ROI_END_RECORD(mark, entry) do {				\
	roi_lock();							\
	mark;								\
	roi_record(entry);						\
	roi_unlock();							\
} while (0)

void roi_lock(void);
void roi_unlock(void);
void roi_record(const struct roi_entry *e);
/* Print ,"rois":[...] (the list so far) to f. */
void roi_print(FILE *f);

#endif
