// SPDX-License-Identifier: MIT
/*
 * cxlbed-protect: a workload whose data lives in pool LDs under the
 * protection layer (guest/protect), run while faults are injected
 * (docs/faults.md). It maps every devdax LD the guest holds, one failure
 * domain per pool, writes --data bytes under --scheme, then runs
 *
 *   --pattern kv      KV-cache offload: blocks appended to a ring (writes)
 *                     and random recent blocks read back
 *   --pattern sweep   layer sweep: --layer-sized layers read in order,
 *                     some rewritten whole
 *
 * A block is a chunk of a stripe (--layout chunk: k blocks share a stripe,
 * and an erasure-coded write is a read-modify-write of its stripe), or is
 * split across a whole stripe (--layout split: a block's read takes k
 * chunks of chunk/k bytes, a write encodes and writes them all, reading
 * nothing).
 *
 * for --ops operations. Every value read is compared with what was
 * written (a block's contents follow from its number and version), so a
 * corrupted value returned as good would be counted (`corrupt`, which
 * must stay 0). Failures are learnt from the kernel's trace events
 * (monitor.h), SIGBUS and poison reports (guard.h), canaries and
 * checksums (protect.h); reads then come from surviving chunks, a repair
 * thread rebuilds onto healthy capacity, asking the fabric manager for a
 * new LD (pool-demand) when no distinct domain is left. At the end every
 * block is read and checked once more.
 *
 * Modeled time: ROI markers (workloads/README.md, ids 3000-3005) around
 * the population, every epoch of --epoch operations, each repair burst
 * and the final check, and as points when a failure is registered and
 * when service resumes; the runner pairs them with the list this program
 * prints ("fault_rois"). Times in the output are the guest clock, named
 * guest_s and t_s: modeled time when the run's guest clock is modeled
 * (summary.json guest_clock), the guest's TCG wall clock otherwise.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cxlbed-roi.h"
#include "cxlpool.h"
#include "cxlpool_prot.h"
#include "protect_log.h"
#include "wl.h"

#define NAME "cxlbed-protect"

struct opts {
	struct prot_scheme scheme;
	char scheme_name[16];
	const char *pattern;
	size_t data, chunk, layer;
	double write_frac;
	uint64_t ops, epoch, check_every;
	int lds;		/* devdax LDs to wait for */
	double wait_s;
	bool repair, demand;
	bool split;		/* --layout split: a block is a whole stripe */
	int repair_threads;	/* copying at once in a repair burst */
	int copy_threads;	/* helpers writing a stripe's chunks side by side */
	uint64_t seed;
	int epochs_after;	/* keep going this many epochs after repair (or
				 * after blocks are known lost for good) */
};

static struct opts o = {
	.pattern = "kv", .data = 32u << 20, .chunk = 64u << 10, .layer = 1u << 20,
	.write_frac = 0.1, .ops = 20000, .epoch = 500, .check_every = 16,
	.lds = 2, .wait_s = 60, .repair = true, .demand = true, .seed = 1,
	.epochs_after = 2, .repair_threads = 2, .copy_threads = 0,
};

static struct cxlpool_prot *pp;	/* libcxlpool's protected blocks */
static struct plog plog;
static uint32_t *version;	/* per block: what its contents should be */
static uint64_t nblocks;

static uint64_t rng_state;
static double t_start;

/* Progress on stderr (the agent keeps its tail), guest clock. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s %.2f s: ", NAME, wl_now() - t_start);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Tell the host a phase of ours begins (faults may wait for it). */
static void announce(const char *phase)
{
	cxlpool_announce_phase(NAME, phase);
	say("phase %s", phase);
}

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Block @b's contents at version @v. */
static void content(uint64_t b, uint32_t v, uint8_t *p, size_t len)
{
	uint64_t x = (b + 1) * 0x9E3779B97F4A7C15ull ^ ((uint64_t)v << 32 | 0x2545F491);

	for (size_t i = 0; i < len; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p + i, &x, 8);
	}
}

static size_t parse_size(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (*end == 'K' || *end == 'k')
		v *= 1024;
	else if (*end == 'M' || *end == 'm')
		v *= 1024 * 1024;
	else if (*end == 'G' || *end == 'g')
		v *= 1024.0 * 1024 * 1024;
	return (size_t)v;
}

static void usage(void)
{
	fprintf(stderr, "usage: %s [--scheme none|repR|rsK+M] [--pattern kv|sweep] "
		"[--layout chunk|split] [--data SIZE] [--chunk SIZE] [--layer SIZE] [--write-frac F] [--ops N] "
		"[--epoch N] [--check-every N] [--lds N] [--wait S] [--repair on|off] "
		"[--repair-threads N] [--copy-threads N] "
		"[--demand on|off] [--seed N] [--epochs-after N]\n", NAME);
	exit(2);
}

static void parse(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--help"))
			usage();
		if (!v)
			wl_fail(NAME, "%s needs a value", a);
		i++;
		if (!strcmp(a, "--scheme")) {
			if (prot_scheme_parse(v, &o.scheme))
				wl_fail(NAME, "--scheme %s: none, repR (R copies) or rsK+M", v);
		} else if (!strcmp(a, "--pattern")) {
			if (strcmp(v, "kv") && strcmp(v, "sweep"))
				wl_fail(NAME, "--pattern %s: kv or sweep", v);
			o.pattern = v;
		} else if (!strcmp(a, "--layout")) {
			if (strcmp(v, "chunk") && strcmp(v, "split"))
				wl_fail(NAME, "--layout %s: chunk or split", v);
			o.split = !strcmp(v, "split");
		} else if (!strcmp(a, "--data")) {
			o.data = parse_size(v);
		} else if (!strcmp(a, "--chunk")) {
			o.chunk = parse_size(v);
		} else if (!strcmp(a, "--layer")) {
			o.layer = parse_size(v);
		} else if (!strcmp(a, "--write-frac")) {
			o.write_frac = strtod(v, NULL);
		} else if (!strcmp(a, "--ops")) {
			o.ops = strtoull(v, NULL, 0);
		} else if (!strcmp(a, "--epoch")) {
			o.epoch = strtoull(v, NULL, 0);
		} else if (!strcmp(a, "--check-every")) {
			o.check_every = strtoull(v, NULL, 0);
		} else if (!strcmp(a, "--lds")) {
			o.lds = atoi(v);
		} else if (!strcmp(a, "--wait")) {
			o.wait_s = strtod(v, NULL);
		} else if (!strcmp(a, "--repair-threads")) {
			o.repair_threads = atoi(v);
			if (o.repair_threads < 1 || o.repair_threads > PROT_MAX_REPAIRERS)
				wl_fail(NAME, "--repair-threads %s: 1 to %d", v, PROT_MAX_REPAIRERS);
		} else if (!strcmp(a, "--copy-threads")) {
			o.copy_threads = atoi(v);
			if (o.copy_threads < 0 || o.copy_threads > 8)
				wl_fail(NAME, "--copy-threads %s: 0 to 8", v);
		} else if (!strcmp(a, "--repair")) {
			o.repair = !strcmp(v, "on");
		} else if (!strcmp(a, "--demand")) {
			o.demand = !strcmp(v, "on");
		} else if (!strcmp(a, "--seed")) {
			o.seed = strtoull(v, NULL, 0);
		} else if (!strcmp(a, "--epochs-after")) {
			o.epochs_after = atoi(v);
		} else {
			wl_fail(NAME, "unknown option %s (--help)", a);
		}
	}
	if (!o.chunk || o.chunk % 64 || o.data < o.chunk || !o.epoch || !o.check_every)
		wl_fail(NAME, "--chunk must be a multiple of 64, --data at least a chunk, "
			"--epoch and --check-every at least 1");
	if (o.split && o.chunk % (64 * (size_t)o.scheme.k))
		wl_fail(NAME, "--layout split: --chunk must be a multiple of 64 x %d "
			"(its %d data chunks)", o.scheme.k, o.scheme.k);
	if (!strcmp(o.pattern, "sweep") && !o.split &&
	    (o.layer < o.chunk || o.layer % (o.chunk * (size_t)o.scheme.k)))
		wl_fail(NAME, "--layer must be a multiple of %d chunks (the stripe)",
			o.scheme.k);
	if (!strcmp(o.pattern, "sweep") && (o.layer < o.chunk || o.layer % o.chunk))
		wl_fail(NAME, "--layer must be a multiple of --chunk");
	prot_scheme_name(&o.scheme, o.scheme_name, sizeof(o.scheme_name));
	rng_state = o.seed * 0x9E3779B97F4A7C15ull | 1;
}

/* ---- what libcxlpool tells us, into the log ---------------------------- */

static void hook_note(void *ctx, const char *line)
{
	say("%s", line);
}

static void hook_capacity(void *ctx, const struct ldreg_entry *ld)
{
	plog_capacity(ctx, ld);
}

static void hook_kernel_event(void *ctx, const struct mon_event *e)
{
	plog_kernel_event(ctx, e);
}

static void hook_cost(void *ctx, uint64_t serial, double cost)
{
	plog_cost(ctx, cxlpool_prot_store(pp), serial, cost);
}

static void hook_demand(void *ctx, uint64_t bytes)
{
	plog_demand(ctx, bytes);
}

/* The store registered a failure: the point the runtime learnt of it. */
static void hook_failure(void *ctx, const struct prot_failure *f,
			 const struct ldreg_entry *ld)
{
	plog_failure(ctx, f, ld);
}

/* A repair burst is one region of modeled time. */
static void hook_repair_begin(void *ctx)
{
	plog_repair_begin(ctx);
	cxlbed_roi_begin(PLOG_ROI_REPAIR);
}

static void hook_repair_bytes(void *ctx, uint64_t bytes)
{
	plog_repair_bytes(ctx, bytes);
}

static void hook_repair_end(void *ctx)
{
	PLOG_END((struct plog *)ctx, PLOG_ROI_REPAIR, "repair");
	plog_repair_end(ctx, cxlpool_prot_store(pp));
}

/* ---- the patterns ----------------------------------------------------- */

/* Block @b under the layout: PROT_* as prot_read. */
static int block_read(uint64_t b, uint8_t *buf)
{
	return cxlpool_prot_read(pp, b, buf);
}

static int block_write(uint64_t b, uint8_t *buf)
{
	return cxlpool_prot_write(pp, b, buf);
}

/* Read block @b and check it; false when lost (never wrong: counted). */
static bool read_check(uint64_t b, uint8_t *buf, uint8_t *want)
{
	int rc = block_read(b, buf);

	if (rc == PROT_LOST) {
		plog.reads_lost++;
		return false;
	}
	content(b, version[b], want, o.chunk);
	if (memcmp(buf, want, o.chunk))
		plog.corrupt++;	/* returned as good but wrong: must never happen */
	return true;
}

static bool write_block(uint64_t b, uint8_t *buf)
{
	version[b]++;
	content(b, version[b], buf, o.chunk);
	if (block_write(b, buf)) {
		plog.writes_failed++;
		return false;
	}
	return true;
}

/* A whole layer (layer_chunks blocks from @b0), stripe by stripe. */
static bool write_layer(uint64_t b0, uint64_t nb, uint8_t *buf)
{
	int k = o.scheme.k;
	const void *bufs[32];
	bool ok = true;

	if (o.split) {
		for (uint64_t b = b0; b < b0 + nb; b++)
			ok &= write_block(b, buf);
		return ok;
	}
	for (uint64_t s = b0; s < b0 + nb; s += (uint64_t)k) {
		for (int j = 0; j < k; j++) {
			version[s + j]++;
			content(s + j, version[s + j], buf + (size_t)j * o.chunk, o.chunk);
			bufs[j] = buf + (size_t)j * o.chunk;
		}
		if (cxlpool_prot_write_k(pp, s, bufs)) {
			plog.writes_failed++;
			ok = false;
		}
	}
	return ok;
}

/* One operation; true when it was served (read or written). */
static bool one_op(uint64_t i, uint8_t *buf, uint8_t *want)
{
	bool is_write = (double)(rnd() % 1000000) < o.write_frac * 1e6;

	if (!strcmp(o.pattern, "kv")) {
		/* the ring's head moves on with every append */
		static uint64_t head;

		if (is_write) {
			plog.writes++;
			return write_block(head++ % nblocks, buf);
		}
		plog.reads++;
		return read_check(rnd() % nblocks, buf, want);
	} else {
		uint64_t per = o.layer / o.chunk, layers = nblocks / per;
		uint64_t l = i % layers, b0 = l * per;
		bool ok = true;

		if (is_write) {
			plog.writes += per;
			return write_layer(b0, per, buf);
		}
		for (uint64_t b = b0; b < b0 + per; b++) {
			plog.reads++;
			ok &= read_check(b, buf, want);
		}
		return ok;
	}
}

static void populate(uint8_t *buf)
{
	int k = o.scheme.k;
	const void *bufs[32];

	cxlbed_roi_begin(PLOG_ROI_POPULATE);
	for (uint64_t s = 0; o.split && s < nblocks; s++) {
		content(s, 0, buf, o.chunk);
		if (block_write(s, buf))
			wl_fail(NAME, "cannot place block %llu under %s: it needs %d LDs of "
				"distinct pools with room (have %d LDs)", (unsigned long long)s,
				o.scheme_name, o.scheme.k + o.scheme.m, cxlpool_prot_nlds(pp));
	}
	for (uint64_t s = 0; !o.split && s < nblocks / (uint64_t)k; s++) {
		for (int j = 0; j < k; j++) {
			content(s * k + j, 0, buf + (size_t)j * o.chunk, o.chunk);
			bufs[j] = buf + (size_t)j * o.chunk;
		}
		if (cxlpool_prot_write_k(pp, s * k, bufs))
			wl_fail(NAME, "cannot place stripe %llu under %s: it needs %d LDs of "
				"distinct pools with room (have %d LDs)", (unsigned long long)s,
				o.scheme_name, o.scheme.k + o.scheme.m, cxlpool_prot_nlds(pp));
	}
	PLOG_END(&plog, PLOG_ROI_POPULATE, "populate");
}

/* Read every block once more: lost ones counted, wrong ones never returned. */
static void verify_all(uint8_t *buf, uint8_t *want)
{
	cxlbed_roi_begin(PLOG_ROI_VERIFY);
	for (uint64_t b = 0; b < nblocks; b++) {
		int rc = block_read(b, buf);

		if (rc == PROT_LOST) {
			plog.final_lost++;
			continue;
		}
		content(b, version[b], want, o.chunk);
		if (memcmp(buf, want, o.chunk))
			plog.corrupt++;
		else
			plog.final_ok++;
	}
	PLOG_END(&plog, PLOG_ROI_VERIFY, "verify");
}

int main(int argc, char **argv)
{
	struct cxlpool_prot_opts po;
	struct prot_store *store;
	uint8_t *buf, *want;
	uint64_t done_epochs_after = 0, i;

	cxlbed_roi_arm();
	t_start = wl_now();
	prot_scheme_parse("rep2", &o.scheme);
	parse(argc, argv);
	plog_init(&plog, NAME, o.scheme_name, o.pattern);
	plog.layout = o.split ? "split" : "chunk";

	nblocks = o.data / o.chunk;
	if (!o.split)
		nblocks -= nblocks % (uint64_t)o.scheme.k;
	if (!strcmp(o.pattern, "sweep"))
		nblocks -= nblocks % (o.layer / o.chunk);
	version = calloc(nblocks, sizeof(*version));
	buf = aligned_alloc(64, o.chunk * (size_t)o.scheme.k);
	want = aligned_alloc(64, o.chunk);
	if (!version || !buf || !want)
		wl_fail(NAME, "out of memory (--data %zu, --chunk %zu)", o.data, o.chunk);

	/* the LDs the fabric manager bound at the start, under libcxlpool */
	cxlpool_prot_opts_default(&po);
	po.scheme = o.scheme;
	po.block = o.chunk;
	po.blocks = nblocks;
	po.split = o.split;
	po.copy_threads = o.copy_threads;
	po.repair = o.repair;
	po.repair_threads = o.repair_threads;
	po.demand = o.demand;
	po.lds = o.lds;
	po.wait_s = o.wait_s;
	po.from = NAME;
	po.hooks = (struct cxlpool_prot_hooks){
		.ctx = &plog, .note = hook_note, .capacity = hook_capacity,
		.kernel_event = hook_kernel_event, .cost = hook_cost,
		.demand = hook_demand, .failure = hook_failure,
		.repair_begin = hook_repair_begin, .repair_bytes = hook_repair_bytes,
		.repair_end = hook_repair_end,
	};
	pp = cxlpool_prot_open(&po);
	if (!pp)
		wl_fail(NAME, "%s", cxlpool_error());
	store = cxlpool_prot_store(pp);
	plog.monitor = cxlpool_prot_monitoring(pp);
	populate(buf);
	plog_stored(&plog, store, nblocks * o.chunk);
	say("%llu blocks of %zu bytes written under %s (layout %s) over %d LDs",
	    (unsigned long long)nblocks, o.chunk, o.scheme_name, plog.layout,
	    cxlpool_prot_nlds(pp));
	announce("running");

	cxlbed_roi_begin(PLOG_ROI_EPOCH);
	plog_epoch_begin(&plog);
	for (i = 0; i < o.ops || (plog.failures_seen && done_epochs_after <
				  (uint64_t)o.epochs_after && i < 4 * o.ops); i++) {
		bool served;
		double t0;

		if (i % o.check_every == 0)
			cxlpool_prot_poll(pp);
		else
			cxlpool_prot_take_events(pp);
		t0 = wl_now();
		served = one_op(i, buf, want);
		plog_op_time(&plog, wl_now() - t0);
		plog.ops++;
		if (served)
			plog_served(&plog);	/* marks resumed service after a failure */
		if ((i + 1) % o.epoch == 0) {
			PLOG_END(&plog, PLOG_ROI_EPOCH, "epoch");
			plog_epoch_end(&plog, store);
			if (plog.failures_seen && (plog_fully_protected(&plog, store) ||
						   plog_beyond_repair(store)))
				done_epochs_after++;
			cxlbed_roi_begin(PLOG_ROI_EPOCH);
			plog_epoch_begin(&plog);
		}
	}
	PLOG_END(&plog, PLOG_ROI_EPOCH, "epoch");
	plog_epoch_end(&plog, store);
	/* let a repair under way finish before the final check */
	cxlpool_prot_settle(pp, 10);
	announce("verify");
	verify_all(buf, want);
	say("verified: %llu ok, %llu lost, %llu corrupt", (unsigned long long)plog.final_ok,
	    (unsigned long long)plog.final_lost, (unsigned long long)plog.corrupt);
	plog_print(&plog, store, stdout);
	cxlpool_prot_close(pp);
	return plog.corrupt ? 1 : 0;
}
