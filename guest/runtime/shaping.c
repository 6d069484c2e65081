/* SPDX-License-Identifier: MIT */
/* Fluid far-link model; see shaping.h. */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "shaping.h"

void shp_init(struct shaper *s, const struct shp_params *p)
{
	memset(s, 0, sizeof(*s));
	s->p = *p;
	pthread_mutex_init(&s->lock, NULL);
}

void shp_destroy(struct shaper *s)
{
	pthread_mutex_destroy(&s->lock);
}

uint64_t shp_alone_ns(const struct shp_params *p, uint64_t bytes)
{
	double t = (double)p->latency_ns;

	if (p->gbps > 0)
		t += (double)bytes / p->gbps;
	return (uint64_t)(t + 0.5);
}

/* A transfer drains once its latency has passed. */
static bool draining(const struct shp_xfer *x, const struct shp_params *p,
		     double t)
{
	return x->used && !x->done && (double)(x->start_ns + p->latency_ns) <= t;
}

/*
 * Move the model from s->now to @now in steps that end at the next event:
 * a latency expiring (one more sharer) or a transfer draining (one fewer).
 * Between events every draining transfer gets bw / k.
 */
void shp_advance(struct shaper *s, uint64_t now)
{
	double t = (double)s->now, end = (double)now;

	if (end <= t)
		return;
	for (;;) {
		int k = 0;
		double next = end, min_left = -1;

		for (int i = 0; i < SHP_MAX_XFERS; i++) {
			struct shp_xfer *x = &s->x[i];

			if (!x->used || x->done)
				continue;
			double ready = (double)(x->start_ns + s->p.latency_ns);

			if (ready > t) {
				if (ready < next)
					next = ready;
				continue;
			}
			if (s->p.gbps <= 0 || x->left <= 0) {
				/* Unlimited link: done the moment latency ends. */
				x->done = true;
				x->done_ns = (uint64_t)(ready + 0.5);
				continue;
			}
			k++;
			if (min_left < 0 || x->left < min_left)
				min_left = x->left;
		}
		if (k) {
			double rate = s->p.gbps / k;	/* bytes per ns each */
			double drain_at = t + min_left / rate;

			if (drain_at <= t)	/* below clock resolution */
				drain_at = nextafter(t, INFINITY);
			if (drain_at < next)
				next = drain_at;
			for (int i = 0; i < SHP_MAX_XFERS; i++) {
				struct shp_xfer *x = &s->x[i];

				if (!draining(x, &s->p, t) || x->left <= 0)
					continue;
				x->left -= rate * (next - t);
				if (x->left <= 1e-6) {
					x->left = 0;
					x->done = true;
					x->done_ns = (uint64_t)(next + 0.5);
				}
			}
		}
		t = next;
		if (t >= end)
			break;
	}
	s->now = now;
}

int shp_submit(struct shaper *s, uint64_t bytes, uint64_t now)
{
	if (now < s->now)
		now = s->now;
	shp_advance(s, now);
	for (int i = 0; i < SHP_MAX_XFERS; i++) {
		struct shp_xfer *x = &s->x[i];

		if (x->used)
			continue;
		memset(x, 0, sizeof(*x));
		x->used = true;
		x->start_ns = now;
		x->left = (double)bytes;
		return i;
	}
	return -1;
}

bool shp_done(const struct shaper *s, int id, uint64_t *done_ns)
{
	const struct shp_xfer *x = &s->x[id];

	if (x->done && done_ns)
		*done_ns = x->done_ns;
	return x->done;
}

/*
 * Optimistic ETA: assume the current sharers keep sharing until @id ends.
 * Arrivals only push it later, so a waiter that sleeps to the ETA and then
 * re-checks never finishes early.
 */
uint64_t shp_eta(const struct shaper *s, int id)
{
	const struct shp_xfer *me = &s->x[id];
	double t = (double)s->now, ready;
	int k = 0;

	if (me->done)
		return me->done_ns;
	ready = (double)(me->start_ns + s->p.latency_ns);
	if (s->p.gbps <= 0)
		return (uint64_t)(ready + 0.5);
	if (ready > t)
		return (uint64_t)(ready + me->left / s->p.gbps + 0.5);
	for (int i = 0; i < SHP_MAX_XFERS; i++)
		if (draining(&s->x[i], &s->p, t))
			k++;
	if (!k)
		k = 1;
	return (uint64_t)(t + me->left * k / s->p.gbps + 0.5);
}

void shp_release(struct shaper *s, int id)
{
	s->x[id].used = false;
}

uint64_t shp_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Sleep most of the way, spin the last stretch: a plain sleep overshoots by
 * the timer slack (~50 us), which would be a 20% error on an 8 MiB page at
 * 32 GB/s.
 */
#define SPIN_NS 100000ull

static void sleep_until(uint64_t t)
{
	uint64_t now = shp_clock_ns();

	if (t > now + 2 * SPIN_NS) {
		uint64_t w = t - SPIN_NS;
		struct timespec ts = {
			.tv_sec = (time_t)(w / 1000000000ull),
			.tv_nsec = (long)(w % 1000000000ull),
		};

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	while (shp_clock_ns() < t)
		;
}

int shp_rt_begin(struct shaper *s, uint64_t bytes)
{
	int id;

	for (;;) {
		pthread_mutex_lock(&s->lock);
		id = shp_submit(s, bytes, shp_clock_ns());
		pthread_mutex_unlock(&s->lock);
		if (id >= 0)
			return id;
		sleep_until(shp_clock_ns() + 10000);	/* table full: back off */
	}
}

void shp_rt_wait(struct shaper *s, int id)
{
	for (;;) {
		uint64_t eta;

		pthread_mutex_lock(&s->lock);
		shp_advance(s, shp_clock_ns());
		if (shp_done(s, id, NULL)) {
			shp_release(s, id);
			pthread_mutex_unlock(&s->lock);
			return;
		}
		eta = shp_eta(s, id);
		pthread_mutex_unlock(&s->lock);
		sleep_until(eta);
	}
}
