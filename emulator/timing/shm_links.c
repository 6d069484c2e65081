// SPDX-License-Identifier: MIT
#include "shm_links.h"
#include "spin_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static char *fmt_err(const char *what, const char *name)
{
	char *s = malloc(256);

	if (s)
		snprintf(s, 256, "%s %s: %s", what, name, strerror(errno));
	return s;
}

struct tm_shared *tm_shared_open(const char *name, char **err)
{
	size_t size = sizeof(struct tm_shared);
	struct tm_shared *s;
	int fd, expect = 0;

	if (!name || !*name) {
		s = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (s == MAP_FAILED) {
			*err = fmt_err("mmap", "(private)");
			return NULL;
		}
	} else {
		/* The run created it (empty, O_EXCL): never make one here,
		 * or a mistyped name would quietly share nothing. */
		fd = shm_open(name, O_RDWR, 0600);
		if (fd < 0) {
			*err = fmt_err("shm_open (the run creates it)", name);
			return NULL;
		}
		/* growing to the same size twice is harmless: hosts race here */
		if (ftruncate(fd, size) < 0) {
			*err = fmt_err("ftruncate", name);
			close(fd);
			return NULL;
		}
		s = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		if (s == MAP_FAILED) {
			*err = fmt_err("mmap", name);
			return NULL;
		}
	}
	/* first opener sets the header up; others wait for it */
	if (__atomic_compare_exchange_n(&s->state, &expect, 1, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		s->magic = TM_SHM_MAGIC;
		__atomic_store_n(&s->state, 2, __ATOMIC_RELEASE);
	}
	while (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != 2)
		sched_yield();
	if (s->magic != TM_SHM_MAGIC) {
		*err = strdup("shared timing segment has a foreign layout");
		munmap(s, size);
		return NULL;
	}
	return s;
}

void tm_shared_close(struct tm_shared *s)
{
	if (s)
		munmap(s, sizeof(*s));
}

static void seg_lock(struct tm_shared *s)
{
	tm_spin_lock(&s->lock);
}

static void seg_unlock(struct tm_shared *s)
{
	tm_spin_unlock(&s->lock);
}

struct mf_res *tm_shared_res(struct tm_shared *s, const char *name,
			     double read_gbps, double write_gbps,
			     double queue_ns)
{
	struct mf_res *r = NULL;

	seg_lock(s);
	for (int i = 0; i < s->nres; i++)
		if (!strncmp(s->res[i].name, name, MF_NAME - 1)) {
			r = &s->res[i];
			break;
		}
	if (!r && s->nres < TM_MAX_RES) {
		r = &s->res[s->nres];
		mf_res_init(r, name, read_gbps, write_gbps, queue_ns);
		__atomic_store_n(&s->nres, s->nres + 1, __ATOMIC_RELEASE);
	}
	seg_unlock(s);
	return r;
}

void tm_shared_sync(struct tm_shared *s, struct tm_sync *sync, uint64_t skew_ns,
		    unsigned int stale_ms)
{
	sync->slot = s->slot;
	sync->beat = s->beat;
	sync->halted = s->halted;
	sync->watchers = s->watchers;
	sync->moved = s->moved;
	sync->wake_at = s->wake_at;
	sync->spin_ns = TM_SYNC_SPIN_NS;
	sync->stale_ms = stale_ms;
	sync->nslots = &s->nslots;
	sync->skew_ns = skew_ns;
}

void tm_shared_use_slot(struct tm_shared *s, int slot)
{
	int n = __atomic_load_n(&s->nslots, __ATOMIC_ACQUIRE);

	while (n <= slot &&
	       !__atomic_compare_exchange_n(&s->nslots, &n, slot + 1, false,
					    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
}
