/* SPDX-License-Identifier: MIT */
/*
 * Tiering policies a pooling workload runs under (docs/pooling.md):
 *
 *   all-local    everything on the local node, no capacity limit
 *   first-touch  Linux's default: a page lands where it is first touched
 *   interleave   weighted interleave (MPOL_WEIGHTED_INTERLEAVE), weights
 *                local:CXL = the local fraction : the rest
 *   tpp          the kernel's own tiering: numa_balancing=2 (promotion on
 *                hint faults) + demotion on reclaim (TPP's upstream form)
 *   damon        DAMON on physical memory: migrate_hot from the CXL node,
 *                migrate_cold from the local node (6.11+), promotion held
 *                to the local node's room (damon_gov.c)
 *   libcxlpool   the pooling runtime, through its API
 *   interleave-auto  weighted interleave with the weights the kernel
 *                derives from each node's bandwidth (weighted_interleave/
 *                auto, Linux 6.16+) until the local limit is used, the
 *                rest on the CXL node
 *   damon-auto   DAMON migrate_hot/migrate_cold with quotas the kernel
 *                tunes toward goals on the local node's use (used and
 *                free, in basis points) and the young filter, as the
 *                kernel's samples/damon/mtier.c does it (Linux 6.16+)
 *
 * The last two need a newer kernel than 6.12: where the running kernel
 * lacks them they are listed as unavailable, with the reason, and not run
 * (pw_policy_unavailable).
 *
 * System-wide settings (sysctl, sysfs, debugfs) are made by the parent
 * around each child run and undone after it.
 */
#ifndef CXLBED_PW_POLICY_H
#define CXLBED_PW_POLICY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum pw_policy {
	PW_ALL_LOCAL, PW_FIRST_TOUCH, PW_INTERLEAVE, PW_TPP, PW_DAMON,
	PW_LIBCXLPOOL, PW_INTERLEAVE_AUTO, PW_DAMON_AUTO, PW_NPOLICIES
};

/* Time constants for the time-driven kernel policies, in guest time
 * (modeled time once the guest clock is): docs/pooling.md says why they
 * are scaled down from the kernel's defaults. */
struct pw_kernel_knobs {
	unsigned scan_delay_ms, scan_period_min_ms, scan_period_max_ms;
	unsigned hot_threshold_ms;
	unsigned damon_sample_us, damon_aggr_us, damon_update_us;
	unsigned damon_hot_pct;		/* nr_accesses, % of samples */
	unsigned damon_cold_age;	/* aggregation intervals */
	/* each scheme's quota: at most this many bytes, and this much of its
	 * kdamond's time, per reset interval */
	unsigned damon_quota_mb, damon_quota_ms, damon_quota_reset_ms;
	/* damon-auto's quota goals on the local node: used and free, in
	 * basis points of its memory; 0: from the node as the run starts,
	 * its data placed (policy.c, damon_auto_goals; mtier.c's 9970 and
	 * 50, 0.3% and 0.5% of a node, are more than this guest's whole
	 * local limit) */
	unsigned damon_auto_used_bp, damon_auto_free_bp;
	unsigned damon_auto_reset_ms;	/* its quotas' window (the goal's step) */
};

const char *pw_policy_name(enum pw_policy p);
/* -1 if unknown. */
int pw_policy_parse(const char *name);
/* Does the policy run under the local-capacity limit? */
bool pw_policy_limited(enum pw_policy p);
/*
 * Must the fast node itself be held at the limit? Only where the kernel's
 * tiering reacts to the node's free memory (tpp's demotion, damon's
 * watermarks). damon-auto's goals hold it themselves. The others keep
 * the limit by placement: interleave by its weights, libcxlpool by its budget,
 * first-touch by filling the limit in first-touch order and spilling the
 * rest to the far node, interleave-auto by the kernel's weights until the
 * limit is used, the rest on the far node.
 */
bool pw_policy_needs_full_node(enum pw_policy p);

void pw_knobs_default(struct pw_kernel_knobs *k);
/* "NAME=VALUE", NAME as the output's "knobs" names it: 0, or -1 for an
 * unknown name or a value that is not a whole number. */
int pw_knob_set(struct pw_kernel_knobs *k, const char *name_eq_value);
/* The knobs as one JSON object, by those names. */
void pw_knobs_json(FILE *f, const struct pw_kernel_knobs *k);
/* System-wide set-up before the child runs (0, or -1 with a message in
 * @err); teardown restores what setup changed. */
int pw_policy_setup(enum pw_policy p, const struct pw_kernel_knobs *k,
		    int fast_node, int far_node, double local_fraction,
		    char *err, size_t errlen);
void pw_policy_teardown(enum pw_policy p);
/*
 * Does the running kernel lack what @p needs? 1 with the reason in @why
 * (then @p is listed, not run), 0 when it has it.
 */
int pw_policy_unavailable(enum pw_policy p, char *why, size_t len);
/*
 * What the kernel made of the policy, as a JSON object for the policy's
 * result ("{}" when nothing): interleave-auto's weights, damon-auto's
 * tuned quotas and what each scheme applied. Read after the run, before
 * the teardown.
 */
void pw_policy_report(enum pw_policy p, int fast_node, int far_node, char *out, size_t len);
/*
 * In the child, once the local limit holds and the workload's data is
 * placed: what must not move pages into the node before then (damon's
 * kdamonds and their promotion governor). migrate_hot promoting while the
 * data was placed took the room meant for its local share, and the
 * share's allocation, bound to the node, was OOM-killed
 * (docs/pooling.md, "damon"). 0, or -1 with a message in @err.
 */
int pw_policy_start(enum pw_policy p, int fast_node, char *err, size_t errlen);

/* damon's promotion governor (damon_gov.c), started by pw_policy_start:
 * what it did over the run. */
struct pw_damon_gov_stats {
	unsigned long long checks;	/* readings of the node's free pages */
	unsigned long long commits;	/* quota changes committed */
	unsigned long long closed;	/* readings that found no room */
	unsigned long long failed;	/* commits the kernel refused */
	double latency_ms;		/* longest quota commit */
	long long lowest_room;		/* least free memory seen above the
					 * node's high watermarks, bytes (< 0:
					 * under them) */
};
/* Before kdamond @kdamond starts: write its first scheme's quota
 * (migrate_hot into @node) for the node's room above its high watermark;
 * @usable_bytes is that room now, as zoneinfo gives it, @cap the
 * scheme's configured quota and @window_ms its charge window. */
int pw_damon_gov_prepare(int node, int kdamond, unsigned long long cap,
			 long long usable_bytes, unsigned window_ms);
/* Once it runs: keep the quota to the room, from a thread. */
int pw_damon_gov_start(void);
/* Stop it (if running) and say what it did. */
void pw_damon_gov_stop(struct pw_damon_gov_stats *st);

/* Counters of page movement from /proc/vmstat. */
struct pw_vmstat {
	long long migrate_success, migrate_fail;
	long long promote_success, demote_kswapd, demote_direct;
	long long numa_hint_faults, numa_pages_migrated;
};
void pw_vmstat_read(struct pw_vmstat *v);

/* The local-capacity limit: reserve the fast node's free memory as
 * hugetlb pages (and a locked remainder) so that @keep bytes above its
 * high watermark stay free. Sets *@reserved to the bytes this call added
 * (a second call tops the reservation up, or gives some back when less
 * is free: then it is negative). Returns 0, or -1 with @err set. */
int pw_limit_apply(int node, uint64_t keep, long long *reserved, char *err, size_t errlen);
/* The kernel's watermark boosting as it is now, before any policy runs:
 * the limit turns it off while it holds, pw_limit_release puts it back. */
void pw_limit_save(void);
/* vm.watermark_boost_factor now (0 while the limit holds), -1 unreadable. */
long long pw_limit_boost_factor(void);
/* Give the hugetlb reservation back (the locked remainder goes with the
 * process that made it), and the boosting. */
void pw_limit_release(int node);

/*
 * Keep this program's own pages (its code above all) on @fast_node: lock
 * what is mapped now, once, and move back whatever a policy moved away.
 * pw_code_home says how many pages it found elsewhere and how many it
 * left there (-1: numa_maps unreadable).
 */
int pw_code_lock(void);
void pw_code_home(int fast_node, long *was_off, long *left_off);

/*
 * Whom the OOM killer takes when a filled node runs dry: never the parent
 * (it holds the hugetlb reservation to give back, and every policy's
 * result), first the policy's child. @adj goes to /proc/self/oom_score_adj.
 */
int pw_oom_score(int adj);
/* This process's oom_score_adj as read back (-1 when unreadable). */
long long pw_oom_score_now(void);

/* Physical address range of a node's memory blocks. */
int pw_node_range(int node, uint64_t *start, uint64_t *end);

#endif
