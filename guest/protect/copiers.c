// SPDX-License-Identifier: MIT
/*
 * Helper threads for guarded copies (copiers.h). One batch at a time: the
 * caller publishes it under the mutex and wakes the helpers; everyone
 * takes jobs by an atomic index, and the caller waits until the last one
 * is done: it spins a little (a batch is a few chunks, tens of
 * microseconds), then sleeps on a condition variable, so that a helper
 * the guest's scheduler preempted mid-copy gets the vCPU back instead of
 * watching the caller spin (helpers may outnumber the vCPUs left over).
 * One caller at a time (the caller mutex): the store's writes call it
 * under the store's lock, its unlocked reads only when it is free.
 */
#include "copiers.h"
#include "crc32c.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

struct copiers {
	pthread_mutex_t caller;		/* held by the one caller of a batch */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_cond_t done;		/* the batch's last job finished */
	pthread_t *threads;
	int nthreads;
	bool stop;
	unsigned long gen;		/* batches published */
	struct copy_job *jobs;
	int njobs;
	atomic_int next, left;
	atomic_bool sleeping;		/* the caller waits on done */
	/* helpers inside a batch they took: counted up under the mutex, so
	 * that a batch is published only when no straggler of the last one
	 * could take its jobs with the last one's pointer */
	atomic_int busy;
};

static void copiers_run_one(struct copy_job *j)
{
	if (j->run) {
		j->run(j);
		return;
	}
	if (j->want_crc)
		j->crc = crc32c(0, j->src, j->len);
	j->failed = guard_copy(j->dst, j->src, j->len, &j->f) != 0;
	if (j->crc_after && !j->failed)
		j->crc = crc32c(0, j->dst, j->len);
}

/* Take jobs of the current batch until none is left; the one who ends
 * the batch wakes a caller that went to sleep. The caller sets sleeping
 * before it looks at left (both seq_cst), so one of the two sees the other. */
static void drain(struct copiers *c, struct copy_job *jobs, int n)
{
	int i;

	while ((i = atomic_fetch_add(&c->next, 1)) < n) {
		copiers_run_one(&jobs[i]);
		if (atomic_fetch_sub(&c->left, 1) == 1 && atomic_load(&c->sleeping)) {
			pthread_mutex_lock(&c->lock);
			pthread_cond_broadcast(&c->done);
			pthread_mutex_unlock(&c->lock);
		}
	}
}

#define SPINS 2000	/* about 10-40 us of pause: a chunk's copy */

/* Until the batch is done: spin, then sleep on done (rechecked under the lock). */
static void wait_left(struct copiers *c)
{
	for (int i = 0; i < SPINS; i++) {
		if (atomic_load(&c->left) <= 0)
			return;
		__builtin_ia32_pause();
	}
	pthread_mutex_lock(&c->lock);
	atomic_store(&c->sleeping, true);
	while (atomic_load(&c->left) > 0)
		pthread_cond_wait(&c->done, &c->lock);
	atomic_store(&c->sleeping, false);
	pthread_mutex_unlock(&c->lock);
}

static void *helper(void *arg)
{
	struct copiers *c = arg;
	unsigned long seen = 0;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		struct copy_job *jobs;
		int n;

		while (!c->stop && c->gen == seen)
			pthread_cond_wait(&c->wake, &c->lock);
		if (c->stop)
			break;
		seen = c->gen;
		jobs = c->jobs;
		n = c->njobs;
		atomic_fetch_add(&c->busy, 1);
		pthread_mutex_unlock(&c->lock);
		drain(c, jobs, n);
		atomic_fetch_sub(&c->busy, 1);
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

struct copiers *copiers_new(int threads)
{
	struct copiers *c;

	if (threads < 1 || !(c = calloc(1, sizeof(*c))))
		return NULL;
	pthread_mutex_init(&c->caller, NULL);
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->wake, NULL);
	pthread_cond_init(&c->done, NULL);
	c->threads = calloc((size_t)threads, sizeof(*c->threads));
	for (int i = 0; c->threads && i < threads; i++)
		if (!pthread_create(&c->threads[i], NULL, helper, c))
			c->nthreads++;
	if (!c->nthreads) {
		copiers_free(c);
		return NULL;
	}
	return c;
}

void copiers_free(struct copiers *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_cond_broadcast(&c->wake);
	pthread_mutex_unlock(&c->lock);
	for (int i = 0; i < c->nthreads; i++)
		pthread_join(c->threads[i], NULL);
	free(c->threads);
	pthread_cond_destroy(&c->wake);
	pthread_cond_destroy(&c->done);
	pthread_mutex_destroy(&c->lock);
	pthread_mutex_destroy(&c->caller);
	free(c);
}

/* A batch, the caller mutex held. */
static void run_batch(struct copiers *c, struct copy_job *jobs, int n)
{
	pthread_mutex_lock(&c->lock);
	/* a straggler of the last batch is leaving drain(); it may have been
	 * preempted there, so give it the vCPU rather than spin */
	while (atomic_load(&c->busy) > 0) {
		pthread_mutex_unlock(&c->lock);
		sched_yield();
		pthread_mutex_lock(&c->lock);
	}
	atomic_store(&c->next, 0);
	atomic_store(&c->left, n);
	c->jobs = jobs;
	c->njobs = n;
	c->gen++;
	pthread_cond_broadcast(&c->wake);
	pthread_mutex_unlock(&c->lock);
	drain(c, jobs, n);
	wait_left(c);
}

void copiers_run(struct copiers *c, struct copy_job *jobs, int n)
{
	if (!c || n < 2) {
		for (int i = 0; i < n; i++)
			copiers_run_one(&jobs[i]);
		return;
	}
	pthread_mutex_lock(&c->caller);
	run_batch(c, jobs, n);
	pthread_mutex_unlock(&c->caller);
}

void copiers_run_if_free(struct copiers *c, struct copy_job *jobs, int n)
{
	if (!c || n < 2 || pthread_mutex_trylock(&c->caller)) {
		for (int i = 0; i < n; i++)
			copiers_run_one(&jobs[i]);
		return;
	}
	run_batch(c, jobs, n);
	pthread_mutex_unlock(&c->caller);
}
