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
 *                migrate_cold from the local node (6.11+)
 *   libcxlpool   the pooling runtime, through its API
 *
 * System-wide settings (sysctl, sysfs, debugfs) are made by the parent
 * around each child run and undone after it.
 */
#ifndef CXLBED_PW_POLICY_H
#define CXLBED_PW_POLICY_H

#include <stdbool.h>
#include <stdint.h>

enum pw_policy {
	PW_ALL_LOCAL, PW_FIRST_TOUCH, PW_INTERLEAVE, PW_TPP, PW_DAMON,
	PW_LIBCXLPOOL, PW_NPOLICIES
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
};

const char *pw_policy_name(enum pw_policy p);
/* -1 if unknown. */
int pw_policy_parse(const char *name);
/* Does the policy run under the local-capacity limit? */
bool pw_policy_limited(enum pw_policy p);
/*
 * Must the fast node itself be held at the limit? Only where the kernel's
 * tiering reacts to the node's free memory (tpp's demotion, damon's
 * watermarks). The others keep the limit by placement: interleave by its
 * weights, libcxlpool by its budget, first-touch by filling the limit in
 * first-touch order and spilling the rest to the far node.
 */
bool pw_policy_needs_full_node(enum pw_policy p);

void pw_knobs_default(struct pw_kernel_knobs *k);
/* System-wide set-up before the child runs (0, or -1 with a message in
 * @err); teardown restores what setup changed. */
int pw_policy_setup(enum pw_policy p, const struct pw_kernel_knobs *k,
		    int fast_node, int far_node, double local_fraction,
		    char *err, size_t errlen);
void pw_policy_teardown(enum pw_policy p);
/*
 * In the child, once the local limit holds: what should not move pages
 * into the node while it is being filled (damon's kdamonds; migrate_hot
 * would promote between the reading of its free memory and the locking
 * of the rest). The OOM kills seen while filling had another cause (the
 * CPUs' free lists: pw_limit_apply). 0, or -1 with a message in @err.
 */
int pw_policy_start(enum pw_policy p, char *err, size_t errlen);

/* Counters of page movement from /proc/vmstat. */
struct pw_vmstat {
	long long migrate_success, migrate_fail;
	long long promote_success, demote_kswapd, demote_direct;
	long long numa_hint_faults, numa_pages_migrated;
};
void pw_vmstat_read(struct pw_vmstat *v);

/* The local-capacity limit: reserve the fast node's free memory as
 * hugetlb pages (and a locked remainder) so that @keep bytes above its
 * low watermark stay free. Returns the bytes reserved, or -1. */
long long pw_limit_apply(int node, uint64_t keep, char *err, size_t errlen);
/* Give the hugetlb reservation back (the locked remainder goes with the
 * process that made it). */
void pw_limit_release(int node);

/* Physical address range of a node's memory blocks. */
int pw_node_range(int node, uint64_t *start, uint64_t *end);

#endif
