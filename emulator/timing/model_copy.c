// SPDX-License-Identifier: MIT
/* Copy engines: bulk transfers sharing NICs and DMA engines (model_copy.h). */
#include "model_copy.h"
#include "spin_lock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes below which a transfer counts as moved (rounding of the steps). */
#define CE_EPS 1e-3

static void ce_lock(struct ce_fabric *f)
{
	tm_spin_lock(&f->lock);
}

static void ce_unlock(struct ce_fabric *f)
{
	tm_spin_unlock(&f->lock);
}

int ce_res_get(struct ce_fabric *f, const char *name, double gbps, int depth)
{
	int i;

	if (!(gbps > 0) || depth < 1 || depth > CE_MAX_DEPTH)
		return -1;
	ce_lock(f);
	for (i = 0; i < f->nres; i++)
		if (!strcmp(f->res[i].name, name))
			break;
	if (i == f->nres) {
		if (f->nres == CE_MAX_RES) {
			ce_unlock(f);
			return -1;
		}
		memset(&f->res[i], 0, sizeof(f->res[i]));
		snprintf(f->res[i].name, sizeof(f->res[i].name), "%s", name);
		f->res[i].gbps = gbps;
		f->res[i].depth = depth;
		f->nres++;
	}
	ce_unlock(f);
	return i;
}

/*
 * Each moving transfer's rate (bytes per ns) by progressive filling: the
 * resource whose remaining bandwidth split among its unfixed transfers is
 * smallest (or a transfer's own cap, if smaller) fixes those transfers at
 * that rate; repeat. What is left of a resource goes to the others.
 */
static void rates(const struct ce_fabric *f, double *rate)
{
	double room[CE_MAX_RES];
	int users[CE_MAX_RES];
	bool fixed[CE_MAX_XFERS];

	for (int r = 0; r < f->nres; r++) {
		room[r] = f->res[r].gbps;
		users[r] = 0;
	}
	for (int i = 0; i < CE_MAX_XFERS; i++) {
		rate[i] = 0;
		fixed[i] = f->x[i].state != CE_MOVING;
		for (int k = 0; !fixed[i] && k < f->x[i].nhops; k++)
			users[f->x[i].hop[k]]++;
	}
	for (;;) {
		double best = INFINITY;
		int br = -1, bi = -1;

		for (int r = 0; r < f->nres; r++)
			if (users[r] && room[r] / users[r] < best) {
				best = room[r] / users[r];
				br = r;
			}
		for (int i = 0; i < CE_MAX_XFERS; i++)
			if (!fixed[i] && f->x[i].cap > 0 && f->x[i].cap < best) {
				best = f->x[i].cap;
				bi = i;
			}
		if (br < 0 && bi < 0)
			return;
		for (int i = 0; i < CE_MAX_XFERS; i++) {
			bool on = i == bi;

			for (int k = 0; bi < 0 && !fixed[i] && k < f->x[i].nhops; k++)
				on |= f->x[i].hop[k] == br;
			if (!on || fixed[i])
				continue;
			fixed[i] = true;
			rate[i] = best > 0 ? best : 0;
			for (int k = 0; k < f->x[i].nhops; k++) {
				room[f->x[i].hop[k]] -= rate[i];
				users[f->x[i].hop[k]]--;
			}
		}
	}
}

static void moved(struct ce_xfer *x, double at)
{
	/* nobody waits for it any more (ce_collect while it moved) */
	x->state = x->owner < 0 ? CE_FREE : CE_MOVED;
	x->left = 0;
	x->moved_at = at;
}

/* Queued transfers that find a slot on each of their resources start now,
 * in the order they were posted; a later one never passes an earlier one
 * on a resource they share. */
static void start_queued(struct ce_fabric *f)
{
	int busy[CE_MAX_RES] = { 0 };
	bool blocked[CE_MAX_RES] = { false };

	for (int i = 0; i < CE_MAX_XFERS; i++)
		for (int k = 0; f->x[i].state == CE_MOVING && k < f->x[i].nhops; k++)
			busy[f->x[i].hop[k]]++;
	for (;;) {
		int first = -1;
		bool fits = true;

		for (int i = 0; i < CE_MAX_XFERS; i++) {
			const struct ce_xfer *x = &f->x[i];
			bool skip = x->state != CE_QUEUED;

			for (int k = 0; !skip && k < x->nhops; k++)
				skip = blocked[x->hop[k]];
			if (!skip && (first < 0 || x->posted < f->x[first].posted))
				first = i;
		}
		if (first < 0)
			return;
		struct ce_xfer *x = &f->x[first];

		for (int k = 0; k < x->nhops; k++)
			fits &= busy[x->hop[k]] < f->res[x->hop[k]].depth;
		for (int k = 0; k < x->nhops; k++) {
			if (!fits) {
				blocked[x->hop[k]] = true;
				continue;
			}
			busy[x->hop[k]]++;
			f->res[x->hop[k]].queued_ns += f->at - x->posted;
		}
		if (!fits)
			continue;
		x->state = CE_MOVING;
		x->started = f->at;
		if (x->left < CE_EPS)
			moved(x, f->at);
	}
}

/*
 * Move the transfers on to modeled time @t, or only until transfer
 * @until has moved (>= 0): at each step the rates hold until the next
 * transfer finishes.
 */
static void advance(struct ce_fabric *f, double t, int until)
{
	double rate[CE_MAX_XFERS];

	start_queued(f);
	while (f->at < t && (until < 0 || f->x[until].state != CE_MOVED)) {
		double step = t - f->at;
		bool any = false;

		rates(f, rate);
		for (int i = 0; i < CE_MAX_XFERS; i++)
			if (f->x[i].state == CE_MOVING && rate[i] > 0) {
				any = true;
				if (f->x[i].left / rate[i] < step)
					step = f->x[i].left / rate[i];
			}
		if (!any) {
			if (until < 0)
				f->at = t;
			return;	/* nothing moves: @until can never finish */
		}
		f->at += step;
		for (int i = 0; i < CE_MAX_XFERS; i++) {
			if (f->x[i].state != CE_MOVING)
				continue;
			f->x[i].left -= rate[i] * step;
			if (f->x[i].left < CE_EPS)
				moved(&f->x[i], f->at);
		}
		start_queued(f);
	}
}

/* A free entry; none free: the longest-moved one nobody collected; -1. */
static int free_entry(const struct ce_fabric *f)
{
	int h = -1;

	for (int i = 0; i < CE_MAX_XFERS; i++)
		if (f->x[i].state == CE_FREE)
			return i;
	for (int i = 0; i < CE_MAX_XFERS; i++)
		if (f->x[i].state == CE_MOVED &&
		    (h < 0 || f->x[i].moved_at < f->x[h].moved_at))
			h = i;
	return h;
}

int ce_post(struct ce_fabric *f, double t, double bytes, const int *hop,
	    int nhops, double cap, double latency_ns, int owner, uint64_t tag)
{
	int h;

	if (nhops < 1 || nhops > CE_MAX_HOPS || bytes < 0)
		return -1;
	ce_lock(f);
	if (t < f->at)
		t = f->at;	/* served from the present */
	advance(f, t, -1);
	h = free_entry(f);
	if (h >= 0) {
		struct ce_xfer *x = &f->x[h];

		memset(x, 0, sizeof(*x));
		x->state = CE_QUEUED;
		x->owner = owner;
		x->tag = tag;
		x->nhops = nhops;
		memcpy(x->hop, hop, nhops * sizeof(*hop));
		x->cap = cap;
		x->latency_ns = latency_ns;
		x->bytes = x->left = bytes;
		x->posted = t;
		for (int k = 0; k < nhops; k++) {
			f->res[hop[k]].xfers++;
			f->res[hop[k]].bytes += (uint64_t)bytes;
		}
		start_queued(f);
	}
	ce_unlock(f);
	return h;
}

double ce_done(struct ce_fabric *f, int h)
{
	struct ce_fabric *sim = malloc(sizeof(*sim));
	double done;

	if (!sim)
		abort();
	ce_lock(f);
	memcpy(sim, f, sizeof(*sim));
	ce_unlock(f);
	advance(sim, INFINITY, h);
	done = sim->x[h].state == CE_MOVED ?
	       sim->x[h].moved_at + sim->x[h].latency_ns : INFINITY;
	free(sim);
	return done;
}

void ce_collect(struct ce_fabric *f, int h)
{
	ce_lock(f);
	/* still moving (its poster gave up waiting): let it finish unseen */
	if (f->x[h].state == CE_MOVED || f->x[h].state == CE_QUEUED)
		f->x[h].state = CE_FREE;
	else
		f->x[h].owner = -1;
	ce_unlock(f);
}

int ce_find(struct ce_fabric *f, int owner, uint64_t tag)
{
	int h = -1;

	ce_lock(f);
	for (int i = 0; i < CE_MAX_XFERS && h < 0; i++)
		if (f->x[i].state != CE_FREE && f->x[i].owner == owner &&
		    f->x[i].tag == tag)
			h = i;
	ce_unlock(f);
	return h;
}
