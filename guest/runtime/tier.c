/* SPDX-License-Identifier: MIT */
/* Tier names and capacity accounting. */
#include "tier.h"

static const char *const names[RT_TIER_COUNT] = {
	[RT_TIER_FAST] = "fast", [RT_TIER_HOST] = "host", [RT_TIER_FAR] = "far",
};

const char *rt_tier_name(enum rt_tier_kind k)
{
	return k < RT_TIER_COUNT ? names[k] : "?";
}

void rt_tier_init(struct rt_tier *t, enum rt_tier_kind k, size_t capacity)
{
	t->kind = k;
	t->capacity = capacity;
	t->used = 0;
}

bool rt_tier_reserve(struct rt_tier *t, size_t n)
{
	if (t->capacity && t->used + n > t->capacity)
		return false;
	t->used += n;
	return true;
}

void rt_tier_unreserve(struct rt_tier *t, size_t n)
{
	t->used = n > t->used ? 0 : t->used - n;
}
