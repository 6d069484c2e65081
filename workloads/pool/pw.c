/* SPDX-License-Identifier: MIT */
/*
 * The context of one workload run under one policy; see pw.h.
 *
 * Figures over time: at the end of each step the compute thread hands the
 * step's per-page access weights to a sampler thread on the helper CPU,
 * which asks the kernel where every page of the data is (move_pages with
 * no target) and weighs the pages on the fast node: the step's fast-tier
 * hit ratio. The query is kernel work; doing it on the other CPU keeps it
 * out of the compute thread's modeled time. libcxlpool counts its own
 * hits (blocks and objects served from the fast tier).
 */
#include <errno.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "cxlbed-roi.h"
#include "sysfs.h"
#include "pw.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#ifndef MPOL_WEIGHTED_INTERLEAVE
#define MPOL_WEIGHTED_INTERLEAVE 6
#endif

#define PAGE 4096u

double pw_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void pw_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

void pw_fail(struct pw *w, const char *fmt, ...)
{
	va_list ap;

	w->ok = false;
	va_start(ap, fmt);
	vsnprintf(w->verify, sizeof(w->verify), fmt, ap);
	va_end(ap);
}

void pw_verify(struct pw *w, bool ok, const char *fmt, ...)
{
	size_t n = w->ok ? 0 : strlen(w->verify);
	va_list ap;

	if (n && n + 8 < sizeof(w->verify))
		n += (size_t)snprintf(w->verify + n, sizeof(w->verify) - n, "; then ");
	va_start(ap, fmt);
	if (n < sizeof(w->verify))
		vsnprintf(w->verify + n, sizeof(w->verify) - n, fmt, ap);
	va_end(ap);
	w->ok = w->ok && ok;
}

void pw_field(struct pw *w, const char *fmt, ...)
{
	va_list ap;

	if (!w->out)
		w->out = open_memstream(&w->outbuf, &w->outlen);
	fputc(',', w->out);
	va_start(ap, fmt);
	vfprintf(w->out, fmt, ap);
	va_end(ap);
}

static unsigned long node_mask(int a, int b)
{
	return (1ul << a) | (b >= 0 ? 1ul << b : 0);
}

/* First touch: the kernel zeroes and places every page of @p now. */
static void *populate(char *p, size_t len)
{
	if (madvise(p, len, MADV_POPULATE_WRITE))
		for (size_t off = 0; off < len; off += PAGE)
			((volatile char *)p)[off] = 0;
	return p;
}

static void *map_pages(size_t len, int mode, unsigned long mask)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (mode >= 0 && mbind(p, len, mode, &mask, sizeof(mask) * 8, 0)) {
		munmap(p, len);
		return NULL;
	}
	return populate(p, len);
}

/*
 * First touch on a fast node with local_limit bytes free: pages fill it in
 * the order they are first touched (here: the order of the calls, each
 * populated at once), and the rest go to the next node of the zonelist,
 * the far one. The placement is given by mbind rather than by filling the
 * node: held at a megabyte free, a 512 MiB guest node starved the kernel's
 * own allocations (the far node is ZONE_MOVABLE) and OOM-killed children,
 * and pages coming back from the per-CPU lists let the data past the limit.
 */
static void *map_first_touch(struct pw *w, size_t len)
{
	size_t room = w->local_limit > w->first_touch_fast ?
		      (w->local_limit - w->first_touch_fast) / PAGE * PAGE : 0;
	size_t fast = len < room ? len : room;
	unsigned long fm = node_mask(w->fast_node, -1), sm = node_mask(w->far_node, -1);
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if ((fast && mbind(p, fast, MPOL_BIND, &fm, sizeof(fm) * 8, 0)) ||
	    (len > fast && mbind(p + fast, len - fast, MPOL_BIND, &sm, sizeof(sm) * 8, 0))) {
		munmap(p, len);
		return NULL;
	}
	w->first_touch_fast += fast;
	return populate(p, len);
}

/*
 * interleave-auto: pages go local:CXL by the weights the kernel derived
 * from the nodes' bandwidth until the local limit is used, the rest to
 * the CXL node, as a node filled to the limit would send them there. The
 * weights are the kernel's (its weighted interleave places the pages);
 * holding the limit by a full node instead let the per-CPU page lists
 * take the node under its watermarks, and the child was OOM-killed for a
 * kernel allocation (7.3, docs/pooling.md).
 */
static void *map_interleave_auto(struct pw *w, size_t len)
{
	long long wf = cp_read_llf(1, "/sys/kernel/mm/mempolicy/weighted_interleave/node%d",
				   w->fast_node);
	long long ws = cp_read_llf(1, "/sys/kernel/mm/mempolicy/weighted_interleave/node%d",
				   w->far_node);
	double share = wf > 0 && ws > 0 ? (double)wf / (double)(wf + ws) : 0.5;
	size_t room = w->local_limit > w->first_touch_fast ?
		      w->local_limit - w->first_touch_fast : 0;
	/* the span whose local share fills the room, in whole weight cycles */
	size_t cycle = (size_t)(wf + ws) * PAGE;
	size_t span = (size_t)((double)room / share) / cycle * cycle;
	unsigned long both = node_mask(w->fast_node, w->far_node), sm = node_mask(w->far_node, -1);
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (span > len)
		span = len;
	if ((span && mbind(p, span, MPOL_WEIGHTED_INTERLEAVE, &both, sizeof(both) * 8, 0)) ||
	    (len > span && mbind(p + span, len - span, MPOL_BIND, &sm, sizeof(sm) * 8, 0))) {
		munmap(p, len);
		return NULL;
	}
	w->first_touch_fast += (size_t)((double)span * share);
	return populate(p, len);
}

void *pw_data(struct pw *w, size_t n)
{
	size_t len = (n + PAGE - 1) / PAGE * PAGE;
	char *p;

	switch (w->policy) {
	case PW_ALL_LOCAL:
		p = map_pages(len, MPOL_BIND, node_mask(w->fast_node, -1));
		break;
	case PW_INTERLEAVE:
		p = map_pages(len, MPOL_WEIGHTED_INTERLEAVE,
			      node_mask(w->fast_node, w->far_node));
		break;
	case PW_INTERLEAVE_AUTO:
		p = map_interleave_auto(w, len);
		break;
	case PW_LIBCXLPOOL:
		p = cxlpool_alloc(pw_pool(w), len, CXLPOOL_FAR);
		break;
	case PW_FIRST_TOUCH:
		p = map_first_touch(w, len);
		break;
	case PW_TPP:
	case PW_DAMON:
	case PW_DAMON_AUTO:
		/*
		 * Placed as first-touch places them (the node is full, so the
		 * reservation alone does not hold: the per-CPU page lists gave
		 * tpp all 4.5 MiB locally), then under the default policy again,
		 * so that the kernel may promote and demote them: a page under
		 * MPOL_BIND to the CXL node is never misplaced.
		 */
		p = map_first_touch(w, len);
		if (p && mbind(p, len, MPOL_DEFAULT, NULL, 0, 0)) {
			munmap(p, len);
			p = NULL;
		}
		break;
	default:
		p = map_pages(len, -1, 0);
		break;
	}
	if (p)
		pw_track(w, p, len);
	return p;
}

void pw_track(struct pw *w, void *p, size_t n)
{
	struct pw_region *r;

	if (w->nreg == w->reg_cap) {
		int cap = w->reg_cap ? 2 * w->reg_cap : 256;
		struct pw_region *reg = realloc(w->reg, (size_t)cap * sizeof(*reg));
		int *by = realloc(w->by_addr, (size_t)cap * sizeof(*by));

		if (reg)
			w->reg = reg;
		if (by)
			w->by_addr = by;
		if (!reg || !by) {
			/* untracked data would leave the hit ratio over part of it */
			pw_fail(w, "out of memory tracking %d data regions", w->nreg + 1);
			return;
		}
		w->reg_cap = cap;
	}
	r = &w->reg[w->nreg++];
	r->base = p;
	r->len = (n + PAGE - 1) / PAGE * PAGE;
	r->use = calloc(r->len / PAGE, sizeof(*r->use));
}

void *pw_aux(struct pw *w, size_t n)
{
	return map_pages((n + PAGE - 1) / PAGE * PAGE, MPOL_BIND,
			 node_mask(w->fast_node, -1));
}

static int by_base(const void *a, const void *b, void *arg)
{
	const struct pw *w = arg;
	const char *x = w->reg[*(const int *)a].base;
	const char *y = w->reg[*(const int *)b].base;

	return x < y ? -1 : x > y;
}

/*
 * The region holding @p. A binary search over the regions in address
 * order: at one region per KV block a pass over them at every touch
 * cost the kernel policies more than their own data's reads.
 */
static struct pw_region *region_of(struct pw *w, const void *p)
{
	const char *c = p;
	int lo = 0, hi;

	if (w->nsorted != w->nreg) {
		for (int i = 0; i < w->nreg; i++)
			w->by_addr[i] = i;
		qsort_r(w->by_addr, (size_t)w->nreg, sizeof(*w->by_addr), by_base, w);
		w->nsorted = w->nreg;
	}
	hi = w->nreg;
	while (lo < hi) {	/* the first region starting above @p */
		int mid = lo + (hi - lo) / 2;

		if (w->reg[w->by_addr[mid]].base <= c)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0) {
		struct pw_region *r = &w->reg[w->by_addr[lo - 1]];

		if (c < r->base + r->len)
			return r;
	}
	return NULL;
}

void pw_touch(struct pw *w, const void *p, size_t bytes)
{
	struct pw_region *r = region_of(w, p);
	size_t first, last;

	if (!r)
		return;
	first = (size_t)((const char *)p - r->base) / PAGE;
	last = (size_t)((const char *)p + (bytes ? bytes : 1) - 1 - r->base) / PAGE;
	for (size_t k = first; k <= last && k < r->len / PAGE; k++)
		r->use[k]++;
}

/* What the local node keeps free beyond the limit: page tables, thread
 * stacks, the runtime's own metadata (docs/pooling.md). */
#define LIMIT_SLACK (256u << 10)

void pw_limit(struct pw *w)
{
	char err[200];
	long long r;

	if (!pw_policy_limited(w->policy))
		return;
	if (!pw_policy_needs_full_node(w->policy)) {
		pw_pool(w);
		return;
	}
	if (pw_limit_apply(w->fast_node, w->local_limit + LIMIT_SLACK, &r, err, sizeof(err))) {
		pw_fail(w, "local limit: %s", err);
		return;
	}
	w->reserved = (uint64_t)r;
}

struct cxlpool *pw_pool(struct pw *w)
{
	struct cxlpool_opts o;

	if (w->pool || w->policy != PW_LIBCXLPOOL)
		return w->pool;
	cxlpool_opts_default(&o);
	o.fast_node = w->fast_node;
	o.far_node = w->far_node;
	o.fast_budget = w->local_limit;
	o.helper_cpu = 1;
	o.copy_lanes = w->o.copy_lanes;
	w->pool = cxlpool_open(&o);
	return w->pool;
}

/* ---- the sampler ---- */

static struct {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool up, stop;
	int pending;		/* steps handed over, not yet sampled */
	struct pw *w;
	/* the step being handed over: weights per region, and its time */
	uint32_t **use;
	double t_ms;
	void **pages;
	int *status;
	size_t npages;
} smp;

static void sample_step(struct pw *w, uint32_t **use, double t_ms)
{
	uint64_t on_fast = 0, on_far = 0, total = 0, weighted = 0;
	size_t k = 0;

	for (int i = 0; i < w->nreg; i++)
		for (size_t pg = 0; pg < w->reg[i].len / PAGE; pg++)
			smp.pages[k++] = w->reg[i].base + pg * PAGE;
	if (move_pages(0, (unsigned long)k, smp.pages, NULL, smp.status, 0))
		return;
	k = 0;
	for (int i = 0; i < w->nreg; i++)
		for (size_t pg = 0; pg < w->reg[i].len / PAGE; pg++, k++) {
			bool fast = smp.status[k] == w->fast_node;

			if (fast)
				on_fast += PAGE;
			else if (smp.status[k] >= 0)
				on_far += PAGE;
			total += use[i][pg];
			if (fast)
				weighted += use[i][pg];
		}
	if (w->ns < PW_MAX_SAMPLES) {
		struct pw_sample *s = &w->s[w->ns++];

		s->t_ms = t_ms;
		s->hit = total ? (double)weighted / (double)total : -1;
		s->fast_bytes = on_fast;
		s->far_bytes = on_far;
	}
	w->acc_all += total;
	w->hit_all += weighted;
}

static void *sampler_main(void *arg)
{
	struct pw *w = arg;

	pw_pin(1);
	pthread_mutex_lock(&smp.lock);
	for (;;) {
		while (!smp.pending && !smp.stop)
			pthread_cond_wait(&smp.cond, &smp.lock);
		if (!smp.pending && smp.stop)
			break;
		sample_step(w, smp.use, smp.t_ms);
		for (int i = 0; i < w->nreg; i++)
			memset(smp.use[i], 0, w->reg[i].len / PAGE * sizeof(uint32_t));
		smp.pending = 0;
		pthread_cond_broadcast(&smp.cond);
	}
	pthread_mutex_unlock(&smp.lock);
	return NULL;
}

static void sampler_start(struct pw *w)
{
	memset(&smp, 0, sizeof(smp));
	pthread_mutex_init(&smp.lock, NULL);
	pthread_cond_init(&smp.cond, NULL);
	smp.w = w;
	smp.use = calloc((size_t)w->nreg + 1, sizeof(*smp.use));
	if (!smp.use) {
		pw_fail(w, "out of memory for the sampler");
		return;
	}
	for (int i = 0; i < w->nreg; i++) {
		smp.npages += w->reg[i].len / PAGE;
		smp.use[i] = calloc(w->reg[i].len / PAGE, sizeof(uint32_t));
	}
	smp.pages = calloc(smp.npages + 1, sizeof(*smp.pages));
	smp.status = calloc(smp.npages + 1, sizeof(*smp.status));
	smp.up = pthread_create(&smp.thread, NULL, sampler_main, w) == 0;
}

/* Hand the step's weights over (waiting for the previous step's sample,
 * which is long done at any realistic step length). */
static void sampler_step(struct pw *w, double t_ms)
{
	if (!smp.up)
		return;
	pthread_mutex_lock(&smp.lock);
	while (smp.pending)
		pthread_cond_wait(&smp.cond, &smp.lock);
	for (int i = 0; i < w->nreg; i++) {
		uint32_t *t = smp.use[i];

		smp.use[i] = w->reg[i].use;
		w->reg[i].use = t;
	}
	smp.t_ms = t_ms;
	smp.pending = 1;
	pthread_cond_broadcast(&smp.cond);
	pthread_mutex_unlock(&smp.lock);
}

static void sampler_stop(void)
{
	if (!smp.up)
		return;
	pthread_mutex_lock(&smp.lock);
	while (smp.pending)
		pthread_cond_wait(&smp.cond, &smp.lock);
	smp.stop = true;
	pthread_cond_broadcast(&smp.cond);
	pthread_mutex_unlock(&smp.lock);
	pthread_join(smp.thread, NULL);
	smp.up = false;
}

/* ---- the region ---- */

#define ROI_POOL 3000	/* + policy; docs/pooling.md */

/* The marker's id is an immediate: a switch over the policy. */
#define ROI_MARK(op, p) do {						\
	switch (p) {							\
	case 0: cxlbed_roi_mark(op, ROI_POOL + 0); break;		\
	case 1: cxlbed_roi_mark(op, ROI_POOL + 1); break;		\
	case 2: cxlbed_roi_mark(op, ROI_POOL + 2); break;		\
	case 3: cxlbed_roi_mark(op, ROI_POOL + 3); break;		\
	case 4: cxlbed_roi_mark(op, ROI_POOL + 4); break;		\
	case 5: cxlbed_roi_mark(op, ROI_POOL + 5); break;		\
	case 6: cxlbed_roi_mark(op, ROI_POOL + 6); break;		\
	case 7: cxlbed_roi_mark(op, ROI_POOL + 7); break;		\
	default: break;							\
	}								\
} while (0)

void pw_begin(struct pw *w)
{
	char err[200];

	/*
	 * damon's kdamonds start now, their threads allocated on the full
	 * node: the CPUs' page lists, refilled while the data was placed,
	 * had taken its zones under their min watermark (10-17 MB on them)
	 * and the kthread's allocation was OOM-killed (docs/pooling.md,
	 * "damon"). Topping the reservation up drains them and leaves the
	 * slack free again.
	 */
	if (w->policy == PW_DAMON && w->ok) {
		long long r;

		/* r < 0: less was free than at the first call, some given back */
		if (pw_limit_apply(w->fast_node, LIMIT_SLACK, &r, err, sizeof(err)))
			pw_fail(w, "local limit before damon starts: %s", err);
		else
			w->reserved = (uint64_t)((long long)w->reserved + r);
	}
	/* the page counters first: what the policy moves as it starts (damon's
	 * first demotions, before the region's clock starts) is its own */
	pw_vmstat_read(&w->vm0);
	if (pw_policy_start(w->policy, w->fast_node, err, sizeof(err)))
		pw_fail(w, "starting %s: %s", pw_policy_name(w->policy), err);
	if (w->pool)
		cxlpool_stats(w->pool, &w->st0);
	w->prev = w->st0;
	if (!w->counts_itself)
		sampler_start(w);
	w->t0 = pw_now_ms();
	ROI_MARK(CXLBED_ROI_BEGIN, w->policy);
}

void pw_step(struct pw *w)
{
	double t = pw_now_ms() - w->t0;

	if (!w->counts_itself) {
		sampler_step(w, t);
		return;
	}
	{
		struct cxlpool_stats st;
		struct pw_sample *s;
		uint64_t acc, hit;

		cxlpool_stats(w->pool, &st);
		acc = st.accesses - w->prev.accesses;
		hit = st.hits - w->prev.hits;
		w->prev = st;
		w->acc_all += acc;
		w->hit_all += hit;
		if (w->ns >= PW_MAX_SAMPLES)
			return;
		s = &w->s[w->ns++];
		s->t_ms = t;
		s->hit = acc ? (double)hit / (double)acc : -1;
		s->fast_bytes = st.fast_used;
		s->far_bytes = st.far_used;
	}
}

void pw_end(struct pw *w)
{
	ROI_MARK(CXLBED_ROI_END, w->policy);
	w->t0 = pw_now_ms() - w->t0;	/* now the region's guest time */
	pw_vmstat_read(&w->vm1);
	if (pw_policy_needs_full_node(w->policy))	/* reported for those alone */
		w->boost_factor = pw_limit_boost_factor();
	if (w->policy == PW_DAMON)
		pw_damon_gov_stop(&w->gov);
	if (w->pool)
		cxlpool_stats(w->pool, &w->st1);
	if (!w->counts_itself)
		sampler_stop();
}
