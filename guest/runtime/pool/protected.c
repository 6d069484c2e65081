/* SPDX-License-Identifier: MIT */
/*
 * libcxlpool's protected blocks (cxlpool_prot.h): the pool LDs this host
 * holds, the kernel's word on them, the repair thread and the requests
 * for capacity to the fabric manager, around a protection store.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "cxlpool_prot.h"
#include "guard.h"
#include "pool_priv.h"

/* The agent's socket for what a runtime tells the host (guest/agent/demand.c). */
#define DEMAND_SOCK "/run/cxlbed-demand.sock"
#define MAX_LDS 32
#define REPAIR_STEP (1u << 20)	/* bytes per repair call between checks */
#define ASK_AGAIN_S 30		/* a demand the FM did not answer: ask again */
#define MAX_K 32		/* data chunks of a stripe, at most */

struct cxlpool_prot {
	struct cxlpool_prot_opts o;
	struct prot_store *store;
	struct ldreg_entry lds[MAX_LDS];
	int nlds;
	bool monitor;
	pthread_t repairer;
	bool repairing;
	atomic_int repair_stop;
	bool asked;
	double asked_at;
	char from[32];
};

static __thread char error_text[256];

static double now_s(void)
{
	return (double)cp_now_ns() * 1e-9;
}

static void note(struct cxlpool_prot *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void note(struct cxlpool_prot *p, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	if (!p->o.hooks.note)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	p->o.hooks.note(p->o.hooks.ctx, line);
}

void cxlpool_prot_opts_default(struct cxlpool_prot_opts *o)
{
	memset(o, 0, sizeof(*o));
	prot_scheme_parse("rep2", &o->scheme);
	o->block = 64u << 10;
	o->repair = true;
	o->repair_threads = 2;
	o->demand = true;
	o->lds = 2;
	o->wait_s = 60;
	o->from = "libcxlpool";
}

/* ---- capacity: the LDs the agent attached as devdax ------------------- */

const struct ldreg_entry *cxlpool_prot_ld(const struct cxlpool_prot *p, uint64_t serial)
{
	for (int i = 0; i < p->nlds; i++)
		if (p->lds[i].serial == serial)
			return &p->lds[i];
	return NULL;
}

int cxlpool_prot_nlds(const struct cxlpool_prot *p)
{
	return p->nlds;
}

/* /dev/@dax, made from sysfs numbers if devtmpfs has not. */
static void *map_dax(const struct ldreg_entry *e)
{
	char dev[64], sys[128], nums[32];
	unsigned int ma, mi;
	void *addr;
	FILE *f;
	int fd;

	snprintf(dev, sizeof(dev), "/dev/%s", e->dax);
	if (access(dev, F_OK)) {
		snprintf(sys, sizeof(sys), "/sys/bus/dax/devices/%s/dev", e->dax);
		f = fopen(sys, "re");
		if (!f || !fgets(nums, sizeof(nums), f) || sscanf(nums, "%u:%u", &ma, &mi) != 2) {
			if (f)
				fclose(f);
			return NULL;	/* gone already (a removed LD) */
		}
		fclose(f);
		mknod(dev, S_IFCHR | 0600, makedev(ma, mi));
	}
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	addr = mmap(NULL, e->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return addr == MAP_FAILED ? NULL : addr;
}

/* Take every devdax LD not yet known; returns how many were added. */
static int take_new_lds(struct cxlpool_prot *p)
{
	struct ldreg_entry e[MAX_LDS];
	int n = ldreg_list(NULL, e, MAX_LDS), added = 0;

	for (int i = 0; i < n && p->nlds < MAX_LDS; i++) {
		void *base;

		if (cxlpool_prot_ld(p, e[i].serial) || strcmp(e[i].mode, "devdax") ||
		    !e[i].dax[0] || !e[i].size)
			continue;
		base = map_dax(&e[i]);
		if (!base) {
			note(p, "%s (%s): /dev/%s cannot be mapped (%s): left out", e[i].ld,
			     e[i].pool, e[i].dax, strerror(errno));
			continue;
		}
		if (prot_add_capacity(p->store, e[i].pool, e[i].serial, base, e[i].size,
				      e[i].base))
			continue;
		p->lds[p->nlds++] = e[i];
		added++;
		if (p->o.hooks.capacity)
			p->o.hooks.capacity(p->o.hooks.ctx, &e[i]);
		note(p, "%s of pool %s (serial %llu, /dev/%s, %llu MiB) taken", e[i].ld,
		     e[i].pool, (unsigned long long)e[i].serial, e[i].dax,
		     (unsigned long long)(e[i].size >> 20));
	}
	return added;
}

void cxlpool_tell_host(const char *msg)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", DEMAND_SOCK);
	sendto(fd, msg, strlen(msg), 0, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
}

void cxlpool_announce_phase(const char *from, const char *phase)
{
	char msg[160];

	snprintf(msg, sizeof(msg), "{\"phase\": \"%s\", \"from\": \"%s\"}", phase, from);
	cxlpool_tell_host(msg);
}

/* Ask the fabric manager for an LD of a pool the data does not use yet. */
static void ask_capacity(struct cxlpool_prot *p, uint64_t bytes)
{
	char msg[512], pools[400] = "";
	size_t len = 0;

	for (int i = 0; i < p->nlds; i++) {
		bool dup = false;

		for (int j = 0; j < i; j++)
			dup |= !strcmp(p->lds[i].pool, p->lds[j].pool);
		if (!dup && len < sizeof(pools))
			len += (size_t)snprintf(pools + len, sizeof(pools) - len, "%s\"%s\"",
						len ? "," : "", p->lds[i].pool);
	}
	snprintf(msg, sizeof(msg), "{\"want\": %llu, \"from\": \"%s\", \"mode\": "
		 "\"devdax\", \"avoid\": [%s]}", (unsigned long long)bytes, p->from, pools);
	cxlpool_tell_host(msg);
	if (p->o.hooks.demand)
		p->o.hooks.demand(p->o.hooks.ctx, bytes);
}

/* ---- what the kernel said --------------------------------------------- */

void cxlpool_prot_take_events(struct cxlpool_prot *p)
{
	struct mon_event ev[16];
	int n;

	while ((n = mon_take(ev, 16)) > 0)
		for (int i = 0; i < n; i++) {
			const struct mon_event *m = &ev[i];
			bool uncorrectable = m->log >= 2 || (m->descriptor & 1);

			if (p->o.hooks.kernel_event)
				p->o.hooks.kernel_event(p->o.hooks.ctx, m);
			switch (m->kind) {
			case MON_MEMORY_MODULE:
				/* media status 3: all data lost (a dead memory node) */
				if (m->media_status == 3 || m->log == 3)
					prot_fail_capacity(p->store, m->serial, PROT_CAUSE_EVENT);
				break;
			case MON_AER_UNCORRECTABLE:
				/* the kernel drops CXL.mem of that device */
				prot_fail_capacity(p->store, m->serial, PROT_CAUSE_EVENT);
				break;
			case MON_AER_CORRECTABLE:
				/* link trouble: prefer other copies, place elsewhere */
				if (p->o.hooks.cost)
					p->o.hooks.cost(p->o.hooks.ctx, m->serial, 4.0);
				prot_set_cost(p->store, m->serial, 4.0);
				break;
			case MON_GENERAL_MEDIA:
			case MON_DRAM:
				if (uncorrectable && m->hpa != ~0ull)
					prot_poison_hpa(p->store, m->hpa & ~63ull, 64,
							PROT_CAUSE_EVENT);
				break;
			case MON_POISON:
			case MON_MEMORY_FAILURE:
				if (m->hpa != ~0ull)
					prot_poison_hpa(p->store, m->hpa, m->length ? m->length : 64,
							PROT_CAUSE_POISON);
				break;
			case MON_AER:
				break;
			}
		}
}

static void *repair_main(void *arg);

void cxlpool_prot_poll(struct cxlpool_prot *p)
{
	uint64_t want;

	/* the repair thread starts with the first poll: the program's data
	 * is in place by then, and nothing wakes beside its population */
	if (p->o.repair && p->o.scheme.m && !p->repairing && !p->repair_stop &&
	    !pthread_create(&p->repairer, NULL, repair_main, p))
		p->repairing = true;
	cxlpool_prot_take_events(p);
	prot_check(p->store);
	take_new_lds(p);
	if (!p->o.demand || !p->o.scheme.m || !(want = prot_wanted(p->store)))
		return;
	if (!p->asked || now_s() - p->asked_at > ASK_AGAIN_S) {
		ask_capacity(p, want);
		p->asked = true;
		p->asked_at = now_s();
	}
}

/* ---- the repair thread ------------------------------------------------ */

/* One repair worker: stripes until none is left to it. */
static void *repair_worker(void *arg)
{
	struct cxlpool_prot *p = arg;
	uint64_t got;

	while (!atomic_load(&p->repair_stop) && (got = prot_repair(p->store, REPAIR_STEP)))
		if (p->o.hooks.repair_bytes)
			p->o.hooks.repair_bytes(p->o.hooks.ctx, got);
	return NULL;
}

/*
 * A burst is one stretch in which o.repair_threads workers (this thread
 * and the others) copy at once: a thread's copies are bound by the misses
 * it keeps in flight, so re-protection scales with threads, as a real
 * runtime's would.
 */
static void *repair_main(void *arg)
{
	struct cxlpool_prot *p = arg;

	while (!atomic_load(&p->repair_stop)) {
		pthread_t w[PROT_MAX_REPAIRERS];
		int nw = 0;
		struct prot_stats st;

		prot_get_stats(p->store, &st);
		if (!st.stripes_degraded) {
			usleep(2000);
			continue;
		}
		/* nothing could be placed last pass: try again less often, until
		 * an LD arrives (the pass is what notices it) */
		if (st.stripes_unplaceable >= st.stripes_degraded)
			usleep(50000);
		if (p->o.hooks.repair_begin)
			p->o.hooks.repair_begin(p->o.hooks.ctx);
		for (int t = 1; t < p->o.repair_threads; t++)
			if (!pthread_create(&w[nw], NULL, repair_worker, p))
				nw++;
		repair_worker(p);
		while (nw)
			pthread_join(w[--nw], NULL);
		if (p->o.hooks.repair_end)
			p->o.hooks.repair_end(p->o.hooks.ctx);
		usleep(2000);
	}
	return NULL;
}

static void stop_repair(struct cxlpool_prot *p)
{
	if (!p->repairing)
		return;
	atomic_store(&p->repair_stop, 1);
	pthread_join(p->repairer, NULL);
	p->repairing = false;
}

void cxlpool_prot_settle(struct cxlpool_prot *p, double max_s)
{
	double until = now_s() + max_s;
	struct prot_stats st;

	if (p->repairing) {
		do {
			cxlpool_prot_poll(p);
			prot_get_stats(p->store, &st);
			if (st.stripes_degraded && !st.stripes_unplaceable)
				usleep(20000);
		} while (st.stripes_degraded && !st.stripes_unplaceable && now_s() < until);
	}
	stop_repair(p);
	cxlpool_prot_take_events(p);
	prot_check(p->store);
}

/* ---- blocks ------------------------------------------------------------ */

/* Block @b's k pieces in @buf when a block is split across a stripe. */
static void split_bufs(const struct cxlpool_prot *p, const void *buf, void **bufs)
{
	size_t piece = p->o.block / (size_t)p->o.scheme.k;

	for (int j = 0; j < p->o.scheme.k; j++)
		bufs[j] = (uint8_t *)buf + (size_t)j * piece;
}

int cxlpool_prot_read(struct cxlpool_prot *p, uint64_t b, void *buf)
{
	void *bufs[MAX_K];

	if (!p->o.split)
		return prot_read(p->store, b, buf);
	split_bufs(p, buf, bufs);
	return prot_read_stripe(p->store, b, bufs);
}

int cxlpool_prot_write(struct cxlpool_prot *p, uint64_t b, const void *buf)
{
	void *bufs[MAX_K];

	if (!p->o.split)
		return prot_write(p->store, b, buf);
	split_bufs(p, buf, bufs);
	return prot_write_stripe(p->store, b, (const void *const *)bufs);
}

int cxlpool_prot_write_k(struct cxlpool_prot *p, uint64_t b, const void *const *bufs)
{
	uint64_t k = (uint64_t)p->o.scheme.k;

	if (p->o.split || b % k) {
		errno = EINVAL;
		return -1;
	}
	return prot_write_stripe(p->store, b / k, bufs);
}

/* ---- open and close ---------------------------------------------------- */

static void on_failure(void *ctx, const struct prot_failure *f)
{
	struct cxlpool_prot *p = ctx;

	if (p->o.hooks.failure)
		p->o.hooks.failure(p->o.hooks.ctx, f, cxlpool_prot_ld(p, f->tag));
}

static struct cxlpool_prot *fail(struct cxlpool_prot *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static struct cxlpool_prot *fail(struct cxlpool_prot *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(error_text, sizeof(error_text), fmt, ap);
	va_end(ap);
	cp_set_error(error_text);
	cxlpool_prot_close(p);
	return NULL;
}

struct cxlpool_prot *cxlpool_prot_open(const struct cxlpool_prot_opts *o)
{
	struct cxlpool_prot *p = calloc(1, sizeof(*p));
	struct prot_config pc = { 0 };
	int k = o->scheme.k;
	double deadline;

	if (!p)
		return fail(NULL, "out of memory");
	p->o = *o;
	snprintf(p->from, sizeof(p->from), "%s", o->from ? o->from : "libcxlpool");
	if (k < 1 || k > MAX_K || !o->block || o->block % 64 || !o->blocks)
		return fail(p, "a block must be a multiple of 64 bytes, at least one block");
	if (o->split && o->block % (64 * (size_t)k))
		return fail(p, "split blocks must be a multiple of 64 x %d (the data chunks)", k);
	if (!o->split && o->blocks % (uint64_t)k)
		return fail(p, "the block count must be a multiple of %d (a stripe)", k);
	if (o->repair_threads < 1 || o->repair_threads > PROT_MAX_REPAIRERS)
		return fail(p, "repair threads: 1 to %d", PROT_MAX_REPAIRERS);
	/* the store's blocks are its chunks: k per block when split */
	pc.scheme = o->scheme;
	pc.chunk = o->split ? o->block / (size_t)k : o->block;
	pc.blocks = o->split ? o->blocks * (uint64_t)k : o->blocks;
	pc.on_failure = on_failure;
	pc.ctx = p;
	pc.copy_threads = o->scheme.m ? o->copy_threads : 0;
	p->store = prot_new(&pc);
	if (!p->store)
		return fail(p, "out of memory for the store's map");
	guard_install();
	p->monitor = mon_start() == 0;
	note(p, "kernel event monitor %s", p->monitor ? "up" : "not available");
	deadline = now_s() + o->wait_s;
	while (take_new_lds(p), p->nlds < o->lds && now_s() < deadline)
		usleep(100000);
	if (p->nlds < o->lds)
		return fail(p, "%d devdax LD(s) after %.0f s, %d wanted: bind them with "
			    "mode = devdax (docs/faults.md)", p->nlds, o->wait_s, o->lds);
	return p;
}

bool cxlpool_prot_monitoring(const struct cxlpool_prot *p)
{
	return p->monitor;
}

struct prot_store *cxlpool_prot_store(struct cxlpool_prot *p)
{
	return p->store;
}

void cxlpool_prot_close(struct cxlpool_prot *p)
{
	if (!p)
		return;
	stop_repair(p);
	if (p->monitor)
		mon_stop();
	prot_free(p->store);
	free(p);
}
