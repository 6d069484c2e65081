/* SPDX-License-Identifier: MIT */
/*
 * Memory tiers. The runtime sees three: FAST (HBM on a GPU, a plain buffer
 * on the host backend), HOST (pinned DRAM next to it) and FAR (an emulated
 * CXL or RDMA pool: host memory whose transfers go through the shaper).
 * A tier has a capacity so that a budget below the real device size can
 * force offload.
 */
#ifndef RT_TIER_H
#define RT_TIER_H

#include <stdbool.h>
#include <stddef.h>

enum rt_tier_kind { RT_TIER_FAST, RT_TIER_HOST, RT_TIER_FAR, RT_TIER_COUNT };

struct rt_tier {
	enum rt_tier_kind kind;
	size_t capacity;	/* 0 = unlimited */
	size_t used;
};

const char *rt_tier_name(enum rt_tier_kind k);
void rt_tier_init(struct rt_tier *t, enum rt_tier_kind k, size_t capacity);
/* Reserve @n bytes against the budget; false if it would exceed it. */
bool rt_tier_reserve(struct rt_tier *t, size_t n);
void rt_tier_unreserve(struct rt_tier *t, size_t n);

#endif
