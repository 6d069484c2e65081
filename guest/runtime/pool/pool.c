/* SPDX-License-Identifier: MIT */
/*
 * The pool: which node (or devdax region) is fast and far, the fast-tier
 * budget, allocations in either tier, and the helper thread that runs a
 * classification epoch every epoch_us.
 */
#include <errno.h>
#include <fcntl.h>
#include <numaif.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "pool_priv.h"
#include "sysfs.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static __thread const char *last_error = "no error";

void cp_set_error(const char *why)
{
	last_error = why;
}

const char *cxlpool_error(void)
{
	return last_error;
}

uint64_t cp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void cxlpool_opts_default(struct cxlpool_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->fast_node = -1;
	o->far_node = -1;
	o->helper_cpu = -1;
	o->copy_lanes = 1;
	o->epoch_us = 2000;
}

void cp_pin_helper(const struct cxlpool *p)
{
	cp_pin_lane(p, -1);
}

void cp_pin_lane(const struct cxlpool *p, int lane)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int cpu = p->o.helper_cpu;
	cpu_set_t set;

	if (cpu < 0)
		return;
	/* fetch lane k on helper_cpu + k while there are CPUs; the others
	 * (the write-back lane among them) on helper_cpu */
	if (lane > 0 && lane < p->o.copy_lanes && cpu + lane < ncpu)
		cpu += lane;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* ---- placement on nodes ---- */

static int bind_range(void *addr, size_t len, int node)
{
	unsigned long mask[16] = { 0 };

	mask[node / (8 * sizeof(long))] = 1ul << (node % (8 * sizeof(long)));
	return (int)mbind(addr, len, MPOL_BIND, mask, sizeof(mask) * 8, 0);
}

/* Anonymous memory: @fast_len bytes from the start on @fast, the rest on
 * @far, every page faulted in (zeroed by the kernel) before it returns. */
static void *map_split(size_t len, size_t fast_len, int fast, int far)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if ((fast_len && bind_range(p, fast_len, fast)) ||
	    (len > fast_len && bind_range(p + fast_len, len - fast_len, far)) ||
	    madvise(p, len, MADV_POPULATE_WRITE)) {
		/* An old kernel without populate: one write a page. */
		if (errno != EINVAL) {
			munmap(p, len);
			return NULL;
		}
		for (size_t off = 0; off < len; off += CP_PAGE)
			((volatile char *)p)[off] = 0;
	}
	return p;
}

static size_t page_round(size_t n)
{
	return (n + CP_PAGE - 1) / CP_PAGE * CP_PAGE;
}

static void managed_free(struct cp_managed *m)
{
	rt_class_fini(&m->cls);
	pthread_mutex_destroy(&m->lock);
	free(m->pro);
	free(m->dem);
	free(m->addrs);
	free(m->nodes);
	free(m->status);
	free(m);
}

static struct cp_managed *managed_new(char *base, size_t npages, size_t fast_pages)
{
	struct cp_managed *m = calloc(1, sizeof(*m));
	struct rt_class_params cp;

	if (!m)
		return NULL;
	rt_class_params_default(&cp);
	m->base = base;
	m->npages = npages;
	pthread_mutex_init(&m->lock, NULL);
	m->pro = calloc(npages, sizeof(*m->pro));
	m->dem = calloc(npages, sizeof(*m->dem));
	m->addrs = calloc(npages, sizeof(*m->addrs));
	m->nodes = calloc(npages, sizeof(*m->nodes));
	m->status = calloc(npages, sizeof(*m->status));
	if (!m->pro || !m->dem || !m->addrs || !m->nodes || !m->status ||
	    rt_class_init(&m->cls, &cp, (uint32_t)npages, (uint32_t)fast_pages)) {
		managed_free(m);
		return NULL;
	}
	for (size_t i = 0; i < fast_pages; i++)
		rt_class_set_fast(&m->cls, (uint32_t)i, true);
	return m;
}

void *cp_alloc(struct cxlpool *p, size_t n, enum cxlpool_place where)
{
	size_t len = page_round(n ? n : 1), fast_len = 0;
	struct cp_alloc *a = calloc(1, sizeof(*a));
	struct cp_managed *m = NULL;
	void *ptr = NULL;

	if (!a) {
		cp_set_error("out of memory");
		return NULL;
	}
	pthread_mutex_lock(&p->lock);
	switch (where) {
	case CXLPOOL_FAST:
		if (p->fast_used + len > p->o.fast_budget) {
			cp_set_error("fast-tier budget exhausted");
			break;
		}
		fast_len = len;
		ptr = map_split(len, len, p->fast_node, p->fast_node);
		break;
	case CXLPOOL_FAR:
		if (p->far_node >= 0) {
			ptr = map_split(len, 0, p->fast_node, p->far_node);
		} else {
			size_t off = cp_arena_alloc(&p->arena, len);

			if (off != CP_ARENA_NONE) {
				ptr = p->dax_base + off;
				memset(ptr, 0, len);
			}
		}
		if (!ptr)
			cp_set_error("far tier full");
		break;
	case CXLPOOL_MANAGED:
		if (p->far_node < 0) {
			cp_set_error("managed memory needs a far NUMA node, not devdax");
			break;
		}
		/* What is left of the budget, at most the allocation. */
		fast_len = p->o.fast_budget > p->fast_used ?
			   (p->o.fast_budget - p->fast_used) / CP_PAGE * CP_PAGE : 0;
		if (fast_len > len)
			fast_len = len;
		ptr = map_split(len, fast_len, p->fast_node, p->far_node);
		if (ptr && !(m = managed_new(ptr, len / CP_PAGE, fast_len / CP_PAGE))) {
			munmap(ptr, len);
			ptr = NULL;
		}
		if (!ptr)
			cp_set_error("cannot map managed memory");
		break;
	}
	if (ptr) {
		*a = (struct cp_alloc){ .ptr = ptr, .size = len, .place = where,
					.m = m, .fast_bytes = fast_len,
					.next = p->allocs };
		p->allocs = a;
		p->fast_used += fast_len;
		p->far_used += len - fast_len;
		if (m) {
			m->next = p->managed;
			p->managed = m;
		}
	} else {
		free(a);
	}
	pthread_mutex_unlock(&p->lock);
	return ptr;
}

void cp_free(struct cxlpool *p, void *ptr)
{
	struct cp_alloc **ap, *a;

	if (!ptr)
		return;
	pthread_mutex_lock(&p->epoch_lock);
	pthread_mutex_lock(&p->lock);
	for (ap = &p->allocs; (a = *ap) && a->ptr != ptr; ap = &a->next)
		;
	if (!a) {
		pthread_mutex_unlock(&p->lock);
		pthread_mutex_unlock(&p->epoch_lock);
		return;
	}
	*ap = a->next;
	if (a->m) {
		struct cp_managed **mp;

		for (mp = &p->managed; *mp != a->m; mp = &(*mp)->next)
			;
		*mp = a->m->next;
		/* The budget follows the pages, which may have moved. */
		a->fast_bytes = (size_t)a->m->cls.in_fast * CP_PAGE;
		managed_free(a->m);
	}
	p->fast_used -= a->fast_bytes;
	p->far_used -= a->size - a->fast_bytes;
	if (a->place == CXLPOOL_FAR && p->far_node < 0)
		cp_arena_free(&p->arena, (size_t)((char *)a->ptr - p->dax_base), a->size);
	else
		munmap(a->ptr, a->size);
	pthread_mutex_unlock(&p->lock);
	pthread_mutex_unlock(&p->epoch_lock);
	free(a);
}

void *cxlpool_alloc(struct cxlpool *p, size_t n, enum cxlpool_place where)
{
	return p ? cp_alloc(p, n, where) : NULL;
}

void cxlpool_free(struct cxlpool *p, void *ptr)
{
	if (p)
		cp_free(p, ptr);
}

/* ---- managed memory: hints and epochs ---- */

void cxlpool_hint(struct cxlpool *p, const void *addr, size_t len, float weight)
{
	const char *a = addr;

	for (struct cp_managed *m = p->managed; m; m = m->next) {
		size_t first, last;

		if (a < m->base || a >= m->base + m->npages * CP_PAGE)
			continue;
		first = (size_t)(a - m->base) / CP_PAGE;
		last = (size_t)(a + (len ? len : 1) - 1 - m->base) / CP_PAGE;
		if (last >= m->npages)
			last = m->npages - 1;
		pthread_mutex_lock(&m->lock);
		for (size_t u = first; u <= last; u++)
			rt_class_sample(&m->cls, (uint32_t)u, weight);
		pthread_mutex_unlock(&m->lock);
		return;
	}
}

/* Move @n pages of @units to @node; undo the classifier's view of those
 * that did not move. Returns the bytes moved. */
static uint64_t move_units(struct cp_managed *m, const uint32_t *units, size_t n,
			   int node, bool to_fast)
{
	uint64_t moved = 0;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		m->addrs[i] = m->base + (size_t)units[i] * CP_PAGE;
		m->nodes[i] = node;
		m->status[i] = -1;
	}
	if (move_pages(0, (unsigned long)n, m->addrs, m->nodes, m->status,
		       MPOL_MF_MOVE) < 0) {
		for (size_t i = 0; i < n; i++)
			m->status[i] = -errno;
	}
	for (size_t i = 0; i < n; i++) {
		if (m->status[i] == node)
			moved += CP_PAGE;
		else
			rt_class_set_fast(&m->cls, units[i], !to_fast);
	}
	return moved;
}

uint64_t cp_managed_epoch(struct cxlpool *p, struct cp_managed *m)
{
	size_t np, nd;
	uint64_t out, in, t0, t;

	pthread_mutex_lock(&m->lock);
	rt_class_epoch(&m->cls, m->pro, &np, m->dem, &nd, m->npages);
	pthread_mutex_unlock(&m->lock);
	/* Demotions first: they make the room the promotions take. */
	t0 = cp_now_ns();
	out = move_units(m, m->dem, nd, p->far_node, false);
	in = move_units(m, m->pro, np, p->fast_node, true);
	t = cp_now_ns() - t0;
	pthread_mutex_lock(&p->lock);
	p->demoted += out;
	p->promoted += in;
	p->move_ns += t;
	pthread_mutex_unlock(&p->lock);
	return t;
}

void cxlpool_rebalance(struct cxlpool *p)
{
	uint64_t t0 = cp_now_ns(), moving = 0;

	pthread_mutex_lock(&p->epoch_lock);
	for (struct cp_managed *m = p->managed; m; m = m->next)
		moving += cp_managed_epoch(p, m);
	for (struct cxlpool_objs *o = p->objs; o; o = cp_objs_next(o))
		moving += cp_objs_epoch(o);
	pthread_mutex_unlock(&p->epoch_lock);
	pthread_mutex_lock(&p->lock);
	p->epochs++;
	p->helper_ns += cp_now_ns() - t0 - moving;
	pthread_mutex_unlock(&p->lock);
}

/*
 * The helper's deadlines are cp_now_ns() (CLOCK_MONOTONIC) times, so its
 * condition variable must wait on that clock: on the default
 * (CLOCK_REALTIME) such a deadline lies decades in the past, every wait
 * returned at once, and the helper ran epochs back to back (12432 in a
 * 323 ms GUPS run at epoch_us 2000: 45% of a vCPU, and scores decayed
 * to nothing between hints).
 */
static void cond_init_monotonic(pthread_cond_t *c)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(c, &a);
	pthread_condattr_destroy(&a);
}

/* Bytes the epochs have moved so far: pages and objects (p->lock held). */
static uint64_t moves_so_far(const struct cxlpool *p)
{
	uint64_t n = p->promoted + p->demoted;

	for (struct cxlpool_objs *o = p->objs; o; o = cp_objs_next(o))
		n += cp_objs_moves(o);
	return n;
}

/*
 * An epoch that moves nothing doubles the period, up to this many times
 * epoch_us; one that moves something halves it. A settled placement
 * (GUPS, which has nothing to gain; an object cache whose hot set is in,
 * swapping a row now and then) then costs an epoch every 64 ms, not
 * every 2 ms: each one scans every unit, and the embedding's 16384 rows
 * took 0.37-0.5 ms an epoch, 15% of a vCPU at 2 ms.
 */
#define CP_EPOCH_STRETCH 32

static void *helper_main(void *arg)
{
	struct cxlpool *p = arg;
	unsigned stretch = 1;

	cp_pin_helper(p);
	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		struct timespec ts;
		uint64_t t = cp_now_ns() + (uint64_t)p->o.epoch_us * 1000 * stretch;

		ts.tv_sec = (time_t)(t / 1000000000ull);
		ts.tv_nsec = (long)(t % 1000000000ull);
		pthread_cond_timedwait(&p->wake, &p->lock, &ts);
		if (p->stop)
			break;
		/* Nothing to classify: stay asleep, cost nothing. */
		if (!p->managed && !p->objs)
			continue;
		uint64_t before = moves_so_far(p);

		pthread_mutex_unlock(&p->lock);
		cxlpool_rebalance(p);
		pthread_mutex_lock(&p->lock);
		if (moves_so_far(p) != before)
			stretch = stretch > 1 ? stretch / 2 : 1;
		else if (stretch < CP_EPOCH_STRETCH)
			stretch *= 2;
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* ---- the far tier as a devdax region ---- */

static int map_dax(struct cxlpool *p, const char *dax)
{
	char node[64];
	long long size = cp_read_llf(0, "/sys/bus/dax/devices/%s/size", dax);
	long long align = cp_read_llf(CP_PAGE, "/sys/bus/dax/devices/%s/align", dax);

	if (size <= 0) {
		cp_set_error("no such devdax device");
		return -1;
	}
	snprintf(node, sizeof(node), "/dev/%s", dax);
	if (access(node, F_OK) < 0) {
		char dev[32];
		unsigned int maj, min;

		/* no udev in the guest: make the node from sysfs */
		if (cp_readf(dev, sizeof(dev), "/sys/bus/dax/devices/%s/dev", dax) ||
		    sscanf(dev, "%u:%u", &maj, &min) != 2 ||
		    (mknod(node, S_IFCHR | 0600, makedev(maj, min)) && errno != EEXIST)) {
			cp_set_error("cannot make the devdax device node");
			return -1;
		}
	}
	p->dax_fd = open(node, O_RDWR | O_CLOEXEC);
	if (p->dax_fd < 0) {
		cp_set_error("cannot open the devdax device (kmem-bound?)");
		return -1;
	}
	p->dax_size = (size_t)size;
	p->dax_base = mmap(NULL, p->dax_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			   p->dax_fd, 0);
	if (p->dax_base == MAP_FAILED) {
		p->dax_base = NULL;
		close(p->dax_fd);
		cp_set_error("cannot map the devdax device");
		return -1;
	}
	return cp_arena_init(&p->arena, p->dax_size, (size_t)align);
}

/* ---- open / close ---- */

struct cxlpool *cxlpool_open(const struct cxlpool_opts *o)
{
	struct cxlpool_tier t[CXLPOOL_MAX_TIERS];
	struct cxlpool *p;
	int n = cxlpool_tiers(t, CXLPOOL_MAX_TIERS);

	if (n < 0) {
		cp_set_error("no NUMA sysfs");
		return NULL;
	}
	if (o && (o->copy_lanes < 0 || o->copy_lanes > 7)) {
		/* the runtime core has 8 lanes, one of them for write-back */
		cp_set_error("copy_lanes: 0 to 7");
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	cxlpool_opts_default(&p->o);
	if (o)
		p->o = *o;
	if (!p->o.epoch_us)
		p->o.epoch_us = 2000;
	p->fast_node = p->o.fast_node;
	p->far_node = p->o.far_dax ? -1 : p->o.far_node;
	p->dax_fd = -1;
	for (int i = 0; i < n; i++) {
		if (p->fast_node < 0 && t[i].kind == CXLPOOL_LOCAL)
			p->fast_node = t[i].node;
		if (!p->o.far_dax && p->far_node < 0 && t[i].kind == CXLPOOL_CXL)
			p->far_node = t[i].node;
	}
	if (p->fast_node < 0 || (!p->o.far_dax && p->far_node < 0)) {
		cp_set_error(p->fast_node < 0 ? "no local node" : "no CXL node for the far tier");
		free(p);
		return NULL;
	}
	if (p->o.far_dax && map_dax(p, p->o.far_dax)) {
		free(p);
		return NULL;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_init(&p->epoch_lock, NULL);
	cond_init_monotonic(&p->wake);
	cp_backend_init(p);
	if (pthread_create(&p->helper, NULL, helper_main, p) == 0)
		p->helper_up = true;
	return p;
}

void cxlpool_close(struct cxlpool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);
	if (p->helper_up)
		pthread_join(p->helper, NULL);
	while (p->streams)
		cxlpool_stream_close(p->streams);
	while (p->objs)
		cxlpool_objs_close(p->objs);
	while (p->allocs)
		cp_free(p, p->allocs->ptr);
	if (p->dax_base) {
		munmap(p->dax_base, p->dax_size);
		close(p->dax_fd);
		cp_arena_fini(&p->arena);
	}
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->epoch_lock);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

void cp_stats_add(struct cxlpool_stats *to, const struct cxlpool_stats *from)
{
	to->promoted += from->promoted;
	to->demoted += from->demoted;
	to->copied += from->copied;
	to->staged_in += from->staged_in;
	to->staged_out += from->staged_out;
	to->accesses += from->accesses;
	to->hits += from->hits;
	to->pf_issued += from->pf_issued;
	to->pf_timely += from->pf_timely;
	to->pf_late += from->pf_late;
	to->pf_useless += from->pf_useless;
	to->epochs += from->epochs;
	to->helper_ns += from->helper_ns;
	to->mover_ns += from->mover_ns;
	to->stall_ns += from->stall_ns;
}

void cxlpool_stats(struct cxlpool *p, struct cxlpool_stats *st)
{
	pthread_mutex_lock(&p->lock);
	*st = p->closed;
	st->fast_used = p->fast_used;
	st->far_used = p->far_used;
	st->promoted += p->promoted;
	st->demoted += p->demoted;
	st->epochs = p->epochs;
	st->helper_ns = p->helper_ns;
	st->mover_ns += p->move_ns;
	for (struct cxlpool_objs *o = p->objs; o; o = cp_objs_next(o))
		cp_objs_stats(o, st);
	for (struct cxlpool_stream *s = p->streams; s; s = cp_stream_next(s))
		cp_stream_stats(s, st);
	pthread_mutex_unlock(&p->lock);
}
