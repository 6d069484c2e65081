// SPDX-License-Identifier: MIT
/*
 * The protection store (guest/protect/store.c) over memory that fails the
 * ways pool memory does: contents overwritten (a killed pool node), a
 * mapping that faults (SIGBUS: a file truncated under it, as a removed
 * devdax device does), poisoned ranges, single corrupted chunks.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "guard.h"
#include "protect.h"
#include "tap.h"

#define CHUNK 4096
#define EXT_BYTES (2u << 20)
#define MAXD 8

struct dom {
	int fd;
	uint8_t *base;
};

static struct dom doms[MAXD];
static int nfail;
static struct prot_failure last;
static int copy_threads;	/* what make() gives its stores */

static void on_failure(void *ctx, const struct prot_failure *f)
{
	(void)ctx;
	nfail++;
	last = *f;
}

static void content(uint64_t block, uint32_t ver, uint8_t *p)
{
	uint64_t x = (block + 1) * 0x9E3779B97F4A7C15ull ^ ((uint64_t)ver << 32 | 0x5bd1e995);

	for (size_t i = 0; i < CHUNK; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p + i, &x, 8);
	}
}

/* A store of @nd domains (one 2 MiB extent each, backed by a memfd). */
static struct prot_store *make(const char *scheme, int nd, uint64_t blocks)
{
	struct prot_config c = { .chunk = CHUNK, .blocks = blocks, .on_failure = on_failure,
				 .copy_threads = copy_threads };
	struct prot_store *s;

	if (prot_scheme_parse(scheme, &c.scheme))
		return NULL;
	s = prot_new(&c);
	for (int d = 0; d < nd; d++) {
		char name[16];

		if (doms[d].base)
			munmap(doms[d].base, EXT_BYTES);
		if (doms[d].fd > 0)
			close(doms[d].fd);
		doms[d].fd = memfd_create("ext", 0);
		if (ftruncate(doms[d].fd, EXT_BYTES))
			return NULL;
		doms[d].base = mmap(NULL, EXT_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED,
				    doms[d].fd, 0);
		snprintf(name, sizeof(name), "p%d", d);
		prot_add_capacity(s, name, 0x1000 + (uint64_t)d, doms[d].base, EXT_BYTES,
				  0x100000000ull + (uint64_t)d * EXT_BYTES);
	}
	nfail = 0;
	return s;
}

/* Write every block (version 0) whole-stripe or block by block. */
static int populate(struct prot_store *s, const struct prot_scheme *sc, uint64_t blocks)
{
	uint8_t *b = malloc((size_t)CHUNK * sc->k);
	const void *bufs[32];
	int bad = 0;

	for (uint64_t st = 0; st * sc->k < blocks; st++) {
		for (int j = 0; j < sc->k; j++) {
			content(st * sc->k + j, 0, b + (size_t)j * CHUNK);
			bufs[j] = b + (size_t)j * CHUNK;
		}
		bad += prot_write_stripe(s, st, bufs) != 0;
	}
	free(b);
	return bad;
}

/* Read every block: how many came back wrong (must be 0), lost, recovered. */
static void read_all(struct prot_store *s, uint64_t blocks, const uint32_t *ver,
		     int *wrong, int *lost, int *recovered)
{
	uint8_t got[CHUNK], want[CHUNK];

	*wrong = *lost = *recovered = 0;
	for (uint64_t b = 0; b < blocks; b++) {
		int rc = prot_read(s, b, got);

		if (rc == PROT_LOST) {
			(*lost)++;
			continue;
		}
		*recovered += rc == PROT_RECOVERED;
		content(b, ver ? ver[b] : 0, want);
		*wrong += memcmp(got, want, CHUNK) != 0;
	}
}

/* A pool node dies: its bytes are overwritten with noise. */
static void kill_contents(int d)
{
	for (size_t i = 0; i < EXT_BYTES; i++)
		doms[d].base[i] = (uint8_t)(i * 131 + 7);
}

/* Its mapping goes away: accesses fault with SIGBUS. */
static void kill_mapping(int d)
{
	if (ftruncate(doms[d].fd, 0))
		abort();
}

/*
 * Writes and reads that race a repair: the repair copies without the
 * store's lock, so a block written meanwhile must win, never the older
 * copy the repair had read.
 */
struct racer {
	struct prot_store *s;
	uint64_t blocks;
	uint32_t *ver;
	atomic_int stop, started;
	int wrong, writes, read_wrong;
	atomic_int reads;
	atomic_ullong repaired;
};

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void *race_writes(void *arg)
{
	struct racer *r = arg;
	uint8_t got[CHUNK], want[CHUNK];
	uint64_t x = 12345;

	while (!atomic_load(&r->stop) || r->writes < 2000) {
		uint64_t b = xorshift(&x) % r->blocks;

		if (x & 1) {
			content(b, r->ver[b] + 1, want);
			if (prot_write(r->s, b, want) == 0)
				__atomic_store_n(&r->ver[b], r->ver[b] + 1, __ATOMIC_RELEASE);
			r->writes++;
			atomic_fetch_add(&r->started, 1);
		} else if (prot_read(r->s, b, got) != PROT_LOST) {
			content(b, r->ver[b], want);
			r->wrong += memcmp(got, want, CHUNK) != 0;
		}
	}
	return NULL;
}

/* Reads beside the writer: a block holds the version before the read
 * began, or a later one, never anything else. */
static void *race_reads(void *arg)
{
	struct racer *r = arg;
	uint8_t got[CHUNK], want[CHUNK];
	uint64_t x = 777;

	while (!atomic_load(&r->stop) || r->reads < 2000) {
		uint64_t b = xorshift(&x) % r->blocks;
		uint32_t v0, v1;
		bool match = false;

		v0 = __atomic_load_n(&r->ver[b], __ATOMIC_ACQUIRE);
		if (prot_read(r->s, b, got) == PROT_LOST)
			continue;
		v1 = __atomic_load_n(&r->ver[b], __ATOMIC_ACQUIRE);
		for (uint32_t v = v0; v <= v1 + 1 && !match; v++) {
			content(b, v, want);
			match = !memcmp(got, want, CHUNK);
		}
		atomic_fetch_add(&r->reads, 1);
		r->read_wrong += !match;
	}
	return NULL;
}

/* A second repairer: two at once take different stripes. */
static void *race_repairs(void *arg)
{
	struct racer *r = arg;

	while (!atomic_load(&r->stop))
		atomic_fetch_add(&r->repaired, prot_repair(r->s, 2 * CHUNK));
	return NULL;
}

static void race_repair(const char *scheme, int nd, uint64_t n)
{
	struct prot_scheme sc;
	struct racer r = { .blocks = n };
	struct prot_stats st;
	pthread_t t, rt, pt;
	uint64_t rep = 0;
	int wrong, lost, rec, passes = 0;

	prot_scheme_parse(scheme, &sc);
	r.s = make(scheme, nd, n);
	r.ver = calloc(n, sizeof(*r.ver));
	populate(r.s, &sc, n);
	pthread_create(&t, NULL, race_writes, &r);
	pthread_create(&rt, NULL, race_reads, &r);
	while (atomic_load(&r.started) < 100 || atomic_load(&r.reads) < 100)
		sched_yield();
	kill_contents(1);
	prot_fail_capacity(r.s, 0x1001, PROT_CAUSE_EVENT);
	pthread_create(&pt, NULL, race_repairs, &r);
	do {
		/* a stripe or two per call, as the runtime's repair thread does */
		rep += prot_repair(r.s, 2 * CHUNK);
		prot_get_stats(r.s, &st);
		passes++;
	} while (st.stripes_degraded && passes < 100000);
	atomic_store(&r.stop, 1);
	pthread_join(pt, NULL);
	rep += atomic_load(&r.repaired);
	pthread_join(t, NULL);
	pthread_join(rt, NULL);
	read_all(r.s, n, r.ver, &wrong, &lost, &rec);
	prot_get_stats(r.s, &st);
	ok(r.wrong == 0 && r.read_wrong == 0 && wrong == 0 && lost == 0 &&
	   st.stripes_degraded == 0 && rep > 0,
	   "%s: %d writes and %d reads on other threads raced two repairs of p1 "
	   "(%llu bytes in %d passes, %llu stripes redone): none read wrong during it "
	   "(%d, %d) or after (%d), none lost, nothing degraded", scheme, r.writes, atomic_load(&r.reads),
	   (unsigned long long)rep, passes, (unsigned long long)st.repairs_retried,
	   r.wrong, r.read_wrong, wrong);
	free(r.ver);
	prot_free(r.s);
}

/*
 * The same race made certain: while a repair (or a read) has let go of
 * the lock, the block it works on is written. What it copied is then
 * stale; it must not be published, nor taken for a bad chunk.
 */
static struct prot_store *hooked;
static bool hook_armed;
static uint64_t hook_stripe;
static uint32_t hook_ver;
static int hook_calls;

static void write_in_window(void *ctx, uint64_t stripe)
{
	uint8_t b[CHUNK];

	(void)ctx;
	if (!hook_armed)
		return;
	hook_armed = false;	/* once */
	hook_stripe = stripe;
	hook_calls++;
	content(stripe, ++hook_ver, b);
	prot_write(hooked, stripe, b);
}

static void window_write(void)
{
	struct prot_config c = { .chunk = CHUNK, .blocks = 8, .on_failure = on_failure,
				 .unlocked = write_in_window };
	struct prot_stats st;
	uint8_t got[CHUNK], want[CHUNK];

	prot_scheme_parse("rep2", &c.scheme);
	hooked = prot_new(&c);
	for (int d = 0; d < 3; d++) {
		char name[8];

		memset(doms[d].base, 0, EXT_BYTES);
		snprintf(name, sizeof(name), "p%d", d);
		prot_add_capacity(hooked, name, 0x1000 + (uint64_t)d, doms[d].base, EXT_BYTES, 0);
	}
	for (uint64_t b = 0; b < 8; b++) {
		content(b, 0, want);
		prot_write(hooked, b, want);
	}
	prot_fail_capacity(hooked, 0x1001, PROT_CAUSE_EVENT);
	/* the first stripe repaired (one that had a copy on p1) is overtaken */
	hook_armed = true;
	for (int pass = 0; pass < 4; pass++)
		prot_repair(hooked, UINT64_MAX);
	prot_get_stats(hooked, &st);
	ok(hook_calls == 1 && st.chunk_errors == 0 && st.blocks_lost == 0 &&
	   st.stripes_degraded == 0 && st.bytes_stored == 2 * 8 * CHUNK,
	   "a write while a repair copies: the stale copy is not published and no "
	   "chunk is taken for bad (%d writes, %llu chunk errors, %llu bytes stored, "
	   "%llu stripes redone)", hook_calls, (unsigned long long)st.chunk_errors,
	   (unsigned long long)st.bytes_stored, (unsigned long long)st.repairs_retried);
	hook_armed = true;
	hook_ver = 0;
	memset(got, 0, sizeof(got));
	prot_read(hooked, 3, got);
	content(3, hook_ver, want);
	prot_get_stats(hooked, &st);
	ok(hook_calls == 2 && !memcmp(got, want, CHUNK) && st.chunk_errors == 0,
	   "a write while a read copies: the read returns the new block (%llu chunk errors)",
	   (unsigned long long)st.chunk_errors);
	prot_free(hooked);
}

/* A write whose chunk copy faults on a helper thread (a mapping gone):
 * the helper's guard catches it, and the chunk gets a new home. */
static void copy_threads_fault(void)
{
	struct prot_scheme sc;
	struct prot_store *s;
	struct prot_stats st;
	uint32_t ver[24] = { 0 };
	uint8_t b[CHUNK];
	int wrong, lost, rec;

	prot_scheme_parse("rep3", &sc);
	s = make("rep3", 4, 24);
	populate(s, &sc, 24);
	kill_mapping(1);
	for (uint64_t blk = 0; blk < 24; blk++) {
		content(blk, ++ver[blk], b);
		prot_write(s, blk, b);
	}
	read_all(s, 24, ver, &wrong, &lost, &rec);
	prot_get_stats(s, &st);
	ok(wrong == 0 && lost == 0 && st.faults >= 1 && st.stripes_degraded == 0 &&
	   last.cause == PROT_CAUSE_SIGBUS,
	   "rep3 with copy helpers: p1's mapping gone under 24 writes; the helpers' faults "
	   "are caught (%llu), every block reads right, each stripe whole again on p0/p2/p3",
	   (unsigned long long)st.faults);
	prot_free(s);

	/* RS: an update's parity read-modify-writes run on the helpers too */
	prot_scheme_parse("rs2+2", &sc);
	s = make("rs2+2", 5, 24);
	populate(s, &sc, 24);
	memset(ver, 0, sizeof(ver));
	kill_mapping(2);
	for (uint64_t blk = 0; blk < 24; blk++) {
		content(blk, ++ver[blk], b);
		prot_write(s, blk, b);
	}
	prot_repair(s, UINT64_MAX);
	read_all(s, 24, ver, &wrong, &lost, &rec);
	prot_get_stats(s, &st);
	ok(wrong == 0 && lost == 0 && st.faults >= 1 && st.stripes_degraded == 0,
	   "rs2+2 with copy helpers: p2's mapping gone under 24 updates (parity "
	   "read-modify-writes side by side); every block reads right, and after a "
	   "repair no stripe is degraded (faults %llu)", (unsigned long long)st.faults);
	prot_free(s);
}

/* rs4+2 with each block split across a stripe: whole stripes read right
 * intact, rebuilt with one and two domains gone, lost with three. */
static void split_reads(const struct prot_scheme *sc, uint64_t n, int threads)
{
	struct prot_store *s;
	uint8_t *b = malloc(4 * CHUNK), want[CHUNK];
	void *bufs[4];
	int bad = 0, rcs[3] = { 0, 0, 0 };

	copy_threads = threads;
	s = make("rs4+2", 6, n);
	populate(s, sc, n);
	for (int j = 0; j < 4; j++)
		bufs[j] = b + (size_t)j * CHUNK;
	for (int round = 0; round < 3; round++) {
		if (round == 1)
			kill_contents(1);
		if (round == 2)
			kill_mapping(3);
		for (uint64_t st_i = 0; st_i < n / 4; st_i++) {
			int rc = prot_read_stripe(s, st_i, bufs);

			rcs[round] |= 1 << (rc + 1);
			for (int j = 0; j < 4 && rc != PROT_LOST; j++) {
				content(st_i * 4 + (uint64_t)j, 0, want);
				bad += memcmp(bufs[j], want, CHUNK) != 0;
			}
		}
	}
	ok(bad == 0 && rcs[0] == 1 << 1 && rcs[1] & 1 << (PROT_RECOVERED + 1) &&
	   !(rcs[2] & 1), "prot_read_stripe, %d copy helper(s): whole stripes read right, "
	   "intact, then rebuilt with one and two domains gone (results %x %x %x)",
	   threads, rcs[0], rcs[1], rcs[2]);
	kill_contents(0);
	is_int(prot_read_stripe(s, 0, bufs), PROT_LOST, "a third domain gone: the "
	       "stripe's read says lost");
	is_int(prot_read_stripe(s, n, bufs), PROT_LOST, "a stripe past the end: lost");
	free(b);
	prot_free(s);
	copy_threads = 0;
}

int main(void)
{
	struct prot_scheme sc;
	struct prot_store *s;
	struct prot_stats st;
	int wrong, lost, rec;
	uint64_t n = 96, rep;

	plan(45);
	guard_install();

	/* --- rep2 over 3 domains: one killed, repaired, another killed */
	prot_scheme_parse("rep2", &sc);
	s = make("rep2", 3, n);
	is_int(populate(s, &sc, n), 0, "rep2: 96 blocks written over 3 domains");
	prot_get_stats(s, &st);
	is_int(st.bytes_stored, 2 * n * CHUNK, "rep2 stores 2 copies (%llu bytes)",
	       (unsigned long long)st.bytes_stored);
	kill_contents(1);
	read_all(s, n, NULL, &wrong, &lost, &rec);
	ok(wrong == 0 && lost == 0 && rec > 0, "p1 overwritten: every block reads right "
	   "(%d from the other copy), none lost, none wrong", rec);
	ok(nfail >= 1 && last.whole_extent && !strcmp(last.domain, "p1"),
	   "the failure is registered for p1 as a whole extent (cause %s)",
	   prot_cause_name(last.cause));
	rep = prot_repair(s, UINT64_MAX);
	prot_get_stats(s, &st);
	ok(rep > 0 && st.stripes_degraded == 0, "repair rebuilt %llu bytes onto p0/p2; "
	   "nothing degraded", (unsigned long long)rep);
	kill_contents(0);
	is_int(prot_check(s), 1, "prot_check finds p0 dead by its canary");
	read_all(s, n, NULL, &wrong, &lost, &rec);
	ok(wrong == 0 && lost == 0, "p0 too: after the repair every block has a copy "
	   "on p2, none lost (%d recovered)", rec);
	kill_contents(2);
	read_all(s, n, NULL, &wrong, &lost, &rec);
	ok(wrong == 0 && lost == (int)n, "p2 as well: all %d blocks reported lost, "
	   "none returned wrong", lost);
	prot_free(s);

	/* --- rep2: failure found through SIGBUS (the mapping vanished) */
	s = make("rep2", 3, n);
	populate(s, &sc, n);
	kill_mapping(2);
	read_all(s, n, NULL, &wrong, &lost, &rec);
	prot_get_stats(s, &st);
	ok(wrong == 0 && lost == 0 && st.faults >= 1 && last.cause == PROT_CAUSE_SIGBUS,
	   "p2's mapping faults: SIGBUS caught, reads served by the other copy "
	   "(faults %llu, cause %s)", (unsigned long long)st.faults, prot_cause_name(last.cause));
	ok(prot_repair(s, UINT64_MAX) > 0 && prot_wanted(s) == 0,
	   "repair after SIGBUS needs no new domain");
	prot_free(s);

	/* --- none: a killed node's blocks are reported lost, never returned */
	prot_scheme_parse("none", &sc);
	s = make("none", 3, n);
	populate(s, &sc, n);
	kill_contents(0);
	read_all(s, n, NULL, &wrong, &lost, &rec);
	prot_get_stats(s, &st);
	ok(wrong == 0 && lost == (int)(n / 3) && st.blocks_lost == n / 3,
	   "none: p0's %d blocks reported lost (stats %llu), none returned wrong",
	   lost, (unsigned long long)st.blocks_lost);
	{
		uint8_t b[CHUNK];
		uint32_t ver[96] = { 0 };

		content(0, 1, b);
		ver[0] = 1;
		is_int(prot_write(s, 0, b), 0, "none: rewriting a lost block places it anew");
		prot_get_stats(s, &st);
		read_all(s, n, ver, &wrong, &lost, &rec);
		ok(wrong == 0 && lost == (int)(n / 3) - 1 && st.blocks_lost == n / 3 - 1,
		   "and it reads back; lost count down by one (%d)", lost);
	}
	prot_free(s);

	/* --- rs4+2 over 6 domains: two killed, nothing lost; a third: lost */
	prot_scheme_parse("rs4+2", &sc);
	s = make("rs4+2", 6, n);
	is_int(populate(s, &sc, n), 0, "rs4+2: 96 blocks in 24 stripes over 6 domains");
	prot_get_stats(s, &st);
	is_int(st.bytes_stored, n * CHUNK * 3 / 2, "rs4+2 stores 1.5x the data");
	kill_contents(2);
	kill_mapping(4);
	read_all(s, n, NULL, &wrong, &lost, &rec);
	ok(wrong == 0 && lost == 0 && rec > 0, "two of six domains gone: every block "
	   "decodes (%d rebuilt), none lost", rec);
	prot_get_stats(s, &st);
	ok(st.domains_failed == 2 && st.stripes_degraded == n / 4,
	   "2 domains failed, all %llu stripes degraded", (unsigned long long)st.stripes_degraded);
	rep = prot_repair(s, UINT64_MAX);
	ok(rep == 0 && prot_wanted(s) == 2 * (n / 4) * CHUNK,
	   "no distinct domain left for repair: it waits and wants %llu bytes",
	   (unsigned long long)prot_wanted(s));
	{
		/* a write while degraded: read-modify-write through parity */
		uint8_t b[CHUNK];
		uint32_t ver[96] = { 0 };

		for (uint64_t blk = 0; blk < n; blk += 5) {
			content(blk, 7, b);
			ver[blk] = 7;
			if (prot_write(s, blk, b))
				diag("write %llu failed", (unsigned long long)blk);
		}
		read_all(s, n, ver, &wrong, &lost, &rec);
		ok(wrong == 0 && lost == 0, "writes while degraded (parity carries the "
		   "missing chunks): all read back right");
		/* new capacity in two new domains: repair completes */
		{
			static uint8_t extra[2][EXT_BYTES] __attribute__((aligned(4096)));

			prot_add_capacity(s, "p6", 0x2000, extra[0], EXT_BYTES, 0);
			prot_add_capacity(s, "p7", 0x2001, extra[1], EXT_BYTES, 0);
			rep = prot_repair(s, UINT64_MAX);
			prot_get_stats(s, &st);
			ok(rep == 2 * (n / 4) * CHUNK && st.stripes_degraded == 0 &&
			   prot_wanted(s) == 0, "p6, p7 added: repair rebuilds %llu bytes, "
			   "nothing degraded", (unsigned long long)rep);
		}
		kill_contents(0);
		kill_contents(1);
		read_all(s, n, ver, &wrong, &lost, &rec);
		ok(wrong == 0 && lost == 0, "after repair, two more domains killed: "
		   "still nothing lost");
		kill_contents(3);
		read_all(s, n, ver, &wrong, &lost, &rec);
		prot_get_stats(s, &st);
		ok(wrong == 0 && lost > 0 && (uint64_t)lost == st.blocks_lost,
		   "a third failure before repair: %d blocks lost, reported, none wrong", lost);
	}
	prot_free(s);

	/* --- rs4+2, a block split across a stripe: read whole stripes, in
	 * turn and on a copy helper */
	split_reads(&sc, n, 0);
	split_reads(&sc, n, 1);

	/* --- poison: a range the kernel reports, and a single bad chunk */
	prot_scheme_parse("rep2", &sc);
	s = make("rep2", 3, n);
	populate(s, &sc, n);
	is_int(prot_poison_hpa(s, 0x100000000ull + PROT_HEADER + 3 * CHUNK, 2 * CHUNK,
			       PROT_CAUSE_POISON), 0,
	       "poison by host physical address lands in p0");
	ok(nfail == 1 && !last.whole_extent && last.chunks == 2 &&
	   last.cause == PROT_CAUSE_POISON, "two chunks lost to poison, the extent kept "
	   "(%llu chunks)", (unsigned long long)last.chunks);
	rep = prot_repair(s, UINT64_MAX);
	is_int(rep, 2 * CHUNK, "repair rebuilds the two poisoned chunks");
	doms[2].base[PROT_HEADER + 10 * CHUNK + 99] ^= 0x40;	/* one bit flips */
	read_all(s, n, NULL, &wrong, &lost, &rec);
	prot_get_stats(s, &st);
	ok(wrong == 0 && lost == 0 && st.chunk_errors == 1 && !last.whole_extent &&
	   last.cause == PROT_CAUSE_CHECKSUM, "a flipped bit: checksum catches it, the "
	   "block comes from its copy, the extent stays (%d recovered)", rec);
	ok(prot_repair(s, UINT64_MAX) == CHUNK, "and repair rewrites that one chunk");
	prot_free(s);

	/* --- placement: distinct domains; not enough of them refuses */
	prot_scheme_parse("rs4+2", &sc);
	s = make("rs4+2", 5, 8);
	{
		uint8_t b[CHUNK];

		content(0, 0, b);
		is_int(prot_write(s, 0, b), -1, "rs4+2 over 5 domains: a stripe cannot be "
		       "placed (needs 6 distinct)");
	}
	prot_free(s);
	ok(prot_scheme_parse("rs4+2", &sc) == 0 && sc.k == 4 && sc.m == 2 &&
	   prot_scheme_parse("rep3", &sc) == 0 && sc.k == 1 && sc.m == 2 &&
	   prot_scheme_parse("none", &sc) == 0 && sc.m == 0 &&
	   prot_scheme_parse("rs4+", &sc) == -1 && prot_scheme_parse("rep0", &sc) == -1 &&
	   prot_scheme_parse("rs4+2x", &sc) == -1, "scheme names parse; bad ones do not");
	{
		char buf[16];

		prot_scheme_parse("rs10+4", &sc);
		is_str(prot_scheme_name(&sc, buf, sizeof(buf)), "rs10+4", "scheme name round trip");
	}
	/* --- an AO report queued by the signal handler is taken by prot_check */
	prot_scheme_parse("rep2", &sc);
	s = make("rep2", 3, n);
	populate(s, &sc, n);
	{
		siginfo_t si;

		memset(&si, 0, sizeof(si));
		si.si_signo = SIGBUS;
		si.si_code = BUS_MCEERR_AO;
		si.si_addr = doms[1].base + PROT_HEADER;
		si.si_addr_lsb = 13;
		/* deliver it as the kernel would, to ourselves */
		if (syscall(SYS_rt_sigqueueinfo, getpid(), SIGBUS, &si))
			diag("rt_sigqueueinfo failed");
		nfail = 0;
		is_int(prot_check(s), 1, "a queued memory-failure report (8 KiB at p1) is "
		       "taken by prot_check");
		ok(last.chunks == 2 && last.cause == PROT_CAUSE_POISON,
		   "its two chunks are lost to poison (%llu)", (unsigned long long)last.chunks);
	}
	read_all(s, n, NULL, &wrong, &lost, &rec);
	ok(wrong == 0 && lost == 0, "and their blocks read from the other copy");
	prot_free(s);

	window_write();
	/* the same with writes' chunks copied side by side on helpers */
	copy_threads = 2;
	race_repair("rep2", 4, 600);
	race_repair("rs2+2", 5, 600);
	copy_threads_fault();
	return tap_failed != 0;
}
