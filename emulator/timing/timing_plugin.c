// SPDX-License-Identifier: MIT
/*
 * cxlbed timing model, as a QEMU TCG plugin. Usage:
 *   -plugin libcxlbed-timing.so,config=FILE[,report=FILE][,shm=/NAME]
 *           [,arm=marker|boot|never][,stores=on|off][,sync_timeout_ms=N]
 *           [,hosts=N][,kernel=on|off][,stale_ms=N][,kprof=FILE]
 *           [,waits=on|off]
 *
 * Until the guest executes its first marker (cxlbed-roi.h) only the
 * markers are watched, so boot runs at plain TCG speed and stores that
 * remap memory during boot never reach the memory callback (querying
 * their address then can abort QEMU). The first marker resets the plugin
 * with full instrumentation: every load and store goes through the cache
 * and fabric model, and each vCPU keeps a modeled clock.
 */
#include <stdlib.h>
#include <string.h>

#include <stddef.h>

#include "insn_class.h"
#include "timing_plugin.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = CXLBED_PLUGIN_API_VERSION;

struct tp_state tp;

/* Clock markers other than HELLO (which arms, through on_marker). */
static void on_clock_marker(unsigned int vi, void *udata)
{
	clock_marker(vi, (uintptr_t)udata & 0xfff);
}

/* Copy engines' markers read %rax (cxlbed-copy.h). */
static void on_copy_marker(unsigned int vi, void *udata)
{
	copy_marker(vi, (uintptr_t)udata & 0xfff);
}

static void register_marker(struct qemu_plugin_insn *insn, int op, int id)
{
	if (op == CXLBED_ROI_COPY)
		qemu_plugin_register_vcpu_insn_exec_cb(
			insn, on_copy_marker, QEMU_PLUGIN_CB_R_REGS,
			(void *)(uintptr_t)id);
	else if (op == CXLBED_ROI_CLOCK && id != CXLBED_CLK_HELLO)
		qemu_plugin_register_vcpu_insn_exec_cb(
			insn, on_clock_marker, QEMU_PLUGIN_CB_NO_REGS,
			(void *)(uintptr_t)id);
	else
		qemu_plugin_register_vcpu_insn_exec_cb(
			insn, on_marker, QEMU_PLUGIN_CB_NO_REGS,
			(void *)(uintptr_t)((op << 12) | id));
}

static bool insn_is_marker(struct qemu_plugin_insn *insn, int *op, int *id)
{
	uint8_t b[8];

	return qemu_plugin_insn_size(insn) == sizeof(b) &&
	       qemu_plugin_insn_data(insn, b, sizeof(b)) == sizeof(b) &&
	       roi_decode(b, sizeof(b), op, id);
}

/* What instrument() needs to know of each instruction, read once. */
struct insn_info {
	int op, id;		/* a marker's */
	bool marker;
	bool stops;		/* may stop its block early (insn_class.h) */
	bool nt_store;		/* a non-temporal store */
};

/*
 * Each instruction's marker, and with @text (the disassembly: what
 * counting and memory instrumentation need) its class.
 */
static void classify(struct qemu_plugin_tb *tb, size_t n, bool text,
		     struct insn_info *info)
{
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		struct insn_info *f = &info[i];
		char *t;

		*f = (struct insn_info){ 0 };
		f->marker = insn_is_marker(insn, &f->op, &f->id);
		if (!text || f->marker) {
			f->stops = true;
			continue;
		}
		t = qemu_plugin_insn_disas(insn);
		f->stops = insn_text_may_stop_block(t);
		f->nt_store = insn_text_is_nontemporal_store(t);
		g_free(t);
	}
}

/*
 * Where each run of instructions counted by one inline add ends: at an
 * instruction that may stop the block early, before a marker (whose
 * callback must see the count up to it), at the block's end. Counted at
 * a run's first instruction, a block that stops early counts exactly
 * what per-instruction adds did: the instructions up to and including
 * the one it stopped at. A read loop of four instructions takes two adds
 * instead of four. ends[i]: the last instruction of the run that
 * instruction i starts (meaningful where a run starts).
 */
static void count_runs(const struct insn_info *info, size_t n, size_t *ends)
{
	for (size_t i = n; i-- > 0;)
		ends[i] = info[i].stops || i + 1 == n || info[i + 1].marker ?
			  i : ends[i + 1];
}

/* Find markers; with @full, also count instructions and model memory. */
static void instrument(struct qemu_plugin_tb *tb, bool full)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	qemu_plugin_u64 insns = { .score = tp.sb,
				  .offset = offsetof(struct vcpu_counts, insns) };
	qemu_plugin_u64 ktbs = { .score = tp.sb,
				 .offset = offsetof(struct vcpu_counts, kernel_tbs) };
	qemu_plugin_u64 budget = { .score = tp.sb,
				   .offset = offsetof(struct vcpu_counts, budget) };
	qemu_plugin_u64 kinsns = { .score = tp.sb,
				   .offset = offsetof(struct vcpu_counts, kernel_insns) };
	bool kernel = (int64_t)qemu_plugin_tb_vaddr(tb) < 0;
	bool count = full, memory = full;
	size_t ends[n ? n : 1], next_run = 0;
	struct insn_info info[n ? n : 1];

	if (full && kernel && !tp.guest_time && !tp.kernel) {
		/*
		 * Without the guest clock, kernel code (upper half) runs timer
		 * ticks at host real-time rate: a slower host runs more of
		 * them. kernel=off leaves it unmodeled, counted apart (was a
		 * silent vCPU in the kernel? see sync_point).
		 */
		qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(
			tb, QEMU_PLUGIN_INLINE_ADD_U64, ktbs, 1);
		count = memory = false;
	}
	if (full && kernel && tp.guest_time && !tp.kernel)
		memory = false;	/* the clock still counts its instructions */
	if (full && tp.guest_time) {
		/* periodic check: clock events and check-ins (on_budget) */
		qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(
			tb, QEMU_PLUGIN_INLINE_ADD_U64, budget, n);
		qemu_plugin_register_vcpu_tb_exec_cond_cb(
			tb, on_budget, QEMU_PLUGIN_CB_NO_REGS,
			QEMU_PLUGIN_COND_GE, budget, TP_BUDGET, NULL);
		if (kernel) {	/* how much of a region the kernel took */
			qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(
				tb, QEMU_PLUGIN_INLINE_ADD_U64, kinsns, n);
			kprof_instrument(tb, n);	/* ... and where */
		}
	}
	/* memory instrumentation implies counting: count covers both */
	classify(tb, n, count, info);
	if (count)
		count_runs(info, n, ends);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (info[i].marker)
			register_marker(insn, info[i].op, info[i].id);
		/*
		 * Count per run (count_runs), not per block: a block that
		 * touches MMIO (CXL memory) can stop after that access, and a
		 * count taken at block entry would then include instructions
		 * that run again in the next block (seen: 7 counted for 4 run).
		 */
		if (count && i == next_run) {
			qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(
				insn, QEMU_PLUGIN_INLINE_ADD_U64, insns,
				ends[i] - i + 1);
			next_run = ends[i] + 1;
		}
		if (!memory || tp.cost == TP_COST_COUNT)
			continue;
		if (tp.cost == TP_COST_CALLS) {
			qemu_plugin_register_vcpu_mem_cb(insn, on_mem_nothing,
							 QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_RW, NULL);
			continue;
		}
		/* the instruction's address: a stale read's call site */
		void *pc = (void *)(uintptr_t)qemu_plugin_insn_vaddr(insn);

		if (share_hi)
			share_instrument(insn);
		qemu_plugin_register_vcpu_mem_cb(insn, on_load,
						 QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_R, pc);
		if (tp.stores)
			qemu_plugin_register_vcpu_mem_cb(
				insn, kernel && tp.guest_time ? on_store_kernel :
				info[i].nt_store ? on_store_nt : on_store,
				QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_W, pc);
	}
}

static void on_tb_markers(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	instrument(tb, false);
}

static void on_tb_full(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	instrument(tb, true);
}

static void on_atexit(qemu_plugin_id_t id, void *udata)
{
	write_report();
	for (int i = 0; i < TM_MAX_VCPUS; i++)
		if (tp.cpu[i])
			tm_sync_stop(&tp.sync, tp.cpu[i]->slot);
	plugin_reload_free();
	kprof_free();
}

static void register_full(qemu_plugin_id_t id)
{
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_full);
	qemu_plugin_register_vcpu_idle_cb(id, on_idle);
	qemu_plugin_register_vcpu_resume_cb(id, on_resume);
	qemu_plugin_register_atexit_cb(id, on_atexit, NULL);
	__atomic_store_n(&tp.armed, 2, __ATOMIC_RELEASE);
	if (tp.guest_time)	/* the guest's clock module waits for this */
		__atomic_store_n(&tp.clock.page->armed, 1, __ATOMIC_RELEASE);
}

void on_reset(qemu_plugin_id_t id)
{
	register_full(id);
}

static int fail(const char *fmt, const char *what)
{
	g_autofree char *msg = g_strdup_printf(fmt, what);

	qemu_plugin_outs(msg);
	return -1;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info, int argc,
					   char **argv)
{
	const char *config = NULL, *report = NULL, *shm = NULL;
	bool arm_boot = false, kernel_set = false;
	int clock_fd = -1;
	char *err = NULL;

	tp.id = id;
	tp.stores = true;
	tp.cost = TP_COST_MODEL;
	tp.kernel = false;	/* see instrument() */
	tp.sync_timeout_ms = 2000;
	tp.waits = true;
	tp.stale_ms = 200;
	g_mutex_init(&tp.lock);
	for (int i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		g_autofree char *key = eq ? g_strndup(argv[i], eq - argv[i]) :
					    g_strdup(argv[i]);
		const char *val = eq ? eq + 1 : "";

		if (!strcmp(key, "config"))
			config = val;
		else if (!strcmp(key, "report"))
			report = val;
		else if (!strcmp(key, "shm"))
			shm = val;
		else if (!strcmp(key, "arm")) {
			arm_boot = !strcmp(val, "boot");
			tp.never_arm = !strcmp(val, "never");
		}
		else if (!strcmp(key, "cost")) {
			if (!strcmp(val, "count"))
				tp.cost = TP_COST_COUNT;
			else if (!strcmp(val, "calls"))
				tp.cost = TP_COST_CALLS;
			else if (!strcmp(val, "lines"))
				tp.cost = TP_COST_LINES;
			else if (!strcmp(val, "model"))
				tp.cost = TP_COST_MODEL;
			else
				return fail("cxlbed-timing: bad cost=%s (count, calls, lines or model)\n", val);
		} else if (!strcmp(key, "stores")) {
			if (!qemu_plugin_bool_parse(key, val, &tp.stores))
				return fail("cxlbed-timing: bad stores=%s\n", val);
		} else if (!strcmp(key, "kernel")) {
			if (!qemu_plugin_bool_parse(key, val, &tp.kernel))
				return fail("cxlbed-timing: bad kernel=%s\n", val);
			kernel_set = true;
		} else if (!strcmp(key, "waits")) {
			if (!qemu_plugin_bool_parse(key, val, &tp.waits))
				return fail("cxlbed-timing: bad waits=%s\n", val);
		} else if (!strcmp(key, "clock_fd"))
			clock_fd = atoi(val);
		else if (!strcmp(key, "hosts"))
			tp.hosts = atoi(val);
		else if (!strcmp(key, "sync_timeout_ms"))
			tp.sync_timeout_ms = atoi(val);
		else if (!strcmp(key, "stale_ms"))
			tp.stale_ms = atoi(val);
		else if (!strcmp(key, "kprof"))
			kprof_init(val);
		else
			return fail("cxlbed-timing: unknown option %s\n", argv[i]);
	}
	if (!info->system_emulation)
		return fail("cxlbed-timing: %s\n", "needs system emulation");
	if (!config)
		return fail("cxlbed-timing: %s\n", "config=FILE is required");
	tp.config_path = config;
	if (clock_fd >= 0) {
		/*
		 * The guest clock: everything the guest runs is counted, so no
		 * vCPU is ever silent for long and host time decides nothing.
		 */
		if (!clock_install(clock_fd, info->system.smp_vcpus, &err))
			return fail("cxlbed-timing: %s\n", err);
		tp.stale_ms = 0;
		if (!kernel_set)
			tp.kernel = true;
	}
	if (!tm_config_load(config, &tp.cfg, &err))
		return fail("cxlbed-timing: %s\n", err);
	/* one vCPU, one host: nobody to lock the model's shared parts against */
	tp.cfg.solo = tp.hosts <= 1 && info->system.smp_vcpus <= 1;
	tp.shm = tm_shared_open(shm ? shm : tp.cfg.shm, &err);
	if (!tp.shm)
		return fail("cxlbed-timing: %s\n", err);
	tp.fabric = tm_fabric_build(&tp.cfg, tp.shm, &err);
	if (!tp.fabric)
		return fail("cxlbed-timing: %s\n", err);
	share_config(&tp.cfg);
	if (!tm_host_mem_init(&tp.mem, &tp.cfg.mem, tp.fabric))
		return fail("cxlbed-timing: %s\n", "cache geometry unusable");
	tp.mem.solo = tp.cfg.solo;
	/* shares set per epoch, from epochs every running vCPU has left */
	mf_epoch_ns = 2.0 * (double)tp.cfg.skew_ns;
	tm_shared_sync(tp.shm, &tp.sync, tp.cfg.skew_ns, tp.stale_ms);
	/*
	 * More vCPUs running than host cores: a waiter that spins keeps the
	 * one it waits for off the core (four vCPUs streaming on two cores:
	 * 111-131 s spinning, 89 s asleep at once), so it sleeps at once.
	 * Counted at each wait (tm_sync_sleep_on), not from -smp: two of four
	 * vCPUs streaming while the others idle spin, as they must on a
	 * quiet host (a futex sleep per skew wait cost them 4x one vCPU).
	 */
	tp.sync.cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
	roi_log_init(&tp.log, TM_MAX_RES);
	tp.report = g_strdup(report ? report : tp.cfg.report ? tp.cfg.report :
			     "cxlbed-timing.json");
	tp.sb = qemu_plugin_scoreboard_new(sizeof(struct vcpu_counts));
	if (arm_boot) {
		register_full(id);
	} else {
		qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_markers);
		qemu_plugin_register_atexit_cb(id, on_atexit, NULL);
	}
	return 0;
}
