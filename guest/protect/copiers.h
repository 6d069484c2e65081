/* SPDX-License-Identifier: MIT */
/*
 * Guarded copies run side by side on helper threads (store.c's writes of
 * a stripe's chunks). A thread's copies are bound by the cache misses it
 * keeps in flight, so a write that moves n chunks one after another takes
 * n times one chunk's time; on n threads it takes about one.
 */
#ifndef CXLBED_PROTECT_COPIERS_H
#define CXLBED_PROTECT_COPIERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "guard.h"

struct copy_job {
	void *dst;
	const void *src;
	size_t len;
	bool want_crc;		/* in: also take src's CRC-32C into crc */
	bool crc_after;		/* in: take dst's CRC-32C after the copy (a read
				 * checks what it copied, not the source twice) */
	uint32_t crc;
	int failed;		/* out: the copy faulted (at f) */
	struct guard_fault f;
	/* a job of another kind: run(job) instead of the copy */
	void (*run)(struct copy_job *j);
	void *arg;
};

struct copiers;

/* @threads helpers (NULL when @threads < 1 or they cannot be started). */
struct copiers *copiers_new(int threads);
void copiers_free(struct copiers *c);

/* Run @n jobs, the caller's thread among the workers; returns when all
 * are done. With @c NULL the caller runs them in turn. One caller at a
 * time: another waits for the helpers. */
void copiers_run(struct copiers *c, struct copy_job *jobs, int n);
/* The same on the helpers if they are free now; else (another caller has
 * them, or @c is NULL) the caller runs the jobs in turn, not waiting. */
void copiers_run_if_free(struct copiers *c, struct copy_job *jobs, int n);

#endif
