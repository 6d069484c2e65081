/* SPDX-License-Identifier: MIT */
/*
 * The run's modeled clock as the host reads it: every vCPU of every host
 * publishes its modeled time in the timing segment's slots (0: not
 * running). The fault injector takes the slowest running one, so that a
 * time it records is never later than what a guest had reached: a
 * detection latency measured from it errs long, by at most the model's
 * skew bound between vCPUs (docs/timing-model.md).
 */
#include "fault_priv.h"
#include "timing/shm_links.h"

#include <string.h>

double fault_modeled_now_ns(struct faults *f)
{
	struct tm_shared *s = f->timing && f->fm ? fm_timing_segment(f->fm) : NULL;
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

uint64_t fault_pool_written(struct faults *f, const char *pool)
{
	struct tm_shared *s = f->timing && f->fm ? fm_timing_segment(f->fm) : NULL;
	char name[MF_NAME];
	uint64_t bytes = 0;
	int n;

	if (!s)
		return 0;
	snprintf(name, sizeof(name), "media:pool:%s", pool);
	n = __atomic_load_n(&s->nres, __ATOMIC_ACQUIRE);
	for (int i = 0; i < n && i < TM_MAX_RES; i++)
		if (!strcmp(s->res[i].name, name)) {
			struct mf_counters c;

			/* every requester's bytes: each counts its own (model_fabric.h) */
			mf_res_counters(&s->res[i], -1, &c);
			bytes += c.bytes[MF_WRITE];
		}
	return bytes;
}
