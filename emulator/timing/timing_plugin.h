/* SPDX-License-Identifier: MIT */
/*
 * State shared by the plugin's files: the host's model, each vCPU's clock
 * and caches, and the run-time options. One instance, tp.
 */
#ifndef CXLBED_TIMING_PLUGIN_H
#define CXLBED_TIMING_PLUGIN_H

#include <glib.h>

#include "qemu-plugin-api.h"
#include "clock_dev.h"
#include "model_mem.h"
#include "model_share.h"
#include "model_time.h"
#include "roi.h"
#include "shm_links.h"
#include "tm_config.h"

/* sets of struct vcpu's table of pages translated lately (a power of 2) */
#define TM_SEEN_SETS 64

/*
 * Per-vCPU counters the TCG code bumps inline (the scoreboard's element).
 * The scoreboard is one array, its entries side by side from a base that
 * need not be line-aligned: with 32-byte entries two vCPUs' counters
 * shared a host cache line, written by both at every block (perf: the
 * inline adds were 15% of two streaming vCPUs' samples, against 3% for
 * one). The padding leaves more than a line between any two vCPUs'
 * counters, wherever the array starts.
 */
struct vcpu_counts {
	uint64_t insns;		/* instructions in modeled code */
	uint64_t kernel_tbs;	/* blocks run in unmodeled kernel code */
	uint64_t budget;	/* instructions since the last periodic check */
	uint64_t kernel_insns;	/* of insns, in kernel code (per block) */
	char apart[96];
};

struct vcpu {
	struct tm_vclock clk;
	struct tm_cpu_mem mem;
	double next_sync;
	/* skew waits that held this vCPU, and the host CPU time its thread
	 * spent in them (spinning; asleep costs none), sampled in one wait
	 * of 16 and scaled: what keeping in step costs, in each region's
	 * report */
	uint64_t waits;
	double wait_cpu_ns;
	/*
	 * In a skew wait now (wait_skew): asleep on the host for the model,
	 * not stuck in QEMU, so no wait on it ends as blocked (watch_blocked).
	 */
	bool in_skew_wait;
	uint64_t beat_ms;	/* host ms of the last check-in */
	uint64_t beat_ktbs;	/* kernel_tbs then */
	uint64_t last_vline;	/* virtual line of the last access + 1 */
	/*
	 * Loads [0] and stores [1] that took the repeat shortcut (on_mem):
	 * counted into the accesses of a region's marks (roi_point_of), so
	 * that the shortcut bumps one counter (and repeat_tick, which sends
	 * every 1024th repeat through the model).
	 */
	uint64_t repeats[2];
	uint64_t repeat_tick;
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
	/*
	 * Pages translated lately (by virtual page number, 2-way sets picked
	 * by a hash, so that buffers a multiple of the sets apart do not take
	 * each other's places): where a stream that walks into the next
	 * virtual page expected it in physical memory (plugin_vcpu.c,
	 * page_entered).
	 */
	struct seen_page {
		uint64_t vpage, ppage, ktbs;
	} seen[2 * TM_SEEN_SETS];
	int slot;
	/* guest clock (plugin_clock.c) */
	uint64_t deadline;	/* own modeled ns of the next clock event; ~0: none */
	uint64_t rung;		/* the deadline last raised (lateness figures) */
	uint64_t rung_ms;	/* host ms of that ring */
	double wake_at;		/* a clock event woke it from halt at; <0: none */
	double kicked_at;	/* an IPI woke it from halt at; <0: none */
	double halt_at;		/* own modeled time when it last halted */
	uint64_t kick_ms;	/* host ms of the kick (a safety valve only) */
	uint32_t icr_hi;	/* last APIC ICR high word it stored (destination) */
	uint32_t resumes;	/* times it came back from halt (idle_lock) */
	/* the destination's resumes when the ICR's high word was stored; -1:
	 * none since the last send */
	int64_t icr_dest_resumes;
	bool halted;
	int tid;		/* its host thread (0: not seen yet) */
};

/* Guest clock figures for the report. */
struct clock_stats {
	uint64_t irqs;		/* clock interrupts raised */
	uint64_t handled;	/* ... and seen handled (IRQ marker) */
	uint64_t stray;		/* handled on a vCPU that was not rung */
	double late_sum_ns;	/* modeled time from deadline to handler */
	double late_max_ns;
	uint64_t warps;		/* all vCPUs halted: jumped to the next deadline */
	double warped_ns;
	uint64_t ring_timeouts;	/* QEMU took more than a moment to take a ring */
	uint64_t kick_timeouts;	/* an IPI's target did not wake (host time) */
	uint64_t rerings;	/* a ring that had not woken its vCPU, raised again */
	uint64_t held_reads;	/* reads answered above the vCPU's own clock */
	uint64_t held_max_ns;	/* ... by at most this much */
	uint64_t warp_joins;	/* resumes moved up to a warp's time */
	double warp_join_max_ns;	/* ... by at most this much */
};

struct tp_state {
	qemu_plugin_id_t id;
	struct tm_config cfg;
	struct tm_shared *shm;
	struct mf_fabric *fabric;
	struct tm_host_mem mem;
	struct tm_sync sync;
	struct roi_log log;
	struct qemu_plugin_scoreboard *sb;	/* struct vcpu_counts per vCPU */
	struct vcpu *cpu[TM_MAX_VCPUS];
	GMutex lock;
	int armed;		/* 0 no, 1 requested, 2 instrumented */
	bool never_arm;		/* arm=never: markers time regions, no model */
	bool stores;
	/*
	 * What an armed vCPU pays for (cost=, the overhead benchmark's
	 * ladder): instruction counts only, plus a memory callback that
	 * returns at once, plus the repeat filter and the address
	 * translation of each new line, or the whole model (the default).
	 */
	enum { TP_COST_COUNT, TP_COST_CALLS, TP_COST_LINES, TP_COST_MODEL } cost;
	char *report;
	const char *config_path;
	unsigned int sync_timeout_ms;
	/* false: no vCPU waits for another (make bench's floor only: the
	 * figures then follow the host's scheduling) */
	bool waits;
	uint64_t sync_timeouts;
	uint64_t stale_rejoins;	/* clock jumps after a long silence */
	uint64_t blocked_skips;	/* skew waits ended: the laggard slept in QEMU */
	uint64_t reloads;	/* configs read again at run time */
	int hosts;		/* hosts of the run that must arm before any runs */
	bool kernel;		/* model guest kernel code too */
	unsigned int stale_ms;	/* see struct tm_sync */
	/* guest clock (plugin_clock.c): on when the runner gave clock_fd= */
	bool guest_time;
	struct clock_dev clock;
	int nvcpus;
	uint64_t apic_icr;	/* from the guest: xAPIC ICR, 0: unknown */
	/* earliest deadline of a halted vCPU, ~0: none (clock_check reads it
	 * inline on every access; plugin_clock.c keeps the rest of its state) */
	uint64_t idle_next;
	struct clock_stats cs;
};

extern struct tp_state tp;

/* What a memory callback was registered for. */
enum tp_access { TP_LOAD, TP_STORE, TP_STORE_NT };

/* plugin_vcpu.c: clocks, the memory callback, halts */
uint64_t insns_of(unsigned int vi);
uint64_t kernel_tbs_of(unsigned int vi);
struct vcpu *vcpu_get(unsigned int vi);
void on_load(unsigned int vi, qemu_plugin_meminfo_t info, uint64_t vaddr,
	     void *udata);
void on_store(unsigned int vi, qemu_plugin_meminfo_t info, uint64_t vaddr,
	      void *udata);
void on_store_nt(unsigned int vi, qemu_plugin_meminfo_t info, uint64_t vaddr,
		 void *udata);
void on_mem_nothing(unsigned int vi, qemu_plugin_meminfo_t info,
		    uint64_t vaddr, void *udata);
void on_store_kernel(unsigned int vi, qemu_plugin_meminfo_t info,
		     uint64_t vaddr, void *udata);
uint64_t host_ms(void);
void on_idle(qemu_plugin_id_t id, unsigned int vi);
void on_resume(qemu_plugin_id_t id, unsigned int vi);

/* plugin_clock.c: the guest's clock and timer interrupts in modeled time */
bool clock_install(int sock, int nvcpus, char **err);
void clock_marker(unsigned int vi, int what);
void clock_due(struct vcpu *v, unsigned int vi, double now);
/* A clock event of this vCPU, or of a halted one, is due at @now. */
static inline void clock_check(struct vcpu *v, unsigned int vi, double now)
{
	if ((uint64_t)now >= __atomic_load_n(&v->deadline, __ATOMIC_RELAXED) ||
	    (uint64_t)now >= __atomic_load_n(&tp.idle_next, __ATOMIC_RELAXED))
		clock_due(v, vi, now);
}
void on_budget(unsigned int vi, void *udata);
void clock_idle(struct vcpu *v, unsigned int vi);
double clock_resume(struct vcpu *v, unsigned int vi, double now);
bool clock_skip_store(uint64_t vaddr);
void clock_apic_store(unsigned int vi, uint64_t vaddr, uint64_t value);
/* Instructions between periodic checks (clock events, check-ins). */
#define TP_BUDGET 1024

/* Ring halted vCPUs of this host whose deadline @t has passed. */
void clock_follow(double t);

/* plugin_together.c: the start barrier of `together` workloads */
void together_marker(unsigned int vi, int n);
/* What the start barrier did, for the report (plugin_together.c's own). */
struct together_counts {
	uint64_t waits;		/* arrivals at it */
	uint64_t timeouts;	/* ... that gave up waiting */
	uint64_t unarmed;	/* ... before this host was armed */
	uint64_t held_ns;	/* modeled time the waiters were moved on */
};
const struct together_counts *together_counts(void);

/* plugin_copy.c: copy engines' markers (cxlbed-copy.h) */
extern bool copy_paused[TM_MAX_VCPUS];	/* the program moves bytes: unmodeled */
void copy_marker(unsigned int vi, int what);
const struct copy_stats *copy_stats(void);

/* plugin_share.c: memory shared with other hosts, flushes, stale reads */
extern uint64_t share_lo, share_hi;	/* shared regions' span; 0, 0: none */
void share_config(const struct tm_config *c);	/* each config read */
void share_access(struct vcpu *v, unsigned int vi, uint64_t vaddr,
		  uint64_t pa, bool store, uint64_t pc, double now);
void share_instrument(struct qemu_plugin_insn *insn);	/* flushes */
uint64_t share_flushes_dropped(void);	/* never translated (flush_pending.h) */

/* plugin_roi.c: markers, arming, the report */
void on_marker(unsigned int vi, void *udata);
void write_report(void);

/* plugin_reload.c: the config read again (arming; pool LDs bound) */
void plugin_reload_config(void);
void plugin_reload_check(void);		/* at a check-in */
void plugin_reload_free(void);		/* at exit */

/* plugin_kprof.c: kprof=FILE, the kernel blocks a region's vCPU ran */
void kprof_init(const char *path);
void kprof_instrument(struct qemu_plugin_tb *tb, size_t n);	/* kernel */
void kprof_begin(unsigned int vi);
void kprof_end(unsigned int vi, int id);
void kprof_free(void);

/* timing_plugin.c: full instrumentation once armed */
void on_reset(qemu_plugin_id_t id);

#endif
