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
 * prints ("fault_rois"). Times in the output are the guest clock.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "cxlbed-roi.h"
#include "guard.h"
#include "ldreg.h"
#include "monitor.h"
#include "protect.h"
#include "protect_log.h"
#include "wl.h"

#define NAME "cxlbed-protect"
#define DEMAND_SOCK "/run/cxlbed-demand.sock"
#define MAX_LDS 32
#define REPAIR_STEP (1u << 20)	/* bytes per repair call between checks */

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

static struct prot_store *store;
static struct plog plog;
static atomic_int repair_stop;
static uint32_t *version;	/* per block: what its contents should be */
static uint64_t nblocks;
static struct ldreg_entry lds[MAX_LDS];
static int nlds;

static void send_datagram(const char *msg);
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
	char msg[128];

	snprintf(msg, sizeof(msg), "{\"phase\": \"%s\", \"from\": \"%s\"}", phase, NAME);
	send_datagram(msg);
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

/* ---- capacity: the LDs the agent attached as devdax ------------------- */

static bool known(uint64_t serial)
{
	for (int i = 0; i < nlds; i++)
		if (lds[i].serial == serial)
			return true;
	return false;
}

/* /dev/@dax, made from sysfs numbers if devtmpfs has not. */
static void *map_dax(const struct ldreg_entry *e)
{
	char dev[64], sys[128], nums[32];
	unsigned int ma, mi;
	void *p;
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
	p = mmap(NULL, e->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

/* Take every devdax LD not yet known; returns how many were added. */
static int take_new_lds(void)
{
	struct ldreg_entry e[MAX_LDS];
	int n = ldreg_list(NULL, e, MAX_LDS), added = 0;

	for (int i = 0; i < n && nlds < MAX_LDS; i++) {
		void *base;

		if (known(e[i].serial) || strcmp(e[i].mode, "devdax") || !e[i].dax[0] ||
		    !e[i].size)
			continue;
		base = map_dax(&e[i]);
		if (!base) {
			say("%s (%s): /dev/%s cannot be mapped (%s): left out", e[i].ld,
			    e[i].pool, e[i].dax, strerror(errno));
			continue;
		}
		if (prot_add_capacity(store, e[i].pool, e[i].serial, base, e[i].size,
				      e[i].base) == 0) {
			lds[nlds++] = e[i];
			added++;
			plog_capacity(&plog, &e[i]);
			say("%s of pool %s (serial %llu, /dev/%s, %llu MiB) taken", e[i].ld,
			    e[i].pool, (unsigned long long)e[i].serial, e[i].dax,
			    (unsigned long long)(e[i].size >> 20));
		}
	}
	return added;
}

const struct ldreg_entry *ld_of(uint64_t serial)
{
	for (int i = 0; i < nlds; i++)
		if (lds[i].serial == serial)
			return &lds[i];
	return NULL;
}

static void send_datagram(const char *msg)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", DEMAND_SOCK);
	if (fd >= 0)
		sendto(fd, msg, strlen(msg), 0, (struct sockaddr *)&sa, sizeof(sa));
	if (fd >= 0)
		close(fd);
}

/* Ask the fabric manager for an LD of a pool we do not use yet. */
static void ask_capacity(uint64_t bytes)
{
	char msg[512], pools[400] = "";
	size_t len = 0;

	for (int i = 0; i < nlds; i++) {
		bool dup = false;

		for (int j = 0; j < i; j++)
			dup |= !strcmp(lds[i].pool, lds[j].pool);
		if (!dup)
			len += (size_t)snprintf(pools + len, sizeof(pools) - len, "%s\"%s\"",
						len ? "," : "", lds[i].pool);
	}
	snprintf(msg, sizeof(msg), "{\"want\": %llu, \"from\": \"%s\", \"mode\": "
		 "\"devdax\", \"avoid\": [%s]}", (unsigned long long)bytes, NAME, pools);
	send_datagram(msg);
	plog_demand(&plog, bytes);
}

/* ---- what the kernel said --------------------------------------------- */

static void take_kernel_events(void)
{
	struct mon_event ev[16];
	int n;

	while ((n = mon_take(ev, 16)) > 0)
		for (int i = 0; i < n; i++) {
			const struct mon_event *m = &ev[i];
			bool uncorrectable = m->log >= 2 || (m->descriptor & 1);

			plog_kernel_event(&plog, m);
			switch (m->kind) {
			case MON_MEMORY_MODULE:
				/* media status 3: all data lost (a dead memory node) */
				if (m->media_status == 3 || m->log == 3)
					prot_fail_capacity(store, m->serial, PROT_CAUSE_EVENT);
				break;
			case MON_AER_UNCORRECTABLE:
				/* the kernel drops CXL.mem of that device */
				prot_fail_capacity(store, m->serial, PROT_CAUSE_EVENT);
				break;
			case MON_AER_CORRECTABLE:
				/* link trouble: prefer other copies, place elsewhere */
				plog_cost(&plog, store, m->serial, 4.0);
				prot_set_cost(store, m->serial, 4.0);
				break;
			case MON_GENERAL_MEDIA:
			case MON_DRAM:
				if (uncorrectable && m->hpa != ~0ull)
					prot_poison_hpa(store, m->hpa & ~63ull, 64, PROT_CAUSE_EVENT);
				break;
			case MON_POISON:
			case MON_MEMORY_FAILURE:
				if (m->hpa != ~0ull)
					prot_poison_hpa(store, m->hpa, m->length ? m->length : 64,
							PROT_CAUSE_POISON);
				break;
			case MON_AER:
				break;
			}
		}
}

/* ---- repair thread ---------------------------------------------------- */

/* One repair worker: stripes until none is left to it. */
static void *repair_worker(void *arg)
{
	uint64_t got;

	(void)arg;
	while (!atomic_load(&repair_stop) && (got = prot_repair(store, REPAIR_STEP)))
		plog_repair_bytes(&plog, got);
	return NULL;
}

/*
 * A burst is one region of modeled time in which o.repair_threads workers
 * (this thread and the others) copy at once: a thread's copies are bound
 * by the misses it keeps in flight, so re-protection scales with threads,
 * as a real runtime's would.
 */
static void *repair_main(void *arg)
{
	(void)arg;
	while (!atomic_load(&repair_stop)) {
		pthread_t w[PROT_MAX_REPAIRERS];
		int nw = 0;
		struct prot_stats st;

		prot_get_stats(store, &st);
		if (!st.stripes_degraded) {
			usleep(2000);
			continue;
		}
		/* nothing could be placed last pass: try again less often, until
		 * an LD arrives (the pass is what notices it) */
		if (st.stripes_unplaceable >= st.stripes_degraded)
			usleep(50000);
		plog_repair_begin(&plog);
		cxlbed_roi_begin(PLOG_ROI_REPAIR);
		for (int t = 1; t < o.repair_threads; t++)
			if (!pthread_create(&w[nw], NULL, repair_worker, NULL))
				nw++;
		repair_worker(NULL);
		while (nw)
			pthread_join(w[--nw], NULL);
		PLOG_END(&plog, PLOG_ROI_REPAIR, "repair");
		plog_repair_end(&plog, store);
		usleep(2000);
	}
	return NULL;
}

/* ---- the patterns ----------------------------------------------------- */

/* Block @b's k pieces in @buf under --layout split. */
static void split_bufs(uint8_t *buf, void **bufs)
{
	for (int j = 0; j < o.scheme.k; j++)
		bufs[j] = buf + (size_t)j * (o.chunk / (size_t)o.scheme.k);
}

/* Block @b under the layout: PROT_* as prot_read. */
static int block_read(uint64_t b, uint8_t *buf)
{
	void *bufs[32];

	if (!o.split)
		return prot_read(store, b, buf);
	split_bufs(buf, bufs);
	return prot_read_stripe(store, b, bufs);
}

static int block_write(uint64_t b, uint8_t *buf)
{
	void *bufs[32];

	if (!o.split)
		return prot_write(store, b, buf);
	split_bufs(buf, bufs);
	return prot_write_stripe(store, b, (const void *const *)bufs);
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
		if (prot_write_stripe(store, s / (uint64_t)k, bufs)) {
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
				o.scheme_name, o.scheme.k + o.scheme.m, nlds);
	}
	for (uint64_t s = 0; !o.split && s < nblocks / (uint64_t)k; s++) {
		for (int j = 0; j < k; j++) {
			content(s * k + j, 0, buf + (size_t)j * o.chunk, o.chunk);
			bufs[j] = buf + (size_t)j * o.chunk;
		}
		if (prot_write_stripe(store, s, bufs))
			wl_fail(NAME, "cannot place stripe %llu under %s: it needs %d LDs of "
				"distinct pools with room (have %d LDs)", (unsigned long long)s,
				o.scheme_name, o.scheme.k + o.scheme.m, nlds);
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

/* The store registered a failure: the point the runtime learnt of it. */
static void on_failure(void *ctx, const struct prot_failure *f)
{
	plog_failure(ctx, f, ld_of(f->tag));
}

int main(int argc, char **argv)
{
	struct prot_config pc;
	pthread_t repairer;
	uint8_t *buf, *want;
	double deadline;
	uint64_t done_epochs_after = 0, i;
	bool capacity_asked = false;
	double asked_at = 0;

	cxlbed_roi_arm();
	t_start = wl_now();
	prot_scheme_parse("rep2", &o.scheme);
	parse(argc, argv);
	plog_init(&plog, NAME, o.scheme_name, o.pattern);
	plog.layout = o.split ? "split" : "chunk";
	guard_install();
	plog.monitor = mon_start() == 0;
	say("kernel event monitor %s", plog.monitor ? "up" : "not available");

	/* the LDs the fabric manager bound at the start */
	memset(&pc, 0, sizeof(pc));
	pc.scheme = o.scheme;
	nblocks = o.data / o.chunk;
	if (!o.split)
		nblocks -= nblocks % (uint64_t)o.scheme.k;
	if (!strcmp(o.pattern, "sweep"))
		nblocks -= nblocks % (o.layer / o.chunk);
	/* the store's blocks are its chunks' data: k per block when split */
	pc.chunk = o.split ? o.chunk / (size_t)o.scheme.k : o.chunk;
	pc.blocks = o.split ? nblocks * (uint64_t)o.scheme.k : nblocks;
	pc.on_failure = on_failure;
	pc.ctx = &plog;
	pc.copy_threads = o.scheme.m ? o.copy_threads : 0;
	store = prot_new(&pc);
	version = calloc(nblocks, sizeof(*version));
	buf = aligned_alloc(64, o.chunk * (size_t)o.scheme.k);
	want = aligned_alloc(64, o.chunk);
	if (!store || !version || !buf || !want)
		wl_fail(NAME, "out of memory (--data %zu, --chunk %zu)", o.data, o.chunk);
	deadline = wl_now() + o.wait_s;
	while (take_new_lds(), nlds < o.lds && wl_now() < deadline)
		usleep(100000);
	if (nlds < o.lds)
		wl_fail(NAME, "%d devdax LD(s) after %.0f s, %d wanted: bind them with "
			"mode = devdax (docs/faults.md)", nlds, o.wait_s, o.lds);
	populate(buf);
	plog_stored(&plog, store, nblocks * o.chunk);
	say("%llu blocks of %zu bytes written under %s (layout %s) over %d LDs",
	    (unsigned long long)nblocks, o.chunk, o.scheme_name, plog.layout, nlds);
	announce("running");
	if (o.repair && o.scheme.m)
		pthread_create(&repairer, NULL, repair_main, NULL);

	cxlbed_roi_begin(PLOG_ROI_EPOCH);
	plog_epoch_begin(&plog);
	for (i = 0; i < o.ops || (plog.failures_seen && done_epochs_after <
				  (uint64_t)o.epochs_after && i < 4 * o.ops); i++) {
		bool served;
		double t0;

		take_kernel_events();
		if (i % o.check_every == 0) {
			prot_check(store);
			take_new_lds();
			if (o.demand && o.scheme.m) {
				uint64_t w = prot_wanted(store);

				if (w && (!capacity_asked || wl_now() - asked_at > 30)) {
					ask_capacity(w);
					capacity_asked = true;
					asked_at = wl_now();
				}
			}
		}
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
	if (o.repair && o.scheme.m) {
		/* let a repair under way finish before the final check */
		struct prot_stats st;
		double until = wl_now() + 10;

		do {
			take_kernel_events();
			prot_check(store);
			take_new_lds();
			prot_get_stats(store, &st);
			if (st.stripes_degraded && !st.stripes_unplaceable)
				usleep(20000);
		} while (st.stripes_degraded && !st.stripes_unplaceable && wl_now() < until);
		atomic_store(&repair_stop, 1);
		pthread_join(repairer, NULL);
	}
	take_kernel_events();
	prot_check(store);
	announce("verify");
	verify_all(buf, want);
	say("verified: %llu ok, %llu lost, %llu corrupt", (unsigned long long)plog.final_ok,
	    (unsigned long long)plog.final_lost, (unsigned long long)plog.corrupt);
	mon_stop();
	plog_print(&plog, store, stdout);
	return plog.corrupt ? 1 : 0;
}
