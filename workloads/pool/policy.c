/* SPDX-License-Identifier: MIT */
/* Tiering policies: system-wide set-up and teardown; see policy.h. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <numaif.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <unistd.h>

#include "policy.h"
#include "sysfs.h"

static const char *const names[PW_NPOLICIES] = {
	[PW_ALL_LOCAL] = "all-local", [PW_FIRST_TOUCH] = "first-touch",
	[PW_INTERLEAVE] = "interleave", [PW_TPP] = "tpp",
	[PW_DAMON] = "damon", [PW_LIBCXLPOOL] = "libcxlpool",
	[PW_INTERLEAVE_AUTO] = "interleave-auto", [PW_DAMON_AUTO] = "damon-auto",
};

const char *pw_policy_name(enum pw_policy p)
{
	return p < PW_NPOLICIES ? names[p] : "?";
}

int pw_policy_parse(const char *name)
{
	for (int i = 0; i < PW_NPOLICIES; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

bool pw_policy_limited(enum pw_policy p)
{
	return p != PW_ALL_LOCAL;
}

bool pw_policy_needs_full_node(enum pw_policy p)
{
	return p == PW_TPP || p == PW_DAMON;
}

void pw_knobs_default(struct pw_kernel_knobs *k)
{
	/*
	 * The kernel's defaults (1000 ms scan delay, period and hot threshold)
	 * scaled down 10x, so that tpp acts within runs of a few hundred
	 * modeled ms. The period cannot be shorter anyway: the kernel floors
	 * it at 1000 / (2560 / scan_size_mb) ms, its cap on the address space
	 * scanned per second (task_scan_min), 100 ms at the default 256 MB;
	 * a setting of 4 ms scanned gups's table every ~100 ms all the same.
	 * The first scan comes one jiffy (4 ms at HZ=250) after the child
	 * starts.
	 */
	k->scan_delay_ms = 4;
	k->scan_period_min_ms = 100;
	k->scan_period_max_ms = 100;
	k->hot_threshold_ms = 100;
	k->damon_sample_us = 200;
	k->damon_aggr_us = 4000;
	k->damon_update_us = 40000;
	k->damon_hot_pct = 20;
	k->damon_cold_age = 2;
	k->damon_quota_mb = 16;
	k->damon_quota_ms = 2;
	k->damon_quota_reset_ms = 20;
	k->damon_auto_used_bp = 0;	/* from the node: setup_damon_auto() */
	k->damon_auto_free_bp = 0;
	k->damon_auto_reset_ms = 1;
}

/* Every knob by the name the output and --knob give it, in output order. */
#define K(f) { #f, offsetof(struct pw_kernel_knobs, f) }
static const struct { const char *name; size_t off; } knob[] = {
	K(scan_delay_ms), K(scan_period_min_ms), K(scan_period_max_ms),
	K(hot_threshold_ms), K(damon_sample_us), K(damon_aggr_us),
	K(damon_update_us), K(damon_hot_pct), K(damon_cold_age),
	K(damon_quota_mb), K(damon_quota_ms), K(damon_quota_reset_ms),
	K(damon_auto_used_bp), K(damon_auto_free_bp), K(damon_auto_reset_ms),
};
#undef K
#define NKNOBS (sizeof(knob) / sizeof(knob[0]))

int pw_knob_set(struct pw_kernel_knobs *k, const char *arg)
{
	const char *eq = strchr(arg, '=');
	unsigned long v;
	char *end;

	if (!eq || !eq[1])
		return -1;
	errno = 0;
	v = strtoul(eq + 1, &end, 10);
	if (*end || errno || v > UINT_MAX || eq[1] == '-')
		return -1;
	for (size_t i = 0; i < NKNOBS; i++)
		if (strlen(knob[i].name) == (size_t)(eq - arg) &&
		    !strncmp(knob[i].name, arg, (size_t)(eq - arg))) {
			*(unsigned *)((char *)k + knob[i].off) = (unsigned)v;
			return 0;
		}
	return -1;
}

void pw_knobs_json(FILE *f, const struct pw_kernel_knobs *k)
{
	for (size_t i = 0; i < NKNOBS; i++)
		fprintf(f, "%s\"%s\":%u", i ? "," : "{", knob[i].name,
			*(const unsigned *)((const char *)k + knob[i].off));
	fputc('}', f);
}

#define NB_DEBUGFS "/sys/kernel/debug/sched/numa_balancing"
#define DAMON "/sys/kernel/mm/damon/admin/kdamonds"
#define WI "/sys/kernel/mm/mempolicy/weighted_interleave"
#define DAMON_STAT "/sys/module/damon_stat/parameters/enabled"


static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* Writes that must work; the first failure is reported. */
struct wr {
	char *err;
	size_t len;
	int failed;
};

static void put(struct wr *w, const char *val, const char *fmt, ...)
{
	char path[512];
	va_list ap;
	int e;

	if (w->failed)
		return;
	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	e = cp_write(path, val);
	if (e) {
		snprintf(w->err, w->len, "write '%s' to %s: %s", val, path, strerror(-e));
		w->failed = 1;
	}
}

static void put_u(struct wr *w, unsigned long long v, const char *fmt, const char *a,
		  const char *b)
{
	char val[32];

	snprintf(val, sizeof(val), "%llu", v);
	put(w, val, fmt, a, b);
}

/*
 * DAMON_STAT (Linux 6.17; on at boot in Debian's 7.x builds) runs a
 * kdamond of its own, and DAMON starts no sysfs kdamond beside it: "on"
 * fails with EBUSY. damon and damon-auto turn it off for their run and
 * back on after.
 */
static bool damon_stat_was_on;

static int damon_stat_pause(struct wr *w)
{
	char v[8] = "";

	damon_stat_was_on = !cp_read(DAMON_STAT, v, sizeof(v)) && v[0] == 'Y';
	if (damon_stat_was_on)
		put(w, "N", DAMON_STAT);
	return w->failed ? -1 : 0;
}

static void damon_stat_resume(void)
{
	if (damon_stat_was_on)
		cp_write(DAMON_STAT, "Y");
	damon_stat_was_on = false;
}

int pw_node_range(int node, uint64_t *start, uint64_t *end)
{
	char dir[96], buf[32];
	unsigned long lo = ~0ul, hi = 0;
	long long bs;
	struct dirent *e;
	DIR *d;

	/* hex, without 0x */
	if (cp_read("/sys/devices/system/memory/block_size_bytes", buf, sizeof(buf)))
		return -1;
	bs = strtoll(buf, NULL, 16);
	snprintf(dir, sizeof(dir), "/sys/devices/system/node/node%d", node);
	d = opendir(dir);
	if (!d || bs <= 0) {
		if (d)
			closedir(d);
		return -1;
	}
	while ((e = readdir(d))) {
		unsigned long b;

		if (sscanf(e->d_name, "memory%lu", &b) != 1)
			continue;
		if (b < lo)
			lo = b;
		if (b > hi)
			hi = b;
	}
	closedir(d);
	if (lo == ~0ul)
		return -1;
	*start = (uint64_t)lo * (uint64_t)bs;
	*end = (uint64_t)(hi + 1) * (uint64_t)bs;
	return 0;
}

/*
 * Kdamond @k's one context on physical memory [start, end), with one
 * scheme migrating (@hot: migrate_hot, else migrate_cold) into node
 * @target; its paths into @c and @s. What damon and damon-auto share.
 */
static void damon_context(struct wr *w, int k, const struct pw_kernel_knobs *kn,
			  uint64_t start, uint64_t end, unsigned max_regions, bool hot,
			  int target, char c[160], char s[200])
{
	snprintf(c, 160, DAMON "/%d/contexts/0", k);
	snprintf(s, 200, "%s/schemes/0", c);
	put(w, "1", DAMON "/%d/contexts/nr_contexts", k);
	put(w, "paddr", "%s/operations", c);
	put_u(w, kn->damon_sample_us, "%s/%s", c, "monitoring_attrs/intervals/sample_us");
	put_u(w, kn->damon_aggr_us, "%s/%s", c, "monitoring_attrs/intervals/aggr_us");
	put_u(w, kn->damon_update_us, "%s/%s", c, "monitoring_attrs/intervals/update_us");
	put_u(w, 10, "%s/%s", c, "monitoring_attrs/nr_regions/min");
	put_u(w, max_regions, "%s/%s", c, "monitoring_attrs/nr_regions/max");
	put(w, "1", "%s/targets/nr_targets", c);
	put(w, "1", "%s/targets/0/regions/nr_regions", c);
	put_u(w, start, "%s/%s", c, "targets/0/regions/0/start");
	put_u(w, end, "%s/%s", c, "targets/0/regions/0/end");
	put(w, "1", "%s/schemes/nr_schemes", c);
	put(w, hot ? "migrate_hot" : "migrate_cold", "%s/action", s);
	put_u(w, (unsigned)target, "%s/%s", s, "target_nid");
	put_u(w, 4096, "%s/%s", s, "access_pattern/sz/min");
	put_u(w, 1ull << 40, "%s/%s", s, "access_pattern/sz/max");
}

/* One kdamond on physical memory [start, end) with one migrate scheme. */
static void damon_kdamond(struct wr *w, int k, const struct pw_kernel_knobs *kn,
			  uint64_t start, uint64_t end, bool hot, int target)
{
	char c[160], s[200];
	unsigned max_acc = kn->damon_aggr_us / kn->damon_sample_us;

	damon_context(w, k, kn, start, end, 200, hot, target, c, s);
	if (hot) {
		put_u(w, (max_acc * kn->damon_hot_pct + 99) / 100, "%s/%s", s,
		      "access_pattern/nr_accesses/min");
		put_u(w, max_acc, "%s/%s", s, "access_pattern/nr_accesses/max");
		put_u(w, 0, "%s/%s", s, "access_pattern/age/min");
	} else {
		put_u(w, 0, "%s/%s", s, "access_pattern/nr_accesses/min");
		put_u(w, 0, "%s/%s", s, "access_pattern/nr_accesses/max");
		put_u(w, kn->damon_cold_age, "%s/%s", s, "access_pattern/age/min");
	}
	put_u(w, ~0u, "%s/%s", s, "access_pattern/age/max");
	/*
	 * Anonymous pages only (a filter of type anon with matching N drops
	 * the pages that are not). Under TCG the CXL node is I/O memory, and
	 * code there runs one instruction per translation, never cached:
	 * once the cold scheme had moved cxlbed-pool's text there, its vCPU
	 * spent its host time translating and damon's run never ended
	 * (docs/pooling.md, "damon").
	 */
	put(w, "1", "%s/filters/nr_filters", s);
	put(w, "anon", "%s/filters/0/type", s);
	put(w, "N", "%s/filters/0/matching", s);
	/* quotas: without them each aggregation may move every page that
	 * matches (the cold scheme: every idle page of the local node) */
	put_u(w, (uint64_t)kn->damon_quota_mb << 20, "%s/%s", s, "quotas/bytes");
	put_u(w, kn->damon_quota_ms, "%s/%s", s, "quotas/ms");
	put_u(w, kn->damon_quota_reset_ms, "%s/%s", s, "quotas/reset_interval_ms");
	/* state "on" comes from pw_policy_start, once the limit holds */
}

static int setup_damon(const struct pw_kernel_knobs *k, int fast, int far,
		       char *err, size_t len)
{
	struct wr w = { err, len, 0 };
	uint64_t f0, f1, s0, s1;

	if (pw_node_range(fast, &f0, &f1) || pw_node_range(far, &s0, &s1))
		return fail(err, len, "cannot find the nodes' physical ranges");
	if (damon_stat_pause(&w))
		return -1;
	put(&w, "2", DAMON "/nr_kdamonds");
	damon_kdamond(&w, 0, k, s0, s1, true, fast);
	damon_kdamond(&w, 1, k, f0, f1, false, far);
	return w.failed ? -1 : 0;
}

/*
 * damon-auto: one kdamond as the kernel's samples/damon/mtier.c builds
 * each of its two contexts, through sysfs. Promotion (@hot) of accessed
 * pages from the far node, its quota tuned toward the local node at
 * damon_auto_used_bp used; demotion of idle pages from the local node,
 * toward it at damon_auto_free_bp free. Pages are checked again at page
 * level (the young filter: allowed for promotion, refused for demotion),
 * and, as for damon, only anonymous pages move. The sample's times (5 ms
 * sampling, 100 ms aggregation, 1 s quota window and apply interval,
 * 200 MiB a second) are scaled to this program's knobs as damon's are.
 */
static void damon_auto_kdamond(struct wr *w, int k, const struct pw_kernel_knobs *kn,
			       uint64_t start, uint64_t end, bool hot, int target, int fast,
			       unsigned used_bp, unsigned free_bp)
{
	char c[160], s[200];

	damon_context(w, k, kn, start, end, 1000, hot, target, c, s);
	/* intervals tuned toward 4% of samples seeing an access, in 3
	 * aggregations, as the sample asks */
	put_u(w, 400, "%s/%s", c, "monitoring_attrs/intervals/intervals_goal/access_bp");
	put_u(w, 3, "%s/%s", c, "monitoring_attrs/intervals/intervals_goal/aggrs");
	/* within 4x the knob's sampling: a run lasts tens of modeled ms */
	put_u(w, kn->damon_sample_us, "%s/%s", c,
	      "monitoring_attrs/intervals/intervals_goal/min_sample_us");
	put_u(w, kn->damon_sample_us * 4, "%s/%s", c,
	      "monitoring_attrs/intervals/intervals_goal/max_sample_us");
	put_u(w, 0, "%s/%s", s, "apply_interval_us");	/* every aggregation */
	put_u(w, hot ? 1 : 0, "%s/%s", s, "access_pattern/nr_accesses/min");
	put_u(w, hot ? ~0u : 0, "%s/%s", s, "access_pattern/nr_accesses/max");
	put_u(w, 0, "%s/%s", s, "access_pattern/age/min");
	put_u(w, ~0u, "%s/%s", s, "access_pattern/age/max");
	/* the first filter that matches decides; none matching: refused when
	 * the last is an allow filter (promotion), allowed otherwise */
	put(w, "2", "%s/filters/nr_filters", s);
	put(w, "anon", "%s/filters/0/type", s);
	put(w, "N", "%s/filters/0/matching", s);
	put(w, "N", "%s/filters/0/allow", s);
	put(w, "young", "%s/filters/1/type", s);
	put(w, "Y", "%s/filters/1/matching", s);
	put(w, hot ? "Y" : "N", "%s/filters/1/allow", s);
	put_u(w, (uint64_t)kn->damon_quota_mb << 20, "%s/%s", s, "quotas/bytes");
	/* the goal's feedback steps once a window, from a quota of one byte
	 * and at most doubling it: at 20 ms a run of 100 ms ended with the
	 * quota at a few bytes. 1 ms windows let it reach the cap in a run */
	put_u(w, kn->damon_auto_reset_ms, "%s/%s", s, "quotas/reset_interval_ms");
	put_u(w, 0, "%s/%s", s, "quotas/weights/sz_permil");
	put_u(w, 100, "%s/%s", s, "quotas/weights/nr_accesses_permil");
	put_u(w, 100, "%s/%s", s, "quotas/weights/age_permil");
	put(w, "1", "%s/quotas/goals/nr_goals", s);
	put(w, hot ? "node_mem_used_bp" : "node_mem_free_bp", "%s/quotas/goals/0/target_metric", s);
	put_u(w, hot ? used_bp : free_bp, "%s/%s", s, "quotas/goals/0/target_value");
	put_u(w, (unsigned)fast, "%s/%s", s, "quotas/goals/0/nid");
}

/* damon-auto's goals as the knobs give them (0: from the node at start). */
static unsigned auto_used_bp, auto_free_bp;

static int setup_damon_auto(const struct pw_kernel_knobs *k, int fast, int far,
			    char *err, size_t len)
{
	struct wr w = { err, len, 0 };
	uint64_t f0, f1, s0, s1;

	if (pw_node_range(fast, &f0, &f1) || pw_node_range(far, &s0, &s1))
		return fail(err, len, "cannot find the nodes' physical ranges");
	auto_used_bp = k->damon_auto_used_bp;
	auto_free_bp = k->damon_auto_free_bp;
	if (damon_stat_pause(&w))
		return -1;
	put(&w, "2", DAMON "/nr_kdamonds");
	/* goal values come when it starts (damon_auto_goals) */
	damon_auto_kdamond(&w, 0, k, s0, s1, true, fast, fast, 10000, 1);
	damon_auto_kdamond(&w, 1, k, f0, f1, false, far, fast, 10000, 1);
	return w.failed ? -1 : 0;
}

/*
 * The goals, written as the child starts the kdamonds, its data placed:
 * promotion up to the local node's use now (the data's local share fills
 * the limit), demotion toward 128 KiB more free than now. Like mtier.c's
 * 99.7% used and 0.5% free, the two overlap a little, so hot pages are
 * exchanged for cold ones; unlike them, they hold this run's local limit
 * rather than a whole node (0.3% of the guest's node is more than the
 * limit), and with no reservation: the goals hold it. The knobs, when
 * set, give them instead.
 */
static void damon_auto_goals(struct wr *w, int fast)
{
	long long total = cp_node_meminfo(fast, "MemTotal");
	long long free = cp_node_meminfo(fast, "MemFree");
	long long used_bp = total > 0 ? (total - free) * 10000 / total : 9970;
	long long free_bp = total > 0 ? ((free + (128 << 10)) * 10000 + total - 1) / total : 50;

	put_u(w, auto_used_bp ? auto_used_bp : (unsigned long long)used_bp, "%s/%s",
	      DAMON "/0/contexts/0/schemes/0", "quotas/goals/0/target_value");
	put_u(w, auto_free_bp ? auto_free_bp : (unsigned long long)free_bp, "%s/%s",
	      DAMON "/1/contexts/0/schemes/0", "quotas/goals/0/target_value");
}

/* interleave-auto: weighted_interleave/auto as it was before, to restore. */
static char wi_auto_before[16];

static int setup_interleave_auto(char *err, size_t len)
{
	struct wr w = { err, len, 0 };

	if (cp_read(WI "/auto", wi_auto_before, sizeof(wi_auto_before)))
		wi_auto_before[0] = '\0';
	/* back to the weights from each node's bandwidth (writing a node's
	 * weight, as interleave does, turns them off) */
	put(&w, "true", WI "/auto");
	return w.failed ? -1 : 0;
}

static int setup_tpp(const struct pw_kernel_knobs *k, char *err, size_t len)
{
	struct wr w = { err, len, 0 };
	char v[32];

	/* debugfs holds the scan knobs since 5.13 */
	if (access(NB_DEBUGFS, F_OK) &&
	    mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL) && errno != EBUSY)
		return fail(err, len, "mount debugfs: %s", strerror(errno));
#define KNOB(name, val) do { snprintf(v, sizeof(v), "%u", (val)); \
		put(&w, v, NB_DEBUGFS "/" name); } while (0)
	KNOB("scan_delay_ms", k->scan_delay_ms);
	KNOB("scan_period_min_ms", k->scan_period_min_ms);
	KNOB("scan_period_max_ms", k->scan_period_max_ms);
	KNOB("hot_threshold_ms", k->hot_threshold_ms);
#undef KNOB
	put(&w, "true", "/sys/kernel/mm/numa/demotion_enabled");
	put(&w, "2", "/proc/sys/kernel/numa_balancing");
	return w.failed ? -1 : 0;
}

static int setup_interleave(int fast, int far, double f, char *err, size_t len)
{
	struct wr w = { err, len, 0 };
	char v[16];
	/* weights in whole numbers with the local share's ratio (1:3 for 25%) */
	int wf = 1, ws = f > 0 && f < 1 ? (int)((1 - f) / f + 0.5) : 1;

	snprintf(v, sizeof(v), "%d", wf);
	put(&w, v, "/sys/kernel/mm/mempolicy/weighted_interleave/node%d", fast);
	snprintf(v, sizeof(v), "%d", ws < 1 ? 1 : ws > 255 ? 255 : ws);
	put(&w, v, "/sys/kernel/mm/mempolicy/weighted_interleave/node%d", far);
	return w.failed ? -1 : 0;
}

int pw_policy_setup(enum pw_policy p, const struct pw_kernel_knobs *k,
		    int fast_node, int far_node, double local_fraction,
		    char *err, size_t errlen)
{
	switch (p) {
	case PW_INTERLEAVE:
		return setup_interleave(fast_node, far_node, local_fraction, err, errlen);
	case PW_TPP:
		return setup_tpp(k, err, errlen);
	case PW_DAMON:
		return setup_damon(k, fast_node, far_node, err, errlen);
	case PW_DAMON_AUTO:
		return setup_damon_auto(k, fast_node, far_node, err, errlen);
	case PW_INTERLEAVE_AUTO:
		return setup_interleave_auto(err, errlen);
	default:
		return 0;
	}
}

/* What user pages can still take on the node, in bytes, from
 * /proc/zoneinfo: each zone's free pages above its high watermark and its
 * lowmem reserve (the largest protection entry: ZONE_DMA keeps ~1.5 MiB
 * from user pages on a 512 MiB guest, which MemFree counts; a remainder
 * sized from MemFree - low could not be had and was OOM-killed). In
 * memory-tiering mode kswapd balances a node up to the promo watermark
 * (high plus the low-high gap again) to leave promotions room: that room
 * comes out of tpp's own share, as on any node, so that no policy holds
 * more than the others (docs/pooling.md, "The local limit"). */
static long long usable_free(int node)
{
	char line[512];
	long long sum = 0, free = 0, high = 0, v;
	int in = 0, n;
	FILE *f = fopen("/proc/zoneinfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p;

		if (sscanf(line, "Node %d, zone", &n) == 1)
			in = n == node;
		else if (in && sscanf(line, " pages free %lld", &v) == 1)
			free = v;
		else if (in && sscanf(line, " high %lld", &v) == 1)
			high = v;
		else if (in && (p = strstr(line, "protection: ("))) {
			long long prot = 0;

			for (p += 13; *p && *p != ')'; p++) {
				v = strtoll(p, &p, 10);
				if (v > prot)
					prot = v;
				if (*p == ')')
					break;
			}
			if (free > high + prot)
				sum += free - high - prot;
		}
	}
	fclose(f);
	return sum * 4096;
}

int pw_policy_start(enum pw_policy p, int fast_node, char *err, size_t errlen)
{
	struct wr w = { err, errlen, 0 };
	long long cap, window;

	if (p == PW_DAMON_AUTO) {
		/* the kernel tunes the quotas itself: no governor */
		damon_auto_goals(&w, fast_node);
		for (int k = 0; k < 2; k++)
			put(&w, "on", DAMON "/%d/state", k);
		return w.failed ? -1 : 0;
	}
	if (p != PW_DAMON)
		return 0;
	/* kdamond 0 promotes (setup_damon): its quota as configured is the
	 * governor's ceiling, and the governor's first quota is in place
	 * before it starts */
	cap = cp_read_llf(-1, DAMON "/0/contexts/0/schemes/0/quotas/bytes");
	window = cp_read_llf(-1, DAMON "/0/contexts/0/schemes/0/quotas/reset_interval_ms");
	if (cap <= 0 || window <= 0 ||
	    pw_damon_gov_prepare(fast_node, 0, (unsigned long long)cap,
				 usable_free(fast_node), (unsigned)window))
		return fail(err, errlen, "cannot set damon's promotion quota for node %d",
			    fast_node);
	for (int k = 0; k < 2; k++)
		put(&w, "on", DAMON "/%d/state", k);
	if (w.failed)
		return -1;
	if (pw_damon_gov_start())
		return fail(err, errlen, "cannot start the promotion governor");
	return 0;
}

void pw_policy_teardown(enum pw_policy p)
{
	switch (p) {
	case PW_TPP:
		cp_write("/proc/sys/kernel/numa_balancing", "0");
		cp_write("/sys/kernel/mm/numa/demotion_enabled", "false");
		break;
	case PW_DAMON:
	case PW_DAMON_AUTO:
		for (int k = 0; k < 2; k++)
			cp_writef("off", DAMON "/%d/state", k);
		cp_write(DAMON "/nr_kdamonds", "0");
		damon_stat_resume();
		break;
	case PW_INTERLEAVE_AUTO:
		if (wi_auto_before[0])
			cp_write(WI "/auto", wi_auto_before);
		break;
	default:
		break;
	}
}

/*
 * Try the quota goal damon-auto needs on one scheme of one kdamond, then
 * give the kdamond back: a kernel without node_mem_used_bp refuses the
 * metric's name (EINVAL), one without quota goals has no goals folder.
 */
static int damos_goals_missing(char *why, size_t len)
{
	static const char *const steps[][2] = {
		{ "1", DAMON "/nr_kdamonds" },
		{ "1", DAMON "/0/contexts/nr_contexts" },
		{ "1", DAMON "/0/contexts/0/schemes/nr_schemes" },
		{ "1", DAMON "/0/contexts/0/schemes/0/quotas/goals/nr_goals" },
		{ "node_mem_used_bp", DAMON "/0/contexts/0/schemes/0/quotas/goals/0/target_metric" },
	};
	int e = 0;
	size_t i;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]) && !e; i++)
		e = cp_write(steps[i][1], steps[i][0]);
	if (!e && access(DAMON "/0/contexts/0/schemes/0/quotas/goals/0/nid", F_OK))
		e = -ENOENT;
	cp_write(DAMON "/nr_kdamonds", "0");
	if (!e)
		return 0;
	snprintf(why, len, "this kernel's DAMON has no DAMOS quota goal on a node's memory "
		 "use (writing %s to %s: %s); node_mem_used_bp and node_mem_free_bp came "
		 "with Linux 6.16", steps[i - 1][0], steps[i - 1][1], strerror(-e));
	return 1;
}

int pw_policy_unavailable(enum pw_policy p, char *why, size_t len)
{
	switch (p) {
	case PW_INTERLEAVE_AUTO:
		if (!access(WI "/auto", F_OK))
			return 0;
		snprintf(why, len, "this kernel has no %s/auto: weighted interleave weights "
			 "derived from each node's bandwidth came with Linux 6.16", WI);
		return 1;
	case PW_DAMON_AUTO:
		if (access(DAMON, F_OK)) {
			snprintf(why, len, "this kernel has no DAMON sysfs (%s)", DAMON);
			return 1;
		}
		return damos_goals_missing(why, len);
	default:
		return 0;
	}
}

/* One kdamond's scheme after the run: its tuned quota and what it did,
 * and the sampling interval the kernel tuned. */
static void damos_report(int k, char *out, size_t len)
{
	char base[96], ctx[64];

	snprintf(ctx, sizeof(ctx), DAMON "/%d/contexts/0", k);
	snprintf(base, sizeof(base), "%s/schemes/0", ctx);
	cp_writef("update_schemes_effective_quotas", DAMON "/%d/state", k);
	cp_writef("update_schemes_stats", DAMON "/%d/state", k);
	cp_writef("update_tuned_intervals", DAMON "/%d/state", k);
	snprintf(out, len, "{\"effective_quota_bytes\":%lld,\"goal_metric_bp\":%lld,"
		 "\"applied_bytes\":%lld,\"tried_bytes\":%lld,\"quota_exceeds\":%lld,"
		 "\"sample_us\":%lld}",
		 cp_read_llf(-1, "%s/quotas/effective_bytes", base),
		 cp_read_llf(-1, "%s/quotas/goals/0/target_value", base),
		 cp_read_llf(-1, "%s/stats/sz_applied", base),
		 cp_read_llf(-1, "%s/stats/sz_tried", base),
		 cp_read_llf(-1, "%s/stats/qt_exceeds", base),
		 cp_read_llf(-1, "%s/monitoring_attrs/intervals/sample_us", ctx));
}

void pw_policy_report(enum pw_policy p, int fast_node, int far_node, char *out, size_t len)
{
	snprintf(out, len, "{}");
	if (p == PW_INTERLEAVE_AUTO) {
		long long wf = cp_read_llf(-1, WI "/node%d", fast_node);
		long long ws = cp_read_llf(-1, WI "/node%d", far_node);

		snprintf(out, len, "{\"weights\":{\"fast\":%lld,\"far\":%lld},"
			 "\"local_share\":%.4f}", wf, ws,
			 wf > 0 && ws > 0 ? (double)wf / (double)(wf + ws) : -1.0);
	} else if (p == PW_DAMON_AUTO) {
		char up[256], down[256];

		damos_report(0, up, sizeof(up));
		damos_report(1, down, sizeof(down));
		snprintf(out, len, "{\"promote\":%s,\"demote\":%s}", up, down);
	}
}

void pw_vmstat_read(struct pw_vmstat *v)
{
	v->migrate_success = cp_vmstat("pgmigrate_success");
	v->migrate_fail = cp_vmstat("pgmigrate_fail");
	v->promote_success = cp_vmstat("pgpromote_success");
	v->demote_kswapd = cp_vmstat("pgdemote_kswapd");
	v->demote_direct = cp_vmstat("pgdemote_direct");
	v->numa_hint_faults = cp_vmstat("numa_hint_faults");
	v->numa_pages_migrated = cp_vmstat("numa_pages_migrated");
}

#define HP_DIR "/sys/devices/system/node/node%d/hugepages/hugepages-2048kB"

/*
 * Pages freed a moment ago sit on the CPUs' free lists, which zoneinfo's
 * free count leaves out: after one policy's child had exited, 19 MB were
 * on them while the zones' own free pages, once the rest was locked, were
 * under the min watermark, and the next child was OOM-killed for a page
 * table (which only the local node's zones can give). They also served
 * the workload's pages on the local node beyond its limit. Asking hugetlb
 * for more pages than the node has drains them: the allocator's
 * direct-reclaim path drains every CPU's lists before its retry. What
 * that got beyond the limit is given back below.
 */
static long long huge_fill(int node)
{
	char v[32];

	snprintf(v, sizeof(v), "%d", 1 << 20);	/* 2 TiB: more than any guest */
	if (cp_writef(v, HP_DIR "/nr_hugepages", node))
		return -1;
	return cp_read_llf(0, HP_DIR "/nr_hugepages", node);
}

/*
 * A fragmentation event (an allocation falling back to a pageblock of
 * another migrate type, as the fill's own hugetlb pages do) raises the
 * zone's watermarks by a pageblock ("boost") until kswapd has run. On a
 * node held to 1.1 MiB above its high watermark that took the room away:
 * once both of damon's attempts were OOM-killed under their MPOL_BIND to
 * the node, with 5.2 MiB free against a min watermark of 6.4 MiB that a
 * 4 MiB boost had raised (pool-policies.t, fresh chroot, 2026-12-03).
 * While the limit holds no boost is made (factor 0), and rewriting the
 * scale factor recomputes every zone's watermarks, which clears a boost
 * already in place.
 */
#define VM_BOOST "/proc/sys/vm/watermark_boost_factor"
#define VM_SCALE "/proc/sys/vm/watermark_scale_factor"
static char boost_before[16];

void pw_limit_save(void)
{
	if (cp_read(VM_BOOST, boost_before, sizeof(boost_before)))
		boost_before[0] = '\0';
}

long long pw_limit_boost_factor(void)
{
	return cp_read_ll(VM_BOOST, -1);
}

static int boost_off(void)
{
	char scale[16];

	if (cp_write(VM_BOOST, "0") || cp_read(VM_SCALE, scale, sizeof(scale)))
		return -1;
	return cp_write(VM_SCALE, scale);
}

int pw_limit_apply(int node, uint64_t keep, long long *reserved, char *err, size_t len)
{
	long long usable, got, rest;
	long long before = cp_read_llf(0, HP_DIR "/nr_hugepages", node);
	char v[32];
	void *hog;

	if (boost_off())
		return fail(err, len, "cannot turn off watermark boosting (%s)", VM_BOOST);
	got = huge_fill(node);
	if (got < 0)
		return fail(err, len, "cannot reserve hugetlb pages on node %d", node);
	usable = usable_free(node);
	if (usable < 0)
		return fail(err, len, "no zoneinfo for node %d", node);
	if (usable < (long long)keep) {
		long long back = ((long long)keep - usable + (2 << 20) - 1) / (2 << 20);

		got = got > back ? got - back : 0;
		snprintf(v, sizeof(v), "%lld", got);
		if (cp_writef(v, HP_DIR "/nr_hugepages", node))
			return fail(err, len, "cannot give back hugetlb pages on node %d", node);
		got = cp_read_llf(0, HP_DIR "/nr_hugepages", node);
		usable = usable_free(node);
	}
	/* The rest, under 2 MiB: locked pages of this process, bound to the
	 * node. */
	rest = usable - (long long)keep;
	if (rest > 0) {
		unsigned long mask = 1ul << node;

		hog = mmap(NULL, (size_t)rest, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (hog == MAP_FAILED ||
		    mbind(hog, (size_t)rest, MPOL_BIND, &mask, sizeof(mask) * 8, 0) ||
		    mlock(hog, (size_t)rest))
			return fail(err, len, "cannot lock %lld bytes on node %d", rest, node);
	}
	*reserved = (got - before) * (2 << 20) + (rest > 0 ? rest : 0);
	return 0;
}

void pw_limit_release(int node)
{
	cp_writef("0", HP_DIR "/nr_hugepages", node);
	if (boost_before[0])
		cp_write(VM_BOOST, boost_before);
}

/*
 * QEMU emulates CXL memory as MMIO, and TCG runs code fetched from there
 * one instruction at a time, translated afresh at each execution: about a
 * thousand times slower in host time (modeled time is not affected, since
 * instruction fetches are not modeled). Reclaim under the local limit
 * demotes cold pages to the CXL node, this program's text among them; a
 * layer sweep whose code had gone there after tpp's run took 25 minutes of
 * host time instead of 10 seconds (gdb: one-instruction translations of
 * its inner loop, over and over). Locked pages are not reclaimed, so not
 * demoted; the program's data comes later, unlocked, from each policy.
 */
int pw_code_lock(void)
{
	return mlockall(MCL_CURRENT);
}

/*
 * The parent's locked text counts to its score as shared memory (tmpfs
 * root): 9.5 MB of it against a child's 6.3 MB, so the OOM killer took
 * the parent first in one CI run. The reservation it would have given
 * back then stayed, and every process started after it was killed too.
 */
#define OOM_SCORE_ADJ "/proc/self/oom_score_adj"

int pw_oom_score(int adj)
{
	char v[16];

	snprintf(v, sizeof(v), "%d", adj);
	return cp_write(OOM_SCORE_ADJ, v);
}

long long pw_oom_score_now(void)
{
	return cp_read_ll(OOM_SCORE_ADJ, -1);
}

/* This process's mapped pages on nodes other than @node (numa_maps). */
static long pages_off(int node)
{
	FILE *f = fopen("/proc/self/numa_maps", "r");
	char word[256];
	long n = 0;

	if (!f)
		return -1;
	while (fscanf(f, "%255s", word) == 1) {
		int k;
		long c;

		if (sscanf(word, "N%d=%ld", &k, &c) == 2 && k != node)
			n += c;
	}
	fclose(f);
	return n;
}

/* Anything a policy moved off @fast_node anyway (DAMON's migrations, say). */
void pw_code_home(int fast_node, long *was_off, long *left_off)
{
	unsigned long from = ~(1ul << fast_node), to = 1ul << fast_node;

	*was_off = pages_off(fast_node);
	if (*was_off > 0 && migrate_pages(0, sizeof(from) * 8, &from, &to) < 0)
		fprintf(stderr, "cxlbed-pool: moving own pages to node %d: %s\n",
			fast_node, strerror(errno));
	*left_off = *was_off > 0 ? pages_off(fast_node) : *was_off;
}
