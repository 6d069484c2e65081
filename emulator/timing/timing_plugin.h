/* SPDX-License-Identifier: MIT */
/*
 * State shared by the plugin's files: the host's model, each vCPU's clock
 * and caches, and the run-time options. One instance, tp.
 */
#ifndef CXLBED_TIMING_PLUGIN_H
#define CXLBED_TIMING_PLUGIN_H

#include <glib.h>

#include "qemu-plugin-api.h"
#include "model_mem.h"
#include "model_share.h"
#include "model_time.h"
#include "roi.h"
#include "shm_links.h"
#include "tm_config.h"

/* Per-vCPU counters the TCG code bumps inline (the scoreboard's element). */
struct vcpu_counts {
	uint64_t insns;		/* instructions in modeled code */
	uint64_t kernel_tbs;	/* blocks run in unmodeled kernel code */
};

struct vcpu {
	struct tm_vclock clk;
	struct tm_cpu_mem mem;
	double next_sync;
	uint64_t beat_ms;	/* host ms of the last check-in */
	uint64_t beat_ktbs;	/* kernel_tbs then */
	uint64_t last_vline;	/* virtual line of the last access + 1 */
	uint64_t repeats;	/* accesses that took the repeat shortcut */
	/*
	 * This vCPU's counters in the scoreboard (stable once every vCPU
	 * exists, as they all do before arming).
	 */
	struct vcpu_counts *cnt;
	/*
	 * The last page translated: virtual page, its physical page, MMIO or
	 * not, and kernel_tbs then. Valid while no kernel code has run since
	 * (no process switch, no remapping).
	 */
	uint64_t page_v, page_p, page_ktbs;
	bool page_io;
	int slot;
};

struct tp_state {
	qemu_plugin_id_t id;
	struct tm_config cfg;
	struct tm_shared *shm;
	struct mf_fabric *fabric;
	struct mf_counters mine[TM_MAX_RES];
	struct tm_host_mem mem;
	struct tm_sync sync;
	struct roi_log log;
	struct qemu_plugin_scoreboard *sb;	/* struct vcpu_counts per vCPU */
	struct vcpu *cpu[TM_MAX_VCPUS];
	GMutex lock;
	int armed;		/* 0 no, 1 requested, 2 instrumented */
	bool never_arm;		/* arm=never: markers time regions, no model */
	bool stores;
	char *report;
	const char *config_path;
	unsigned int sync_timeout_ms;
	uint64_t sync_timeouts;
	uint64_t stale_rejoins;	/* clock jumps after a long silence */
	uint64_t share_waits;	/* see plugin_turn() */
	uint64_t share_ns;	/* slack of the arbitration by modeled time */
	uint64_t reloads;	/* configs read again at run time */
	int hosts;		/* hosts of the run that must arm before any runs */
	bool kernel;		/* model guest kernel code too */
	unsigned int stale_ms;	/* see struct tm_sync */
};

extern struct tp_state tp;

/* plugin_vcpu.c: clocks, the memory callback, halts */
uint64_t insns_of(unsigned int vi);
uint64_t kernel_tbs_of(unsigned int vi);
struct vcpu *vcpu_get(unsigned int vi);
void on_load(unsigned int vi, qemu_plugin_meminfo_t info, uint64_t vaddr,
	     void *udata);
void on_store(unsigned int vi, qemu_plugin_meminfo_t info, uint64_t vaddr,
	      void *udata);
void on_idle(qemu_plugin_id_t id, unsigned int vi);
void on_resume(qemu_plugin_id_t id, unsigned int vi);
void plugin_turn(struct tm_cpu_mem *c, struct mf_target *t, double now);

/* plugin_roi.c: markers, arming, the report */
void on_marker(unsigned int vi, void *udata);
void write_report(void);

/* plugin_reload.c: the config read again (arming; pool LDs bound) */
void plugin_reload_config(void);
void plugin_reload_check(void);		/* at a check-in */
void plugin_reload_free(void);		/* at exit */

/* timing_plugin.c: full instrumentation once armed */
void on_reset(qemu_plugin_id_t id);

#endif
