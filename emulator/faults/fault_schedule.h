/* SPDX-License-Identifier: MIT */
/*
 * A scenario's fault schedule (docs/faults.md):
 *
 *   [faults]
 *   seed = 42                 randomised choices come from it (and from
 *                             `cxlbed run --fault-seed N`, which wins)
 *   detect-bound = 100ms      modeled time allowed from a pool node's kill
 *                             to resumed service (a check; default 100ms)
 *
 *   [fault NAME]
 *   kind = kill-pool-node | revoke-capacity | poison | cor-error |
 *          uncor-error | gm-event | dram-event | module-event |
 *          link-degrade | link-flap | random
 *   kinds = poison kill-pool-node ...   (kind = random: draw from these)
 *   at = ... | when = ...  delay = ...   when it fires: the trigger
 *                             grammar every scheduled action shares
 *                             (emulator/schedule/trigger.h)
 *   target = p1 | p1.ld0 | link:p1.ld0 | random
 *   host, offset, length, range, type, log, media-status, health-status,
 *   bandwidth, latency, duration, count, period, signal, remove
 *
 * Parsing checks every key and value (exit 2, FILE:LINE); names, offsets
 * and sizes are checked against the topology by fault_schedule_check
 * (fault_check.c), before anything boots.
 */
#ifndef CXLBED_FAULT_SCHEDULE_H
#define CXLBED_FAULT_SCHEDULE_H

#include "common/cfgfile.h"
#include "topology/topology.h"
#include "schedule/trigger.h"

#include <stdbool.h>
#include <stdint.h>

enum fault_kind {
	FK_KILL_POOL, FK_REVOKE, FK_POISON, FK_COR_ERROR, FK_UNCOR_ERROR,
	FK_GM_EVENT, FK_DRAM_EVENT, FK_MODULE_EVENT, FK_LINK_DEGRADE,
	FK_LINK_FLAP, FK_RANDOM,
	FK_COUNT = FK_RANDOM
};

struct fault_spec {
	char *id;
	enum fault_kind kind;	/* FK_RANDOM: drawn from @kinds */
	unsigned int kinds;	/* bit per fault_kind: candidates for random */
	struct trigger when;	/* at =, when =, delay = (trigger.h) */
	char *target;		/* NULL: the kind's default; "random": drawn */
	char *host;		/* NULL: whichever host holds the target */
	uint64_t offset;	/* poison / events: DPA in the LD */
	bool offset_random;	/* drawn in [0, range) */
	uint64_t length, range;
	char *type;		/* cor-error / uncor-error QMP type */
	char *log;		/* events: informational warning failure fatal */
	int media_status;	/* module-event: CXL media status (3: all data lost) */
	int health_status;	/* module-event: health status bits */
	double bandwidth;	/* link-degrade: x bandwidth (0 < k <= 1) */
	double latency_ns;	/* link-degrade: + latency per access */
	double duration_s;	/* link-degrade: how long (0: to the end);
				 * link-flap: how long each time down */
	int count;		/* link-flap: times */
	double period_s;	/* link-flap: from one down to the next */
	bool signal;		/* link faults: also a correctable error */
	bool remove;		/* kill-pool-node: surprise-remove its LDs (off,
				 * the default: they stay attached, media dead;
				 * docs/faults.md, "Pitfalls") */
	struct cb_src src;	/* the [fault NAME] line */
	/* Where each key was: the checks against the topology name the key's
	 * line (0: not given; the section's line stands for it). */
	struct {
		int kind, at, when, target, host, offset, length, range;
	} line;
};

struct fault_schedule {
	uint64_t seed;
	bool seed_given;
	double detect_bound_s;	/* modeled */
	GPtrArray *specs;	/* struct fault_spec * */
	struct cb_src src;	/* the [faults] section, or the first [fault] */
	char *file;		/* the scenario's path: what every src points to */
};

struct fault_schedule *fault_schedule_new(void);
void fault_schedule_free(struct fault_schedule *s);

bool fault_schedule_parse_faults(struct fault_schedule *s, const struct cfg_file *f,
				 const struct cfg_section *sec, GError **error);
bool fault_schedule_parse_fault(struct fault_schedule *s, const struct cfg_file *f,
				const struct cfg_section *sec, GError **error);
/*
 * fault_check.c: against the topology and the scenario, as `cxlbed run`
 * and `cxlbed plan` check a scenario before anything starts (and a sweep
 * each of its points): faults have a fabric manager (a lending pool);
 * each target exists (a lending pool, one of its LDs, or a timing
 * resource a run of @t has: link:, media:, bridge:) and fits the kind;
 * host = is a host the target's LDs are lent to; an offset, length and
 * range fit in every LD the fault may hit; phases name workloads
 * (@has_workload); link and written: faults have the timing model
 * (@timing). An input error names FILE:LINE of the offending key.
 */
bool fault_schedule_check(const struct fault_schedule *s, const struct cb_topology *t,
			  bool timing, bool (*has_workload)(const void *ctx, const char *id),
			  const void *ctx, GError **error);
bool fault_spec_check(const struct fault_spec *x, const struct cb_topology *t,
		      bool timing, bool (*has_workload)(const void *ctx, const char *id),
		      const void *ctx, GError **error);
/* The timing resources a run of @t may model, sorted (caller unrefs):
 * every device's path, and every LD's on each port it may be bound to. */
GPtrArray *fault_timing_resources(const struct cb_topology *t);

const char *fault_kind_name(enum fault_kind k);
/* -1 when @name is no kind. */
int fault_kind_parse(const char *name);
/* Kinds a target of this sort can take. */
bool fault_kind_targets_pool(enum fault_kind k);	/* kill-pool-node */
bool fault_kind_is_link(enum fault_kind k);

/* Random choices come from the schedule's generator (sched_rng_*,
 * trigger.h), a stream of its own per fault. */
/*
 * A random offset in an LD for `offset = random`: past the first page (a
 * runtime's canary) and short of @range's last, aligned down to @align;
 * the largest it can be, for the checks against the topology.
 */
uint64_t fault_rng_offset(uint64_t *state, uint64_t range, uint64_t align);
uint64_t fault_rng_offset_max(uint64_t range);

#endif
