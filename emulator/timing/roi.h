/* SPDX-License-Identifier: MIT */
/*
 * Regions of interest: recognising the marker (see cxlbed-roi.h) in
 * translated code, keeping what each vCPU saw between BEGIN and END, and
 * writing the host's report (JSON) for the runner.
 */
#ifndef CXLBED_ROI_PLUGIN_H
#define CXLBED_ROI_PLUGIN_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cxlbed-roi.h"
#include "model_fabric.h"
#include "share_report.h"
#include "model_mem.h"

/* Decode an instruction's bytes; true for a marker, with its op and id. */
bool roi_decode(const uint8_t *insn, size_t len, int *op, int *id);

/*
 * A point in a region: the marking vCPU's modeled time, and what the host
 * (all its vCPUs) has counted so far; a region is the difference. Regions
 * are keyed by id, so a thread that moves to another vCPU between BEGIN
 * and END still closes its region (the clocks agree within the skew).
 */
/* One vCPU's share of a point's counters: who did what in a region. */
struct roi_vcpu {
	uint64_t insns, l2_miss, llc_miss;
	double stall_ns;
};

struct roi_point {
	unsigned int vcpu;
	double t_ns;
	double host_cpu_ns;	/* the marking vCPU thread's host CPU time */
	double wait_cpu_ns;	/* of which in skew waits (struct vcpu) */
	uint64_t waits;		/* the marking vCPU's skew waits */
	uint64_t insns;
	uint64_t kernel_insns;	/* of which in the guest kernel (guest clock) */
	uint64_t clock_irqs;	/* guest clock interrupts raised so far */
	struct tm_mem_stats st;
	struct mf_counters *res;	/* [nres], this host's share */
	unsigned int nvcpus;		/* per_vcpu[] in use */
	struct roi_vcpu per_vcpu[MF_FLOW_SLOTS];	/* TM_MAX_VCPUS */
};

struct roi_record {
	int id;
	struct roi_point begin, end;
};

struct roi_log {
	GMutex lock;
	int nres;
	GArray *open;		/* struct roi_point per id (res == NULL: none) */
	GArray *done;		/* struct roi_record */
};

void roi_log_init(struct roi_log *l, int nres);
void roi_log_clear(struct roi_log *l);
void roi_begin(struct roi_log *l, unsigned int vcpu, int id,
	       const struct roi_point *now);
/* The region @vcpu began last among those open; -1: none. */
int roi_open_on(struct roi_log *l, unsigned int vcpu);
/* False when END comes without a BEGIN of that id. */
bool roi_end(struct roi_log *l, unsigned int vcpu, int id,
	     const struct roi_point *now);

/* The guest clock's figures (plugin_clock.c); on = false: no guest clock. */
/*
 * One vCPU's guest-clock state when the report is written (at exit): what
 * a guest that hung was waiting for.
 */
struct roi_vcpu_clock {
	bool halted;
	bool waking;		/* a ring or an IPI on its way */
	double clock_ns;	/* its modeled clock */
	double deadline_ns;	/* next clock event; <0: none armed */
	double rung_ns;		/* a raised interrupt not yet handled; <0: none */
	double rung_age_ms;	/* host ms since that ring */
};

struct roi_clock_report {
	bool on;
	uint64_t irqs;		/* clock interrupts raised */
	uint64_t handled;	/* ... whose handler ran */
	uint64_t stray;		/* handlers on a vCPU not rung (misrouted) */
	double late_mean_ns;	/* deadline to handler, modeled */
	double late_max_ns;
	uint64_t warps;		/* every vCPU halted: jumped to a deadline */
	double warped_ns;	/* modeled time skipped so */
	uint64_t ring_timeouts;	/* QEMU slow to take an interrupt (host time) */
	uint64_t kick_timeouts;	/* an IPI's target did not wake (host time) */
	uint64_t rerings;	/* a lost clock interrupt raised again */
	uint64_t held_reads;	/* reads held up to another vCPU's time */
	uint64_t held_max_ns;	/* ... by at most this much */
	uint64_t warp_joins;	/* resumes moved up to the host's latest warp */
	double warp_join_max_ns;	/* ... by at most this much */
	const struct roi_vcpu_clock *vcpus;
	int nvcpus;
	double others_ns;	/* slowest clock of the other hosts; <0: none */
};

/* Everything the report needs besides the log. */
struct roi_report_ctx {
	const char *host;
	const struct mf_fabric *fabric;
	const struct mf_res *res;	/* [nres] the shared resources */
	const struct mf_counters *mine;	/* [nres] this host's totals */
	const struct mf_counters *all;	/* [nres] every host's */
	int nres;
	double ns_per_insn;
	uint64_t skew_ns;
	uint64_t sync_timeouts;
	uint64_t stale_rejoins;
	uint64_t blocked_skips;
	bool armed;
	struct roi_clock_report clock;
	uint64_t together_waits;	/* arrivals at the together start barrier */
	uint64_t together_timeouts;	/* ... that gave up */
	uint64_t together_unarmed;	/* ... before the host was armed */
	uint64_t together_held_ns;	/* modeled time waiters were moved on */
	const struct share_report *share;	/* copy engines, stale reads */
};

/* Write the report to @path atomically (temp file + rename). */
bool roi_write_report(struct roi_log *l, const struct roi_report_ctx *ctx,
		      const char *path, char **err);

#endif
