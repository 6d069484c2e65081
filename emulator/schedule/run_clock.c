/* SPDX-License-Identifier: MIT */
/* The run's clocks (run_clock.h). */
#include "schedule/run_clock.h"
#include "timing/shm_links.h"

#include <stdio.h>
#include <string.h>

void run_clock_start(struct run_clock *c)
{
	c->t0 = g_get_monotonic_time();
}

double run_clock_wall_s(const struct run_clock *c)
{
	return c->t0 ? (g_get_monotonic_time() - c->t0) / 1e6 : 0;
}

static struct tm_shared *segment(const struct run_clock *c)
{
	return c->segment ? c->segment(c->ctx) : NULL;
}

double run_clock_modeled_ns(const struct run_clock *c)
{
	struct tm_shared *s = segment(c);
	uint64_t min = 0;
	int n;

	if (!s)
		return -1;
	n = __atomic_load_n(&s->nslots, __ATOMIC_ACQUIRE);
	for (int i = 0; i < n && i < TM_MAX_SLOTS; i++) {
		uint64_t v = __atomic_load_n(&s->slot[i], __ATOMIC_ACQUIRE);

		if (v && (!min || v < min))
			min = v;
	}
	return min ? (double)(min - 1) : -1;
}

uint64_t run_clock_pool_written(const struct run_clock *c, const char *pool)
{
	struct tm_shared *s = segment(c);
	char name[MF_NAME];
	uint64_t bytes = 0;
	int n;

	if (!s)
		return 0;
	snprintf(name, sizeof(name), "media:pool:%s", pool);
	n = __atomic_load_n(&s->nres, __ATOMIC_ACQUIRE);
	for (int i = 0; i < n && i < TM_MAX_RES; i++)
		if (!strcmp(s->res[i].name, name)) {
			struct mf_counters sum;

			/* every requester's bytes: each counts its own (model_fabric.h) */
			mf_res_counters(&s->res[i], -1, &sum);
			bytes += sum.bytes[MF_WRITE];
		}
	return bytes;
}
