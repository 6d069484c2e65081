/* SPDX-License-Identifier: MIT */
/* When each action of a run is due, and its firing (schedule.h). */
#include "schedule/schedule.h"

#include <string.h>

struct item {
	struct sched_action a;
	double at_s, delay_s;	/* drawn */
	bool fired;
	bool armed;		/* triggered; fires at due (its delay) */
	double due_wall, due_modeled_ns;
	bool written_seen;	/* written: the bytes when it started watching */
	uint64_t written_origin;
};

struct schedule {
	const struct run_clock *clock;
	const struct cb_topology *t;
	GPtrArray *items;	/* struct item * */
	double modeled_origin_ns;	/* modeled clock when first seen (< 0: not yet) */
};

struct schedule *schedule_new(const struct run_clock *clock, const struct cb_topology *t)
{
	struct schedule *s = g_new0(struct schedule, 1);

	s->clock = clock;
	s->t = t;
	s->items = g_ptr_array_new_with_free_func(g_free);
	s->modeled_origin_ns = -1;
	return s;
}

void schedule_free(struct schedule *s)
{
	if (!s)
		return;
	g_ptr_array_unref(s->items);
	g_free(s);
}

static double drawn(uint64_t *rng, double lo, double hi)
{
	return hi > lo ? sched_rng_between(rng, lo, hi) : lo;
}

guint schedule_add(struct schedule *s, const struct sched_action *a, uint64_t *rng)
{
	struct item *it = g_new0(struct item, 1);

	it->a = *a;
	it->at_s = drawn(rng, a->when->at_lo, a->when->at_hi);
	it->delay_s = drawn(rng, a->when->delay_lo, a->when->delay_hi);
	g_ptr_array_add(s->items, it);
	return s->items->len - 1;
}

static struct item *item(const struct schedule *s, guint i)
{
	return g_ptr_array_index(s->items, i);
}

double schedule_at_s(const struct schedule *s, guint i)
{
	return item(s, i)->at_s;
}

double schedule_delay_s(const struct schedule *s, guint i)
{
	return item(s, i)->delay_s;
}

bool schedule_fired(const struct schedule *s, guint i)
{
	return item(s, i)->fired;
}

guint schedule_len(const struct schedule *s)
{
	return s->items->len;
}

static void fire(struct item *it)
{
	it->fired = true;
	it->a.fire(it->a.owner, it->a.action);
}

/* A trigger came: fire now, or after the action's delay. */
static void trigger(struct schedule *s, struct item *it)
{
	if (it->fired || it->armed)
		return;
	if (it->delay_s <= 0) {
		fire(it);
		return;
	}
	it->armed = true;
	it->due_wall = run_clock_wall_s(s->clock) + it->delay_s;
	it->due_modeled_ns = it->a.when->delay_modeled ? run_clock_modeled_ns(s->clock) : -1;
	if (it->due_modeled_ns >= 0)
		it->due_modeled_ns += it->delay_s * 1e9;
}

void schedule_start(struct schedule *s)
{
	struct item *it;

	cb_foreach(s->items, struct item, it)
		if (it->a.when->kind == TRIG_START)
			trigger(s, it);
}

void schedule_phase(struct schedule *s, const char *phase)
{
	struct item *it;

	cb_foreach(s->items, struct item, it)
		if (it->a.when->kind == TRIG_PHASE && !strcmp(it->a.when->phase, phase))
			trigger(s, it);
}

void schedule_guest_phase(struct schedule *s, const char *host, const char *phase)
{
	struct item *it;

	cb_foreach(s->items, struct item, it)
		if (it->a.when->kind == TRIG_GUEST && !strcmp(it->a.when->phase, phase) &&
		    (!it->a.host || !strcmp(it->a.host, host)))
			trigger(s, it);
}

/* Bytes written to the pools a written: trigger watches since it started. */
static uint64_t written_since(struct schedule *s, struct item *it)
{
	const struct cb_pool *p;
	uint64_t now = 0;

	cb_foreach(s->t->pools, const struct cb_pool, p)
		if (p->ld_size && (!it->a.pool || !strcmp(it->a.pool, p->id)))
			now += run_clock_pool_written(s->clock, p->id);
	if (!it->written_seen) {
		it->written_seen = true;
		it->written_origin = now;
	}
	return now - it->written_origin;
}

static bool due(struct schedule *s, struct item *it, double wall, double modeled)
{
	if (it->armed)
		return it->a.when->delay_modeled && it->due_modeled_ns >= 0 ?
		       modeled >= it->due_modeled_ns : wall >= it->due_wall;
	switch (it->a.when->kind) {
	case TRIG_AT:
		return wall >= it->at_s;
	case TRIG_MODELED:
		return modeled >= 0 && s->modeled_origin_ns >= 0 &&
		       modeled - s->modeled_origin_ns >= it->at_s * 1e9;
	case TRIG_WRITTEN:
		return written_since(s, it) >= it->a.when->written;
	case TRIG_START:
	case TRIG_PHASE:
	case TRIG_GUEST:
		break;
	}
	return false;
}

void schedule_tick(struct schedule *s)
{
	double modeled = run_clock_modeled_ns(s->clock);
	struct item *it;

	if (modeled >= 0 && s->modeled_origin_ns < 0)
		s->modeled_origin_ns = modeled;
	cb_foreach(s->items, struct item, it)
		if (!it->fired && due(s, it, run_clock_wall_s(s->clock), modeled))
			fire(it);
}
