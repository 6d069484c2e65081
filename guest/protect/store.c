// SPDX-License-Identifier: MIT
/*
 * The protection layer's store (protect.h): stripe map, placement across
 * failure domains, checked reads, degraded reads, repair.
 */
#include "protect.h"
#include "copiers.h"
#include "crc32c.h"
#include "gf256.h"
#include "guard.h"
#include "rs.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EXT 64
#define MAX_DOM 32
#define CANARY_WORDS 8
#define CANARY_MAGIC 0xCB5E9A7D0C4E11EDull

enum { SLOT_FREE, SLOT_USED, SLOT_BAD };

struct loc {
	int32_t ext;		/* -1: missing */
	uint32_t slot;
};

struct stripe {
	struct loc loc[RS_MAX_N];
	uint32_t crc[RS_MAX_N];
	bool written;
	uint8_t nmissing;
	/* bumped whenever the stripe's chunks, places or checksums change:
	 * a repair that copied without the lock publishes only if unchanged */
	uint32_t gen;
	bool claimed;		/* a repair is working on it */
	/* bit i: chunk i's CRC is not known (a missing parity the data moved
	 * past); its rebuild from checked chunks sets it */
	uint64_t stale;
};

struct extent {
	uint64_t tag;
	int dom;
	uint8_t *base;
	size_t len;
	uint64_t hpa;
	bool failed;
	double cost;
	uint32_t nslots, next, used;
	uint8_t *slot;		/* SLOT_* per slot */
	uint64_t canary[CANARY_WORDS];
	uint64_t reads;
};

struct domain {
	char name[PROT_NAME];
	int extents, failed;
	uint64_t chunks;	/* chunks placed there now */
};

struct prot_store {
	atomic_flag lock;
	struct prot_config c;
	struct rs_code rs;
	int n;			/* chunks per stripe */
	uint64_t nstripes;
	struct stripe *stripes;
	struct extent ext[MAX_EXT];
	int next;
	struct domain dom[MAX_DOM];
	int ndom;
	uint8_t *buf[RS_MAX_N + 1];	/* scratch chunks, + one delta */
	struct copiers *copiers;	/* NULL: writes copy in turn */
	/* each concurrent repair's own chunks, used without the lock */
	uint8_t *rbuf[PROT_MAX_REPAIRERS][RS_MAX_N];
	bool rbuf_taken[PROT_MAX_REPAIRERS];
	struct prot_stats st;
	uint64_t wanted_chunks;
	uint64_t cursor;	/* repair resumes here */
};

static void lock(struct prot_store *s)
{
	while (atomic_flag_test_and_set_explicit(&s->lock, memory_order_acquire))
		__builtin_ia32_pause();
}

static void unlock(struct prot_store *s)
{
	atomic_flag_clear_explicit(&s->lock, memory_order_release);
}

int prot_scheme_parse(const char *t, struct prot_scheme *s)
{
	int a, b;
	char tail;

	if (!strcmp(t, "none")) {
		*s = (struct prot_scheme){ PROT_SCHEME_NONE, 1, 0 };
		return 0;
	}
	if (sscanf(t, "rep%d%c", &a, &tail) == 1 && a >= 1 && a <= RS_MAX_M + 1) {
		*s = (struct prot_scheme){ a == 1 ? PROT_SCHEME_NONE : PROT_SCHEME_REPLICA, 1, a - 1 };
		return 0;
	}
	if (sscanf(t, "rs%d+%d%c", &a, &b, &tail) == 2 && a >= 1 && a <= RS_MAX_K &&
	    b >= 1 && b <= RS_MAX_M) {
		*s = (struct prot_scheme){ PROT_SCHEME_RS, a, b };
		return 0;
	}
	return -1;
}

const char *prot_scheme_name(const struct prot_scheme *s, char *buf, size_t len)
{
	if (s->kind == PROT_SCHEME_NONE)
		snprintf(buf, len, "none");
	else if (s->kind == PROT_SCHEME_REPLICA)
		snprintf(buf, len, "rep%d", s->m + 1);
	else
		snprintf(buf, len, "rs%d+%d", s->k, s->m);
	return buf;
}

const char *prot_cause_name(enum prot_cause c)
{
	static const char *const names[] = {
		[PROT_CAUSE_EVENT] = "event", [PROT_CAUSE_CANARY] = "canary",
		[PROT_CAUSE_CHECKSUM] = "checksum", [PROT_CAUSE_SIGBUS] = "sigbus",
		[PROT_CAUSE_POISON] = "poison",
	};
	return c <= PROT_CAUSE_POISON ? names[c] : "?";
}

struct prot_store *prot_new(const struct prot_config *c)
{
	struct prot_store *s;

	if (!c->chunk || c->chunk % 64 || !c->blocks)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	atomic_flag_clear(&s->lock);
	s->c = *c;
	if (rs_init(&s->rs, c->scheme.k, c->scheme.m)) {
		free(s);
		return NULL;
	}
	s->n = c->scheme.k + c->scheme.m;
	s->nstripes = (c->blocks + c->scheme.k - 1) / c->scheme.k;
	s->stripes = calloc(s->nstripes, sizeof(*s->stripes));
	for (int i = 0; i <= s->n; i++)
		s->buf[i] = aligned_alloc(64, c->chunk);
	s->copiers = copiers_new(c->copy_threads);
	if (!s->stripes || !s->buf[s->n]) {
		prot_free(s);
		return NULL;
	}
	return s;
}

void prot_free(struct prot_store *s)
{
	if (!s)
		return;
	copiers_free(s->copiers);
	for (int i = 0; i < s->next; i++)
		free(s->ext[i].slot);
	for (int i = 0; i <= RS_MAX_N; i++)
		free(s->buf[i]);
	for (int r = 0; r < PROT_MAX_REPAIRERS; r++)
		for (int i = 0; i < RS_MAX_N; i++)
			free(s->rbuf[r][i]);
	free(s->stripes);
	free(s);
}

static uint8_t *chunk_at(const struct prot_store *s, struct loc l)
{
	return s->ext[l.ext].base + PROT_HEADER + (size_t)l.slot * s->c.chunk;
}

static int domain_of(struct prot_store *s, const char *name)
{
	for (int i = 0; i < s->ndom; i++)
		if (!strcmp(s->dom[i].name, name))
			return i;
	if (s->ndom == MAX_DOM)
		return -1;
	snprintf(s->dom[s->ndom].name, PROT_NAME, "%s", name);
	return s->ndom++;
}

/* ---- failure bookkeeping --------------------------------------------- */

/*
 * What a stripe adds to the counters: degraded (chunks missing, still
 * readable) or lost blocks (more missing than the scheme survives; RS
 * loses the data chunks that are missing, a copy scheme its one block).
 */
static void account(struct prot_store *s, const struct stripe *st, int sign)
{
	uint64_t lost = 0;

	if (!st->written || !st->nmissing)
		return;
	if (st->nmissing <= s->c.scheme.m) {
		s->st.stripes_degraded += (uint64_t)(int64_t)sign;
		return;
	}
	if (s->c.scheme.kind == PROT_SCHEME_RS) {
		for (int j = 0; j < s->c.scheme.k; j++)
			lost += st->loc[j].ext < 0;
	} else {
		lost = 1;
	}
	s->st.blocks_lost += (uint64_t)((int64_t)sign * (int64_t)lost);
}

static bool stripe_lost(const struct prot_store *s, const struct stripe *st)
{
	return st->written && st->nmissing > s->c.scheme.m;
}

/* Chunk @idx of stripe @si is gone; returns blocks newly lost. */
static uint64_t lose_chunk(struct prot_store *s, uint64_t si, int idx, bool bad_slot)
{
	struct stripe *st = &s->stripes[si];
	struct loc l = st->loc[idx];
	uint64_t before = s->st.blocks_lost;

	if (l.ext < 0)
		return 0;
	st->gen++;
	account(s, st, -1);
	s->ext[l.ext].slot[l.slot] = bad_slot || s->ext[l.ext].failed ? SLOT_BAD : SLOT_FREE;
	s->ext[l.ext].used--;
	s->dom[s->ext[l.ext].dom].chunks--;
	st->loc[idx].ext = -1;
	st->nmissing++;
	s->st.bytes_stored -= s->c.chunk;
	account(s, st, +1);
	return s->st.blocks_lost - before;
}

static void report(struct prot_store *s, const struct extent *e, enum prot_cause cause,
		   bool whole, uint64_t chunks, uint64_t lost)
{
	struct prot_failure f = {
		.tag = e->tag, .cause = cause, .whole_extent = whole, .chunks = chunks,
		.bytes_at_risk = chunks * s->c.chunk, .blocks_lost = lost,
	};

	snprintf(f.domain, PROT_NAME, "%s", s->dom[e->dom].name);
	s->st.failures++;
	if (s->c.on_failure)
		s->c.on_failure(s->c.ctx, &f);
}

static void fail_extent(struct prot_store *s, int x, enum prot_cause cause)
{
	struct extent *e = &s->ext[x];
	uint64_t chunks = 0, lost = 0;

	if (e->failed)
		return;
	e->failed = true;
	s->st.capacity -= e->len;
	if (++s->dom[e->dom].failed == s->dom[e->dom].extents)
		s->st.domains_failed++;
	for (uint64_t si = 0; si < s->nstripes; si++)
		for (int i = 0; i < s->n; i++)
			if (s->stripes[si].loc[i].ext == x) {
				chunks++;
				lost += lose_chunk(s, si, i, true);
			}
	report(s, e, cause, true, chunks, lost);
}

/* Slots overlapping [va, va + len) of extent @x are bad; their chunks gone. */
static void poison_range(struct prot_store *s, int x, uintptr_t va, uint64_t len,
			 enum prot_cause cause)
{
	struct extent *e = &s->ext[x];
	uintptr_t first = (uintptr_t)e->base + PROT_HEADER;
	uint64_t chunks = 0, lost = 0;
	uint64_t lo, hi;

	if (va + len <= first || e->failed)
		return;
	lo = va > first ? (va - first) / s->c.chunk : 0;
	hi = (va + len - first + s->c.chunk - 1) / s->c.chunk;
	if (hi > e->nslots)
		hi = e->nslots;
	for (uint64_t sl = lo; sl < hi; sl++) {
		if (e->slot[sl] == SLOT_USED) {
			for (uint64_t si = 0; si < s->nstripes; si++)
				for (int i = 0; i < s->n; i++)
					if (s->stripes[si].loc[i].ext == x &&
					    s->stripes[si].loc[i].slot == sl) {
						chunks++;
						lost += lose_chunk(s, si, i, true);
					}
		}
		e->slot[sl] = SLOT_BAD;
	}
	if (chunks)
		report(s, e, cause, false, chunks, lost);
}

static int extent_of_va(const struct prot_store *s, uintptr_t va)
{
	for (int x = 0; x < s->next; x++)
		if (va >= (uintptr_t)s->ext[x].base &&
		    va < (uintptr_t)s->ext[x].base + s->ext[x].len)
			return x;
	return -1;
}

/* A guarded copy faulted at @f while touching extent @x. */
static void on_fault(struct prot_store *s, int x, const struct guard_fault *f)
{
	s->st.faults++;
	if (f->code == BUS_MCEERR_AR || f->code == BUS_MCEERR_AO) {
		uint64_t span = 1ull << (f->lsb ? f->lsb : 12);
		uintptr_t va = f->addr & ~(span - 1);
		int at = extent_of_va(s, va);

		poison_range(s, at >= 0 ? at : x, va, span, PROT_CAUSE_POISON);
	} else {
		fail_extent(s, x, PROT_CAUSE_SIGBUS);
	}
}

static bool canary_ok(struct prot_store *s, int x)
{
	struct extent *e = &s->ext[x];
	uint64_t got[CANARY_WORDS];
	struct guard_fault f;

	if (guard_copy(got, e->base, sizeof(got), &f)) {
		if (f.code == BUS_MCEERR_AR || f.code == BUS_MCEERR_AO)
			return true;	/* the header page is poisoned, not the LD gone */
		on_fault(s, x, &f);
		return false;
	}
	return !memcmp(got, e->canary, sizeof(got));
}

/* ---- capacity and placement ------------------------------------------- */

int prot_add_capacity(struct prot_store *s, const char *domain, uint64_t tag,
		      void *base, size_t len, uint64_t hpa)
{
	struct extent *e;
	struct guard_fault f;
	int d, rc = -1;

	lock(s);
	if (s->next == MAX_EXT || len < PROT_HEADER + s->c.chunk)
		goto out;
	d = domain_of(s, domain);
	if (d < 0)
		goto out;
	e = &s->ext[s->next];
	memset(e, 0, sizeof(*e));
	e->tag = tag;
	e->dom = d;
	e->base = base;
	e->len = len;
	e->hpa = hpa;
	e->cost = 1;
	e->nslots = (uint32_t)((len - PROT_HEADER) / s->c.chunk);
	e->slot = calloc(e->nslots, 1);
	if (!e->slot)
		goto out;
	e->canary[0] = CANARY_MAGIC;
	e->canary[1] = tag;
	for (int i = 2; i < CANARY_WORDS; i++)
		e->canary[i] = (tag + (uint64_t)i) * 0x9E3779B97F4A7C15ull ^
			       (uint64_t)(uintptr_t)base;
	if (guard_copy(base, e->canary, sizeof(e->canary), &f)) {
		free(e->slot);
		goto out;
	}
	s->dom[d].extents++;
	if (s->dom[d].extents == 1)
		s->st.domains++;
	else if (s->dom[d].failed == s->dom[d].extents - 1)
		s->st.domains_failed--;	/* a failed domain got new capacity */
	s->st.capacity += len;
	s->next++;
	rc = 0;
out:
	unlock(s);
	return rc;
}

bool prot_has_capacity(struct prot_store *s, uint64_t tag)
{
	bool yes = false;

	lock(s);
	for (int x = 0; x < s->next; x++)
		if (s->ext[x].tag == tag && !s->ext[x].failed)
			yes = true;
	unlock(s);
	return yes;
}

/* A free slot in domain @d (its least used healthy extent); false if none. */
static bool alloc_in(struct prot_store *s, int d, struct loc *l)
{
	int best = -1;

	for (int x = 0; x < s->next; x++) {
		const struct extent *e = &s->ext[x];

		if (e->dom != d || e->failed || e->used >= e->nslots)
			continue;
		if (best < 0 || e->cost < s->ext[best].cost ||
		    (e->cost == s->ext[best].cost && e->used < s->ext[best].used))
			best = x;
	}
	if (best < 0)
		return false;
	for (uint32_t i = 0; i < s->ext[best].nslots; i++) {
		struct extent *e = &s->ext[best];
		uint32_t sl = (e->next + i) % e->nslots;

		if (e->slot[sl] != SLOT_FREE)
			continue;
		e->slot[sl] = SLOT_USED;
		e->next = sl + 1;
		e->used++;
		s->dom[d].chunks++;
		s->st.bytes_stored += s->c.chunk;
		l->ext = best;
		l->slot = sl;
		return true;
	}
	return false;	/* only bad slots left */
}

static double domain_cost(const struct prot_store *s, int d)
{
	double c = 0;
	int n = 0;

	for (int x = 0; x < s->next; x++)
		if (s->ext[x].dom == d && !s->ext[x].failed) {
			c += s->ext[x].cost;
			n++;
		}
	return n ? c / n : 1e30;
}

/*
 * A new location for chunk @idx of stripe @si in a domain none of the
 * stripe's other chunks use: the cheapest, then the least loaded.
 */
static bool pick_home(struct prot_store *s, const struct stripe *st, int idx,
		      const bool *also_used, struct loc *out)
{
	bool used[MAX_DOM] = { false };

	for (int i = 0; i < s->n; i++)
		if (i != idx && st->loc[i].ext >= 0)
			used[s->ext[st->loc[i].ext].dom] = true;
	for (int d = 0; also_used && d < s->ndom; d++)
		used[d] |= also_used[d];
	for (;;) {
		int best = -1;
		double bc = 0;

		for (int d = 0; d < s->ndom; d++) {
			double c;

			if (used[d] || s->dom[d].failed == s->dom[d].extents)
				continue;
			c = domain_cost(s, d) * 1e9 + (double)s->dom[d].chunks;
			if (best < 0 || c < bc) {
				best = d;
				bc = c;
			}
		}
		if (best < 0)
			return false;
		if (alloc_in(s, best, out))
			return true;
		used[best] = true;	/* full: try the next */
	}
}

static bool place(struct prot_store *s, uint64_t si, int idx)
{
	struct stripe *st = &s->stripes[si];

	return pick_home(s, st, idx, NULL, &st->loc[idx]);
}

static void free_loc(struct prot_store *s, struct loc *l)
{
	if (l->ext < 0)
		return;
	s->ext[l->ext].slot[l->slot] = SLOT_FREE;
	s->ext[l->ext].used--;
	s->dom[s->ext[l->ext].dom].chunks--;
	s->st.bytes_stored -= s->c.chunk;
	l->ext = -1;
}

/* ---- checked chunk I/O ------------------------------------------------ */

/* A copy to or from chunk @idx of stripe @si faulted at @f: the fault is
 * registered (poison, or the whole extent) and the chunk is gone. */
static void chunk_faulted(struct prot_store *s, uint64_t si, int idx,
			  const struct guard_fault *f)
{
	struct stripe *st = &s->stripes[si];

	on_fault(s, st->loc[idx].ext, f);
	if (st->loc[idx].ext >= 0)
		lose_chunk(s, si, idx, true);
}

/* Chunk @idx of stripe @si read back with a wrong checksum: the whole LD,
 * or this chunk? The canary tells. */
static void chunk_corrupt(struct prot_store *s, uint64_t si, int idx)
{
	int x = s->stripes[si].loc[idx].ext;

	s->st.chunk_errors++;
	if (canary_ok(s, x)) {
		uint64_t lost = lose_chunk(s, si, idx, true);

		report(s, &s->ext[x], PROT_CAUSE_CHECKSUM, false, 1, lost);
	} else {
		fail_extent(s, x, PROT_CAUSE_CHECKSUM);
	}
}

/* Read chunk @idx of stripe @si into @out, checked; 0 or -1 (now missing). */
static int read_chunk(struct prot_store *s, uint64_t si, int idx, uint8_t *out)
{
	struct stripe *st = &s->stripes[si];
	struct loc l = st->loc[idx];
	struct guard_fault f;

	if (l.ext < 0)
		return -1;
	if (guard_copy(out, chunk_at(s, l), s->c.chunk, &f)) {
		chunk_faulted(s, si, idx, &f);
		return -1;
	}
	if (crc32c(0, out, s->c.chunk) != st->crc[idx]) {
		chunk_corrupt(s, si, idx);
		return -1;
	}
	s->ext[l.ext].reads++;
	return 0;
}

/* A missing chunk gets a new home and @in, if some domain can take it. */
static void rehome(struct prot_store *s, uint64_t si, int idx, const uint8_t *in,
		   uint32_t crc)
{
	struct stripe *st = &s->stripes[si];
	struct guard_fault f;

	st->crc[idx] = crc;	/* what it holds, or what a rebuild must give */
	if (st->loc[idx].ext >= 0 || !place(s, si, idx))
		return;
	if (guard_copy(chunk_at(s, st->loc[idx]), in, s->c.chunk, &f)) {
		int x = st->loc[idx].ext;

		free_loc(s, &st->loc[idx]);
		on_fault(s, x, &f);
		return;
	}
	account(s, st, -1);
	st->nmissing--;
	account(s, st, +1);
}

/* The copies of stripe @si in read order: cheapest first, equal costs
 * taking turns by stripe. */
static void copy_order(const struct prot_store *s, uint64_t si, int *order)
{
	const struct stripe *st = &s->stripes[si];

	for (int i = 0; i < s->n; i++)
		order[i] = (int)((i + si) % (uint64_t)s->n);
	for (int a = 1; a < s->n; a++)
		for (int b = a; b > 0; b--) {
			struct loc la = st->loc[order[b]], lb = st->loc[order[b - 1]];
			double ca = la.ext >= 0 ? s->ext[la.ext].cost : 1e30;
			double cb = lb.ext >= 0 ? s->ext[lb.ext].cost : 1e30;
			int t;

			if (ca >= cb)
				break;
			t = order[b];
			order[b] = order[b - 1];
			order[b - 1] = t;
		}
}

/*
 * Data chunk @j of stripe @si into @out: its own copy, or rebuilt from
 * the others. 0, PROT_RECOVERED, or PROT_LOST.
 */
static int get_data(struct prot_store *s, uint64_t si, int j, uint8_t *out)
{
	struct stripe *st = &s->stripes[si];
	bool present[RS_MAX_N] = { false };
	const uint8_t *src[RS_MAX_N] = { NULL };
	int good = 0, k = s->c.scheme.k;

	if (!st->written) {
		memset(out, 0, s->c.chunk);
		return 0;
	}
	if (s->c.scheme.kind != PROT_SCHEME_RS) {
		int order[RS_MAX_N];

		copy_order(s, si, order);
		for (int a = 0; a < s->n; a++)
			if (read_chunk(s, si, order[a], out) == 0)
				return a == 0 ? 0 : PROT_RECOVERED;
		return PROT_LOST;
	}
	if (read_chunk(s, si, j, out) == 0)
		return 0;
	for (int i = 0; i < s->n && good < k; i++) {
		if (i == j || read_chunk(s, si, i, s->buf[i]))
			continue;
		present[i] = true;
		src[i] = s->buf[i];
		good++;
	}
	if (good < k || rs_rebuild_one(&s->rs, j, src, present, out, s->c.chunk))
		return PROT_LOST;
	if (crc32c(0, out, s->c.chunk) != st->crc[j])
		return PROT_LOST;	/* never hand back what does not check */
	return PROT_RECOVERED;
}

/*
 * The common case without the lock held over the copy: the chunks that
 * hold data chunks @j0..@j0+@n-1 of stripe @si are copied and checked
 * unlocked, and taken only if the stripe did not change meanwhile (gen);
 * anything else (a fault, a bad checksum, a write in between, a missing
 * chunk) is left to the locked path, which reads again and handles it.
 * Returns with the lock held; got[a]: @buf[a] has data chunk j0 + a.
 */
static void read_unlocked(struct prot_store *s, uint64_t si, int j0, int n,
			  uint8_t *const *buf, bool *got)
{
	struct stripe *st;
	struct copy_job job[RS_MAX_K];
	uint8_t *src[RS_MAX_K];
	uint32_t crc[RS_MAX_K], gen;
	int x[RS_MAX_K], nj = 0, at[RS_MAX_K];

	for (int a = 0; a < n; a++)
		got[a] = false;
	lock(s);
	st = &s->stripes[si];
	if (!st->written)
		return;
	for (int a = 0; a < n; a++) {
		int idx = j0 + a;

		if (s->c.scheme.kind != PROT_SCHEME_RS) {
			int order[RS_MAX_N];

			copy_order(s, si, order);
			idx = order[0];
		}
		x[a] = st->loc[idx].ext;
		src[a] = x[a] < 0 ? NULL : chunk_at(s, st->loc[idx]);
		crc[a] = st->crc[idx];
	}
	gen = st->gen;
	unlock(s);
	if (s->c.unlocked)
		s->c.unlocked(s->c.ctx, si);
	/* a whole stripe's chunks side by side on the copy helpers when no
	 * writer has them; else in turn */
	for (int a = 0; a < n; a++)
		if (src[a]) {
			job[nj] = (struct copy_job){ .dst = buf[a], .src = src[a],
						     .len = s->c.chunk, .crc_after = true };
			at[nj++] = a;
		}
	copiers_run_if_free(s->copiers, job, nj);
	for (int i = 0; i < nj; i++)
		got[at[i]] = !job[i].failed && job[i].crc == crc[at[i]];
	lock(s);
	for (int a = 0; a < n; a++) {
		if (st->gen != gen)
			got[a] = false;
		if (got[a])
			s->ext[x[a]].reads++;
	}
}

/* Data chunks j0.. of stripe @si into @buf[], under the lock held by
 * read_unlocked: those it could not take are read again, or rebuilt. */
static int read_data(struct prot_store *s, uint64_t si, int j0, int n, uint8_t *const *buf)
{
	bool got[RS_MAX_K];
	int rc = 0;

	read_unlocked(s, si, j0, n, buf, got);
	for (int a = 0; a < n; a++) {
		int r = got[a] ? 0 : get_data(s, si, j0 + a, buf[a]);

		s->st.reads++;
		if (r == PROT_RECOVERED)
			s->st.reads_recovered++;
		else if (r == PROT_LOST)
			s->st.reads_lost++;
		if (r == PROT_LOST || (r == PROT_RECOVERED && rc == 0))
			rc = r;
	}
	unlock(s);
	return rc;
}

int prot_read(struct prot_store *s, uint64_t block, void *buf)
{
	int k = s->c.scheme.k;
	uint8_t *b = buf;

	if (block >= s->c.blocks)
		return PROT_LOST;
	return read_data(s, block / k, (int)(block % k), 1, &b);
}

int prot_read_stripe(struct prot_store *s, uint64_t stripe, void *const *bufs)
{
	if (stripe >= s->nstripes)
		return PROT_LOST;
	return read_data(s, stripe, 0, s->c.scheme.k, (uint8_t *const *)bufs);
}

/* Forget a lost stripe: a full write starts it afresh. */
static void reset_stripe(struct prot_store *s, struct stripe *st)
{
	if (!st->written)
		return;
	account(s, st, -1);
	for (int i = 0; i < s->n; i++)
		free_loc(s, &st->loc[i]);
	st->written = false;
	st->nmissing = 0;
	s->st.blocks_written -= (uint64_t)s->c.scheme.k;
}

/*
 * Write chunk[i] to each placed chunk of stripe @si, side by side on the
 * copy helpers; those that fault, and those missing, get new homes. A
 * copy scheme's chunks are one block: one checksum serves them all.
 */
static void write_chunks(struct prot_store *s, uint64_t si, const uint8_t *const *chunk)
{
	struct stripe *st = &s->stripes[si];
	struct copy_job job[RS_MAX_N];
	uint32_t crc[RS_MAX_N];
	bool known[RS_MAX_N] = { false }, copies = s->c.scheme.kind != PROT_SCHEME_RS;
	int at[RS_MAX_N], nj = 0;

	if (copies) {
		crc[0] = crc32c(0, chunk[0], s->c.chunk);
		for (int i = 0; i < s->n; i++) {
			crc[i] = crc[0];
			known[i] = true;
		}
	}
	for (int i = 0; i < s->n; i++) {
		if (st->loc[i].ext < 0)
			continue;
		job[nj] = (struct copy_job){ .dst = chunk_at(s, st->loc[i]), .src = chunk[i],
					     .len = s->c.chunk, .want_crc = !copies };
		at[nj++] = i;
	}
	copiers_run(s->copiers, job, nj);
	for (int a = 0; a < nj; a++) {
		int i = at[a];

		if (!copies) {
			crc[i] = job[a].crc;
			known[i] = true;
		}
		if (!job[a].failed)
			st->crc[i] = crc[i];
	}
	/* faults after the successes: one may fail a whole extent */
	for (int a = 0; a < nj; a++)
		if (job[a].failed && st->loc[at[a]].ext >= 0)
			chunk_faulted(s, si, at[a], &job[a].f);
	for (int i = 0; i < s->n; i++)
		if (st->loc[i].ext < 0)
			rehome(s, si, i, chunk[i],
			       known[i] ? crc[i] : crc32c(0, chunk[i], s->c.chunk));
}

/* One parity of a whole-stripe write, run on a copy helper. */
struct parity_encode {
	const struct rs_code *rs;
	const uint8_t *const *data;
	uint8_t *out;
	int i;
	size_t len;
};

static void run_parity_encode(struct copy_job *j)
{
	struct parity_encode *e = j->arg;

	rs_encode_one(e->rs, e->i, e->data, e->out, e->len);
}

/* The stripe's parities into s->buf[k..n): one per helper when there are
 * helpers (each is k passes over the data, more than its write costs). */
static void encode(struct prot_store *s, const uint8_t *const *d)
{
	struct parity_encode e[RS_MAX_M];
	struct copy_job job[RS_MAX_M];
	int k = s->c.scheme.k;

	for (int i = 0; i < s->c.scheme.m; i++) {
		e[i] = (struct parity_encode){ .rs = &s->rs, .data = d, .out = s->buf[k + i],
					       .i = i, .len = s->c.chunk };
		job[i] = (struct copy_job){ .run = run_parity_encode, .arg = &e[i] };
	}
	copiers_run(s->copiers, job, s->c.scheme.m);
}

/* Place (if new) and write a whole stripe from data @d[k]. */
static int put_stripe(struct prot_store *s, uint64_t si, const uint8_t *const *d)
{
	struct stripe *st = &s->stripes[si];
	const uint8_t *chunk[RS_MAX_N];
	int k = s->c.scheme.k;

	st->gen++;
	if (stripe_lost(s, st))
		reset_stripe(s, st);
	for (int j = 0; j < k; j++)
		chunk[j] = d[j];
	if (s->c.scheme.kind == PROT_SCHEME_RS) {
		encode(s, d);
		for (int i = k; i < s->n; i++)
			chunk[i] = s->buf[i];
	} else {
		for (int i = 1; i < s->n; i++)
			chunk[i] = d[0];
	}
	if (!st->written) {
		for (int i = 0; i < s->n; i++)
			st->loc[i].ext = -1;
		for (int i = 0; i < s->n; i++)
			if (!place(s, si, i)) {
				for (int u = 0; u < i; u++)
					free_loc(s, &st->loc[u]);
				return -1;	/* not enough distinct domains */
			}
		st->written = true;
		st->nmissing = 0;
		s->st.blocks_written += (uint64_t)k;
	}
	st->stale = 0;
	write_chunks(s, si, chunk);
	return stripe_lost(s, st) ? -1 : 0;
}

int prot_write_stripe(struct prot_store *s, uint64_t stripe, const void *const *bufs)
{
	int rc;

	if (stripe >= s->nstripes)
		return -1;
	lock(s);
	rc = put_stripe(s, stripe, (const uint8_t *const *)bufs);
	s->st.writes++;
	if (rc)
		s->st.writes_failed++;
	unlock(s);
	return rc;
}

/* A parity chunk's update, run on a copy helper: read it (checked against
 * its noted checksum), add delta x coef, write it back. */
struct parity_update {
	uint8_t *src;		/* the chunk in pool memory */
	uint8_t *buf;		/* scratch */
	const uint8_t *delta;
	uint8_t coef;
	uint32_t crc_old, crc_new;
	enum { PU_OK, PU_READ_FAULT, PU_BAD_CRC, PU_WRITE_FAULT } result;
	size_t len;
};

static void run_parity_update(struct copy_job *j)
{
	struct parity_update *u = j->arg;

	if (guard_copy(u->buf, u->src, u->len, &j->f)) {
		u->result = PU_READ_FAULT;
		return;
	}
	if (crc32c(0, u->buf, u->len) != u->crc_old) {
		u->result = PU_BAD_CRC;
		return;
	}
	gf_region_mul_add(u->buf, u->delta, u->coef, u->len);
	u->crc_new = crc32c(0, u->buf, u->len);
	u->result = guard_copy(u->src, u->buf, u->len, &j->f) ? PU_WRITE_FAULT : PU_OK;
}

/*
 * One data chunk @j of a written RS stripe: read-modify-write of parity.
 * The old data is read first (the delta needs it); then each parity's
 * update and the data's own write run side by side on the copy helpers.
 * A parity that cannot be read is left stale (rebuilt from data later);
 * a data chunk that cannot be written is carried by the parity.
 */
static int rmw(struct prot_store *s, uint64_t si, int j, const uint8_t *in)
{
	struct stripe *st = &s->stripes[si];
	int k = s->c.scheme.k, nj = 0, at[RS_MAX_N];
	uint8_t *delta = s->buf[s->n];
	uint32_t crc = crc32c(0, in, s->c.chunk);
	struct parity_update pu[RS_MAX_N];
	struct copy_job job[RS_MAX_N];

	st->gen++;
	if (get_data(s, si, j, delta) == PROT_LOST)
		return -1;
	/* delta ^= in, SIMD: a byte loop here ran ~6 instructions a byte
	 * (the compiler reloads the length, which delta could alias), about
	 * four times a chunk's transfer in modeled time */
	gf_region_mul_add(delta, in, 1, s->c.chunk);
	for (int i = k; i < s->n; i++) {
		if (st->loc[i].ext < 0) {
			st->stale |= 1ull << i;
			continue;
		}
		pu[i] = (struct parity_update){ .src = chunk_at(s, st->loc[i]), .buf = s->buf[i],
			.delta = delta, .coef = s->rs.parity[i - k][j], .crc_old = st->crc[i],
			.len = s->c.chunk };
		job[nj] = (struct copy_job){ .run = run_parity_update, .arg = &pu[i] };
		at[nj++] = i;
	}
	if (st->loc[j].ext >= 0) {
		job[nj] = (struct copy_job){ .dst = chunk_at(s, st->loc[j]), .src = in,
					     .len = s->c.chunk };
		at[nj++] = j;
	}
	copiers_run(s->copiers, job, nj);
	for (int a = 0; a < nj; a++)
		if (at[a] >= k && pu[at[a]].result == PU_OK)
			st->crc[at[a]] = pu[at[a]].crc_new;
		else if (at[a] == j && !job[a].failed)
			st->crc[j] = crc;
	/* then the failures, as a locked read or write would handle them */
	for (int a = 0; a < nj; a++) {
		int i = at[a], x = st->loc[i].ext;
		bool failed = i >= k ? pu[i].result != PU_OK : job[a].failed;

		if (!failed || x < 0)
			continue;
		if (i >= k)
			st->stale |= 1ull << i;	/* rebuilt from data later */
		if (i >= k && pu[i].result == PU_BAD_CRC)
			chunk_corrupt(s, si, i);
		else
			chunk_faulted(s, si, i, &job[a].f);
	}
	if (st->loc[j].ext < 0)
		rehome(s, si, j, in, crc);	/* else parity carries it */
	return stripe_lost(s, st) ? -1 : 0;
}

int prot_write(struct prot_store *s, uint64_t block, const void *buf)
{
	int k = s->c.scheme.k, rc;
	uint64_t si = block / k;
	struct stripe *st;

	if (block >= s->c.blocks)
		return -1;
	lock(s);
	st = &s->stripes[si];
	if (s->c.scheme.kind == PROT_SCHEME_RS && st->written && !stripe_lost(s, st)) {
		rc = rmw(s, si, (int)(block % k), buf);
	} else {
		const uint8_t *d[RS_MAX_K];
		uint8_t *zero = NULL;

		if (k > 1) {
			/* a new (or lost) stripe: its other blocks read as zeros */
			zero = calloc(1, s->c.chunk);
			for (int j = 0; j < k; j++)
				d[j] = zero;
		}
		d[block % k] = buf;
		rc = (k > 1 && !zero) ? -1 : put_stripe(s, si, d);
		free(zero);
	}
	s->st.writes++;
	if (rc)
		s->st.writes_failed++;
	unlock(s);
	return rc;
}

/* ---- what callers learn, and looking for failure ---------------------- */

int prot_fail_capacity(struct prot_store *s, uint64_t tag, enum prot_cause cause)
{
	int rc = -1;

	lock(s);
	for (int x = 0; x < s->next; x++)
		if (s->ext[x].tag == tag) {
			fail_extent(s, x, cause);
			rc = 0;
		}
	unlock(s);
	return rc;
}

int prot_poison_va(struct prot_store *s, uintptr_t va, uint64_t len,
		   enum prot_cause cause)
{
	int x;

	lock(s);
	x = extent_of_va(s, va);
	if (x >= 0)
		poison_range(s, x, va, len, cause);
	unlock(s);
	return x >= 0 ? 0 : -1;
}

int prot_poison_hpa(struct prot_store *s, uint64_t hpa, uint64_t len,
		    enum prot_cause cause)
{
	int rc = -1;

	lock(s);
	for (int x = 0; x < s->next; x++) {
		const struct extent *e = &s->ext[x];

		if (e->hpa && hpa >= e->hpa && hpa < e->hpa + e->len) {
			poison_range(s, x, (uintptr_t)e->base + (hpa - e->hpa), len, cause);
			rc = 0;
		}
	}
	unlock(s);
	return rc;
}

void prot_set_cost(struct prot_store *s, uint64_t tag, double cost)
{
	lock(s);
	for (int x = 0; x < s->next; x++)
		if (s->ext[x].tag == tag)
			s->ext[x].cost = cost;
	unlock(s);
}

int prot_check(struct prot_store *s)
{
	struct guard_fault f[16];
	uint64_t before;
	int n;

	lock(s);
	before = s->st.failures;
	while ((n = guard_take_poison(f, 16)) > 0)
		for (int i = 0; i < n; i++) {
			int x = extent_of_va(s, f[i].addr);

			if (x >= 0)
				poison_range(s, x, f[i].addr, 1ull << (f[i].lsb ? f[i].lsb : 12),
					     PROT_CAUSE_POISON);
		}
	for (int x = 0; x < s->next; x++)
		if (!s->ext[x].failed && !canary_ok(s, x))
			fail_extent(s, x, PROT_CAUSE_CANARY);
	n = (int)(s->st.failures - before);
	unlock(s);
	return n;
}

/* ---- repair ----------------------------------------------------------- */

/*
 * Rebuild the missing chunks of degraded stripe @si. Called and returning
 * with the lock held, but the bytes move without it: homes are reserved
 * and the stripe's state noted under the lock, the surviving chunks are
 * read, checked and rebuilt into the repair's own buffers and written to
 * the new homes unlocked, and the result is published only if the stripe
 * did not change meanwhile (else the homes are given back and a later
 * pass tries again). So readers and writers of other stripes, and of this
 * one, are not held up for a whole chunk's copy, and several repairs run
 * at once (each claims its stripe). Bytes written, -1: no room.
 */
static int64_t repair_stripe(struct prot_store *s, uint64_t si, uint8_t *const *rbuf)
{
	struct stripe *st = &s->stripes[si];
	struct stripe snap = *st;
	bool present[RS_MAX_N] = { false }, taken[MAX_DOM] = { false };
	uint8_t *src_at[RS_MAX_N] = { NULL }, *dst_at[RS_MAX_N] = { NULL };
	struct loc home[RS_MAX_N];
	struct guard_fault rf[RS_MAX_N], wf[RS_MAX_N];
	int rerr[RS_MAX_N] = { 0 }, werr[RS_MAX_N] = { 0 };
	int missing[RS_MAX_N], nm = 0, nhome = 0, good = 0, from = -1;
	int k = s->c.scheme.k;
	int64_t written = 0;

	for (int i = 0; i < s->n; i++) {
		home[i].ext = -1;
		if (st->loc[i].ext < 0)
			missing[nm++] = i;
		else
			src_at[i] = chunk_at(s, st->loc[i]);
	}
	for (int a = 0; a < nm; a++) {
		int i = missing[a];

		if (!pick_home(s, st, i, taken, &home[i]))
			break;
		taken[s->ext[home[i].ext].dom] = true;
		dst_at[i] = chunk_at(s, home[i]);
		nhome++;
	}
	if (!nhome)
		return -1;

	unlock(s);
	if (s->c.unlocked)
		s->c.unlocked(s->c.ctx, si);
	/* the surviving chunks, checked against the noted checksums; a copy
	 * scheme needs one good copy, RS any k chunks */
	for (int i = 0; i < s->n && good < k; i++) {
		if (!src_at[i])
			continue;
		if (guard_copy(rbuf[i], src_at[i], s->c.chunk, &rf[i]))
			rerr[i] = 1;
		else if (crc32c(0, rbuf[i], s->c.chunk) != snap.crc[i])
			rerr[i] = 2;
		else {
			present[i] = true;
			good++;
			from = i;
		}
	}
	if (good >= k && s->c.scheme.kind == PROT_SCHEME_RS &&
	    rs_decode(&s->rs, (uint8_t *const *)rbuf, present, s->c.chunk))
		good = -1;
	for (int a = 0; good >= k && a < nm; a++) {
		int i = missing[a];
		/* a replica is the checked copy itself: written from it, and its
		 * checksum is the copy's (no second pass over the bytes) */
		const uint8_t *src = s->c.scheme.kind == PROT_SCHEME_RS ? rbuf[i] : rbuf[from];
		uint32_t want = s->c.scheme.kind == PROT_SCHEME_RS ?
			crc32c(0, src, s->c.chunk) : snap.crc[from];

		if (!dst_at[i])
			continue;
		if (!(snap.stale & (1ull << i)) && want != snap.crc[i]) {
			werr[i] = 2;	/* inconsistent: leave it, never spread it */
			continue;
		}
		snap.crc[i] = want;
		if (guard_copy(dst_at[i], src, s->c.chunk, &wf[i]))
			werr[i] = 1;
	}
	lock(s);

	if (st->gen != snap.gen) {
		/* written, lost or moved meanwhile: what was read may be stale */
		for (int i = 0; i < s->n; i++)
			free_loc(s, &home[i]);
		s->st.repairs_retried++;
		return 0;
	}
	/* failures seen unlocked are handled as a locked read would */
	for (int i = 0; i < s->n; i++) {
		if (!rerr[i] || st->loc[i].ext < 0)
			continue;
		if (rerr[i] == 1)
			chunk_faulted(s, si, i, &rf[i]);
		else
			chunk_corrupt(s, si, i);
	}
	if (st->gen != snap.gen || good < k || stripe_lost(s, st)) {
		for (int i = 0; i < s->n; i++)
			free_loc(s, &home[i]);
		return 0;
	}
	for (int i = 0; i < s->n; i++) {
		int x = home[i].ext;

		if (x < 0)
			continue;
		if (werr[i] || s->ext[x].failed) {
			free_loc(s, &home[i]);
			if (werr[i] == 1)
				on_fault(s, x, &wf[i]);
			continue;
		}
		if (snap.stale & (1ull << i)) {
			st->crc[i] = snap.crc[i];
			st->stale &= ~(1ull << i);
		}
		account(s, st, -1);
		st->loc[i] = home[i];
		st->nmissing--;
		account(s, st, +1);
		written += (int64_t)s->c.chunk;
	}
	st->gen++;
	return written;
}

uint64_t prot_repair(struct prot_store *s, uint64_t max_bytes)
{
	uint64_t done = 0, scanned = 0, waiting = 0, stripes = 0;
	int r;

	lock(s);
	for (r = 0; r < PROT_MAX_REPAIRERS && s->rbuf_taken[r]; r++)
		;
	if (r == PROT_MAX_REPAIRERS) {
		unlock(s);
		return 0;	/* as many repairs as it allows are running */
	}
	for (int i = 0; i < s->n; i++)
		if (!s->rbuf[r][i] && !(s->rbuf[r][i] = aligned_alloc(64, s->c.chunk))) {
			unlock(s);
			return 0;
		}
	s->rbuf_taken[r] = true;
	while (done < max_bytes && scanned < s->nstripes) {
		uint64_t si = s->cursor++ % s->nstripes;
		struct stripe *st = &s->stripes[si];
		int64_t w;

		scanned++;
		if (!st->written || !st->nmissing || st->claimed || stripe_lost(s, st))
			continue;
		st->claimed = true;
		w = repair_stripe(s, si, s->rbuf[r]);
		st->claimed = false;
		if (w < 0) {
			waiting += st->nmissing;
			stripes++;
		} else {
			done += (uint64_t)w;
		}
		/* let readers in between stripes */
		unlock(s);
		lock(s);
	}
	if (scanned == s->nstripes) {
		/* a whole pass: what is still waiting needs a new domain */
		s->wanted_chunks = waiting;
		s->st.stripes_unplaceable = stripes;
	}
	s->st.bytes_repaired += done;
	s->rbuf_taken[r] = false;
	unlock(s);
	return done;
}

uint64_t prot_wanted(struct prot_store *s)
{
	uint64_t w;

	lock(s);
	w = s->wanted_chunks * s->c.chunk;
	unlock(s);
	return w;
}

void prot_get_stats(struct prot_store *s, struct prot_stats *st)
{
	lock(s);
	*st = s->st;
	unlock(s);
}

int prot_extents(struct prot_store *s, struct prot_extent_info *out, int max)
{
	int n;

	lock(s);
	n = s->next;
	for (int x = 0; x < n && x < max; x++) {
		const struct extent *e = &s->ext[x];

		out[x] = (struct prot_extent_info){ .tag = e->tag, .failed = e->failed,
			.cost = e->cost, .chunks = e->used, .reads = e->reads };
		snprintf(out[x].domain, PROT_NAME, "%s", s->dom[e->dom].name);
	}
	unlock(s);
	return n;
}
