// SPDX-License-Identifier: MIT
/*
 * Helper threads for guarded copies (copiers.h). One batch at a time: the
 * caller publishes it under the mutex and wakes the helpers; everyone
 * takes jobs by an atomic index, and the caller waits (spinning: a batch
 * is a few chunks, tens of microseconds) until the last one is done.
 * One caller at a time (the store calls it under its lock).
 */
#include "copiers.h"
#include "crc32c.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct copiers {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t *threads;
	int nthreads;
	bool stop;
	unsigned long gen;		/* batches published */
	struct copy_job *jobs;
	int njobs;
	atomic_int next, left;
	/* helpers inside a batch they took: counted up under the mutex, so
	 * that a batch is published only when no straggler of the last one
	 * could take its jobs with the last one's pointer */
	atomic_int busy;
};

static void run_job(struct copy_job *j)
{
	if (j->want_crc)
		j->crc = crc32c(0, j->src, j->len);
	j->failed = guard_copy(j->dst, j->src, j->len, &j->f) != 0;
}

/* Take jobs of the current batch until none is left. */
static void drain(struct copiers *c, struct copy_job *jobs, int n)
{
	int i;

	while ((i = atomic_fetch_add(&c->next, 1)) < n) {
		run_job(&jobs[i]);
		atomic_fetch_sub(&c->left, 1);
	}
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
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->wake, NULL);
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
	pthread_mutex_destroy(&c->lock);
	free(c);
}

void copiers_run(struct copiers *c, struct copy_job *jobs, int n)
{
	if (!c || n < 2) {
		for (int i = 0; i < n; i++)
			run_job(&jobs[i]);
		return;
	}
	pthread_mutex_lock(&c->lock);
	while (atomic_load(&c->busy) > 0) {
		pthread_mutex_unlock(&c->lock);
		__builtin_ia32_pause();
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
	while (atomic_load(&c->left) > 0)
		__builtin_ia32_pause();
}
