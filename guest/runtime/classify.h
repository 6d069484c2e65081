/* SPDX-License-Identifier: MIT */
/*
 * Hot/cold classification with hysteresis, for units of any size (pages,
 * rows, blocks): the caller reports accesses (hints, or samples from
 * DAMON), the classifier keeps a decayed score per unit and, once per
 * epoch, plans which units to promote into the fast tier and which to
 * demote out of it so that the fast tier holds the hottest units it has
 * room for.
 *
 * Moving costs, so a move must be worth it. A slow unit displaces a fast
 * one only if its score beats the fast one's by a relative margin AND by
 * more than sampling noise (z standard deviations of the difference of
 * two Poisson counts, z growing with how many units are compared): with
 * uniform access nothing moves however the samples fall. The noise is
 * that of the observations, not of the weights they carry: one sampled
 * access standing for 16 (rt_class_sample) is one observation, with 16
 * times the spread of a count of 16 (rt_class_touch). A unit also stays
 * where it was put for `dwell` epochs.
 * Free room in the fast tier is filled with any unit whose score clears
 * `min_score`. Backend-neutral: no memory is touched here.
 */
#ifndef RT_CLASSIFY_H
#define RT_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rt_class_params {
	double decay;		/* score multiplier per epoch, 0..1 */
	double margin;		/* relative lead a swap needs, e.g. 0.25 */
	double z;		/* noise bound in standard deviations, e.g. 3 */
	double min_score;	/* below this a unit is not worth promoting */
	uint32_t dwell;		/* epochs a moved unit stays put */
	uint32_t max_moves;	/* promotions per epoch (rate limit); 0 = none */
};

struct rt_classifier {
	struct rt_class_params p;
	uint32_t n;		/* units */
	uint32_t capacity;	/* units the fast tier holds */
	uint32_t in_fast;	/* units there now */
	float *score;		/* decayed access count */
	float *fresh;		/* accesses this epoch, folded in at the epoch */
	float *var;		/* the score's variance, decayed alike */
	float *fresh_var;	/* this epoch's part of it */
	uint8_t *fast;		/* 1: in the fast tier */
	uint32_t *moved;	/* epoch of the unit's last move */
	uint32_t epoch;
	bool folded;		/* this epoch's accesses are in (rt_class_fold_counts) */
	bool touched;		/* fresh[] holds something (a touch or a sample) */
	uint32_t *order;	/* scratch */
	uint64_t promotions, demotions;
};

void rt_class_params_default(struct rt_class_params *p);
int rt_class_init(struct rt_classifier *c, const struct rt_class_params *p,
		  uint32_t n, uint32_t capacity);
void rt_class_fini(struct rt_classifier *c);

/* @count accesses of @unit, each one observed (a count: its variance is
 * the count). Not thread-safe with rt_class_epoch; the caller serialises. */
static inline void rt_class_touch(struct rt_classifier *c, uint32_t unit,
				  float count)
{
	if (unit < c->n) {
		c->fresh[unit] += count;
		c->fresh_var[unit] += count;
		c->touched = true;
	}
}

/* One observed access of @unit standing for @weight accesses (one of a
 * sample of 1 in @weight): the score grows by @weight, its variance by
 * @weight squared. */
static inline void rt_class_sample(struct rt_classifier *c, uint32_t unit,
				   float weight)
{
	if (unit < c->n) {
		c->fresh[unit] += weight;
		c->fresh_var[unit] += weight * weight;
		c->touched = true;
	}
}

/* Record where a unit is now (initial placement, or a move the caller
 * made on its own); keeps in_fast right. */
void rt_class_set_fast(struct rt_classifier *c, uint32_t unit, bool fast);

/*
 * This epoch's accesses as a count per unit (@count[0..n), zeroed here),
 * with any touched or sampled ones: one pass over the units instead of a
 * touch for each, for callers that count every access (object caches).
 * The next rt_class_epoch then does not fold again.
 */
void rt_class_fold_counts(struct rt_classifier *c, uint32_t *count);

/*
 * Close the epoch: fold this epoch's accesses into the scores, then plan.
 * Writes up to @max units to @promote and to @demote (the caller must make
 * the demotions before the promotions: they free the room) and returns
 * the counts through @np and @nd. The plan is already applied to the
 * classifier's view (fast[], in_fast); a move the caller could not make
 * is undone with rt_class_set_fast.
 */
void rt_class_epoch(struct rt_classifier *c, uint32_t *promote, size_t *np,
		    uint32_t *demote, size_t *nd, size_t max);

/* Would a unit with score @hot be worth swapping in for one with @cold,
 * both plain counts? (_var: scores whose difference has variance @var,
 * noise bound @z instead of p->z; an epoch uses at least
 * sqrt(2 ln(slow units x fast units)), see classify.c.) */
bool rt_class_worth(const struct rt_class_params *p, double hot, double cold);
bool rt_class_worth_var(const struct rt_class_params *p, double hot,
			double cold, double var, double z);

#endif
