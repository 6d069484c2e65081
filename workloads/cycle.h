/* SPDX-License-Identifier: MIT */
/*
 * The pointer chase shared by cxlbed-chase and cxlbed-loaded: one random
 * cycle through every cache line of a buffer, so every load depends on the
 * one before and a lap touches each line once.
 */
#ifndef CXLBED_WL_CYCLE_H
#define CXLBED_WL_CYCLE_H

#include <stddef.h>
#include <stdint.h>

#include "pass.h"

struct wl_line {
	struct wl_line *next;
	char pad[WL_LINE - sizeof(struct wl_line *)];
};

/* Link the n lines of buf into one random cycle; exits on error. */
void wl_cycle_build(const char *name, struct wl_line *buf, size_t n,
		    uint64_t seed);

/* Follow @steps links from @p. */
static inline struct wl_line *wl_cycle_walk(struct wl_line *p, uint64_t steps)
{
	while (steps--)
		p = p->next;
	return p;
}

#endif
