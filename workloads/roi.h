/* SPDX-License-Identifier: MIT */
/*
 * Region-of-interest markers around a workload's measured loop. No-ops for
 * now; the timing model may turn them into a marker instruction its TCG
 * plugin recognises, so that only the measured loop is modeled.
 */
#ifndef CXLBED_ROI_H
#define CXLBED_ROI_H

static inline void roi_begin(void)
{
	__asm__ __volatile__("" ::: "memory");
}

static inline void roi_end(void)
{
	__asm__ __volatile__("" ::: "memory");
}

#endif
