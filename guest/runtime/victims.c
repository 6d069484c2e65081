/* SPDX-License-Identifier: MIT */
/* The victim index; see victims.h. */
#include <stdbool.h>
#include <stdlib.h>

#include "lookahead.h"
#include "victims.h"

/*
 * A node holds its slots' partial choice: the lowest free slot, the least
 * recently used block beyond the horizon (and the least next-use position
 * there, to find blocks the horizon's edge has passed), and the block
 * within the horizon wanted furthest ahead. A leaf is one slot.
 */
struct rt_victim_node {
	uint64_t lu;		/* beyond: last use of b_at */
	size_t bp;		/* beyond: least next-use position */
	size_t wp;		/* within: next-use position of w_at */
	int b_at, w_at, free_at;
};

static const struct rt_victim_node none = {
	.lu = UINT64_MAX, .bp = RT_NO_USE, .wp = 0,
	.b_at = -1, .w_at = -1, .free_at = -1,
};

/* Left before right: between equals the lower slot wins, as in a pass. */
static void pull(struct rt_victim_node *t, int k)
{
	const struct rt_victim_node *a = &t[2 * k], *b = &t[2 * k + 1];
	struct rt_victim_node *x = &t[k];

	x->free_at = a->free_at >= 0 ? a->free_at : b->free_at;
	if (a->b_at < 0 || (b->b_at >= 0 && b->lu < a->lu)) {
		x->b_at = b->b_at;
		x->lu = b->lu;
	} else {
		x->b_at = a->b_at;
		x->lu = a->lu;
	}
	x->bp = a->bp < b->bp ? a->bp : b->bp;
	if (a->w_at < 0 || (b->w_at >= 0 && b->wp > a->wp)) {
		x->w_at = b->w_at;
		x->wp = b->wp;
	} else {
		x->w_at = a->w_at;
		x->wp = a->wp;
	}
}

static void update(struct rt_victims *v, int slot)
{
	for (int k = (v->leaves + slot) / 2; k >= 1; k /= 2)
		pull(v->t, k);
}

int rt_victims_init(struct rt_victims *v, int nslots, size_t horizon,
		    rt_victim_reader read, void *arg)
{
	v->leaves = 1;
	while (v->leaves < nslots)
		v->leaves *= 2;
	v->n = nslots;
	v->horizon = horizon;
	v->read = read;
	v->arg = arg;
	v->nstale = 0;
	v->t = malloc(2 * (size_t)v->leaves * sizeof(*v->t));
	v->stale = calloc((size_t)nslots, 1);
	v->stale_list = malloc((size_t)nslots * sizeof(*v->stale_list));
	if (!v->t || !v->stale || !v->stale_list) {
		rt_victims_fini(v);
		return -1;
	}
	for (int k = 0; k < 2 * v->leaves; k++)
		v->t[k] = none;
	for (int i = 0; i < nslots; i++) {
		v->t[v->leaves + i].free_at = i;
		rt_victims_touch(v, i);
	}
	for (int k = v->leaves - 1; k >= 1; k--)
		pull(v->t, k);
	return 0;
}

void rt_victims_fini(struct rt_victims *v)
{
	free(v->t);
	free(v->stale);
	free(v->stale_list);
	v->t = NULL;
	v->stale = NULL;
	v->stale_list = NULL;
	v->n = v->leaves = v->nstale = 0;
}

void rt_victims_touch(struct rt_victims *v, int slot)
{
	if (slot < 0 || slot >= v->n || v->stale[slot])
		return;
	v->stale[slot] = 1;
	v->stale_list[v->nstale++] = slot;
}

/* The cursor + horizon, where "beyond" starts; saturated. */
static size_t edge(const struct rt_victims *v, size_t pos)
{
	return v->horizon > RT_NO_USE - pos ? RT_NO_USE : pos + v->horizon;
}

static void set_leaf(struct rt_victims *v, int slot, enum rt_victim_kind kind,
		     size_t next, uint64_t last_use, size_t pos)
{
	struct rt_victim_node *x = &v->t[v->leaves + slot];

	*x = none;
	if (kind == RT_VICTIM_FREE) {
		x->free_at = slot;
	} else if (kind == RT_VICTIM_BLOCK) {
		if (next == RT_NO_USE || next >= edge(v, pos)) {
			x->b_at = slot;
			x->lu = last_use;
			x->bp = next;
		} else {
			x->w_at = slot;
			x->wp = next;
		}
	}
}

/*
 * Read the stale slots back. Many of them (a new stream, a burst of
 * accesses with no fetch): set the leaves and rebuild every node once,
 * rather than walk to the root from each.
 */
static void refresh(struct rt_victims *v, size_t pos)
{
	bool rebuild = v->nstale > v->n / 8;

	for (int k = 0; k < v->nstale; k++) {
		int i = v->stale_list[k];
		struct rt_victim_slot s = v->read(v->arg, i);

		v->stale[i] = 0;
		set_leaf(v, i, s.kind, s.next, s.last_use, pos);
		if (!rebuild)
			update(v, i);
	}
	v->nstale = 0;
	for (int k = v->leaves - 1; rebuild && k >= 1; k--)
		pull(v->t, k);
}

/* Blocks the horizon's edge has passed since they were set come within. */
static void bring_within(struct rt_victims *v, size_t pos)
{
	size_t e = edge(v, pos);

	while (v->t[1].bp < e) {
		int k = 1;

		while (k < v->leaves)
			k = v->t[2 * k].bp < e ? 2 * k : 2 * k + 1;
		set_leaf(v, k - v->leaves, RT_VICTIM_BLOCK, v->t[k].bp, 0, pos);
		update(v, k - v->leaves);
	}
}

int rt_victims_choose(struct rt_victims *v, size_t pos, size_t needed_at,
		      int prefer)
{
	const struct rt_victim_node *root = &v->t[1];
	const struct rt_victim_node *pref =
		prefer >= 0 && prefer < v->n ? &v->t[v->leaves + prefer] : NULL;

	refresh(v, pos);
	if (pref && pref->free_at >= 0)
		return prefer;
	if (root->free_at >= 0)
		return root->free_at;
	bring_within(v, pos);
	if (root->b_at >= 0)	/* not wanted within the horizon: all equal */
		return pref && pref->b_at >= 0 ? prefer : root->b_at;
	if (root->w_at < 0)
		return -1;
	if (needed_at != RT_NO_USE && root->wp - pos <= needed_at)
		return -1;	/* every block is wanted before the incoming one */
	return root->w_at;
}
