// SPDX-License-Identifier: MIT
/*
 * Markers: the first one arms the model (re-reading the config, waiting
 * for the run's other hosts); BEGIN/END/DUMP feed the ROI log and report.
 */
#include <string.h>
#include <time.h>

#include "timing_plugin.h"

/* Each vCPU's clock state, for the report (racy reads are fine: at exit). */
static int clock_state(struct roi_vcpu_clock *out)
{
	uint64_t now_ms = host_ms();
	int n = 0;

	for (int i = 0; i < tp.nvcpus; i++) {
		struct vcpu *v = tp.cpu[i];
		uint64_t rung;

		if (!v)
			continue;
		rung = __atomic_load_n(&v->rung, __ATOMIC_RELAXED);
		out[n++] = (struct roi_vcpu_clock){
			.halted = v->halted,
			.waking = v->wake_at >= 0 || v->kicked_at >= 0,
			.clock_ns = tm_now(&v->clk, insns_of(i)),
			.deadline_ns = v->deadline == UINT64_MAX ? -1 : (double)v->deadline,
			.rung_ns = rung == UINT64_MAX ? -1 : (double)rung,
			.rung_age_ms = rung == UINT64_MAX ? 0 : (double)(now_ms - v->rung_ms),
		};
	}
	return n;
}

/* What each resource moved for this host (@host_only) or every host. */
static int res_counters(struct mf_counters *out, bool host_only)
{
	int n = __atomic_load_n(&tp.shm->nres, __ATOMIC_ACQUIRE);

	for (int i = 0; i < n; i++)
		mf_res_counters(&tp.shm->res[i], host_only ? tp.cfg.host_index : -1,
				&out[i]);
	return n;
}

void write_report(void)
{
	struct mf_counters mine[TM_MAX_RES], all[TM_MAX_RES];
	struct roi_vcpu_clock vcpus[TM_MAX_VCPUS];
	int nvcpus = tp.guest_time && tp.armed == 2 ? clock_state(vcpus) : 0;
	int nres = res_counters(mine, true);
	struct roi_report_ctx ctx;
	struct share_report share = {
		.host = tp.cfg.host_index, .copy = copy_stats(),
		.engines = &tp.shm->copy, .stale = &tp.shm->stale,
		.shared = share_hi ? "shared regions" : NULL,
		.flushes_dropped = share_flushes_dropped(),
	};

	res_counters(all, false);
	ctx = (struct roi_report_ctx){
		.host = tp.cfg.host, .fabric = tp.fabric, .res = tp.shm->res,
		.mine = mine, .all = all, .nres = nres,
		.ns_per_insn = tp.cfg.ns_per_insn, .skew_ns = tp.cfg.skew_ns,
		.sync_timeouts = tp.sync_timeouts,
		.stale_rejoins = tp.stale_rejoins,
		.blocked_skips = tp.blocked_skips,
		.armed = tp.armed == 2,
		.together_waits = together_counts()->waits,
		.together_timeouts = together_counts()->timeouts,
		.together_unarmed = together_counts()->unarmed,
		.together_held_ns = together_counts()->held_ns,
		.share = &share,
		.clock = {
			.on = tp.guest_time, .irqs = tp.cs.irqs,
			.handled = tp.cs.handled, .stray = tp.cs.stray,
			.late_mean_ns = tp.cs.handled ?
				tp.cs.late_sum_ns / tp.cs.handled : 0,
			.late_max_ns = tp.cs.late_max_ns,
			.warps = tp.cs.warps, .warped_ns = tp.cs.warped_ns,
			.ring_timeouts = tp.cs.ring_timeouts,
			.kick_timeouts = tp.cs.kick_timeouts,
			.rerings = tp.cs.rerings,
			.held_reads = tp.cs.held_reads,
			.held_max_ns = tp.cs.held_max_ns,
			.warp_joins = tp.cs.warp_joins,
			.warp_join_max_ns = tp.cs.warp_join_max_ns,
			.vcpus = vcpus, .nvcpus = nvcpus,
			.others_ns = tp.guest_time && tp.armed == 2 ?
				tm_sync_min_outside(&tp.sync, tp.cfg.host_index * TM_MAX_VCPUS,
						    TM_MAX_VCPUS) : -1,
		},
	};
	char *err = NULL;

	if (!roi_write_report(&tp.log, &ctx, tp.report, &err)) {
		g_autofree char *msg = g_strdup_printf("cxlbed-timing: %s\n", err);

		qemu_plugin_outs(msg);
		g_free(err);
	}
}

static void add_stats(struct tm_mem_stats *a, const struct tm_mem_stats *b)
{
	a->accesses += b->accesses;
	a->loads += b->loads;
	a->stores += b->stores;
	a->l1_miss += b->l1_miss;
	a->l2_miss += b->l2_miss;
	a->llc_miss += b->llc_miss;
	for (int i = 0; i < 2; i++) {
		a->mem_reads[i] += b->mem_reads[i];
		a->mem_writes[i] += b->mem_writes[i];
	}
	a->prefetches += b->prefetches;
	a->page_hops += b->page_hops;
	a->hop_lines += b->hop_lines;
	a->hops_refused += b->hops_refused;
	a->runon_refetched += b->runon_refetched;
	a->snoop_hits += b->snoop_hits;
	a->invalidations += b->invalidations;
	a->nt_stores += b->nt_stores;
	a->mmio_lines += b->mmio_lines;
	a->stall_ns += b->stall_ns;
}

/* Counters are summed over the host's vCPUs (racy reads are fine here). */
static void roi_point_of(struct vcpu *v, unsigned int vi, struct roi_point *p,
			 struct mf_counters *mine)
{
	struct timespec cpu;

	memset(p, 0, sizeof(*p));
	p->vcpu = vi;
	p->t_ns = tm_now(&v->clk, insns_of(vi));
	/* what the emulation cost, for the overhead benchmark */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
	p->host_cpu_ns = cpu.tv_sec * 1e9 + cpu.tv_nsec;
	p->wait_cpu_ns = v->wait_cpu_ns;
	p->waits = v->waits;
	for (int i = 0; i < TM_MAX_VCPUS; i++) {
		struct vcpu *o = __atomic_load_n(&tp.cpu[i], __ATOMIC_ACQUIRE);

		if (!o)
			continue;
		p->insns += insns_of(i);
		p->kernel_insns += ((struct vcpu_counts *)
				    qemu_plugin_scoreboard_find(tp.sb, i))->kernel_insns;
		add_stats(&p->st, &o->mem.st);
		p->st.accesses += o->repeats[0] + o->repeats[1];
		p->st.loads += o->repeats[0];
		p->st.stores += o->repeats[1];
		p->per_vcpu[i] = (struct roi_vcpu){
			.insns = insns_of(i), .l2_miss = o->mem.st.l2_miss,
			.llc_miss = o->mem.st.llc_miss, .stall_ns = o->mem.st.stall_ns,
		};
		p->nvcpus = i + 1;
	}
	res_counters(mine, true);
	p->res = mine;	/* roi_begin and roi_end keep a copy */
	p->clock_irqs = tp.cs.irqs;
}

/*
 * Hosts boot at different speeds; with hosts=N every host's modeled time
 * starts only once all N have reached their first marker, so that their
 * workloads overlap in modeled time from the start.
 */
static void wait_for_hosts(void)
{
	struct timespec pause = { 0, 1000000 };
	int ms = 0;

	while (__atomic_load_n(&tp.shm->armed_hosts, __ATOMIC_ACQUIRE) <
	       tp.hosts && ms++ < 300000)
		nanosleep(&pause, NULL);
}

void on_marker(unsigned int vi, void *udata)
{
	int op = ((uintptr_t)udata >> 12) & 0xf, id = (uintptr_t)udata & 0xfff;
	struct roi_point p;
	struct mf_counters mine[TM_MAX_RES];
	struct vcpu *v;

	if (!tp.never_arm && !__atomic_load_n(&tp.armed, __ATOMIC_ACQUIRE)) {
		int expect = 0;

		if (__atomic_compare_exchange_n(&tp.armed, &expect, 1, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			plugin_reload_config();	/* regions placed */
			qemu_plugin_reset(tp.id, on_reset);
			__atomic_fetch_add(&tp.shm->armed_hosts, 1,
					   __ATOMIC_ACQ_REL);
		}
		wait_for_hosts();
	}
	if (op == CXLBED_ROI_CLOCK) {
		clock_marker(vi, id);
		return;
	}
	if (op == CXLBED_ROI_COPY) {	/* the first marker of a program */
		copy_marker(vi, id);
		return;
	}
	if (op == CXLBED_ROI_TOGETHER) {
		together_marker(vi, id);
		return;
	}
	v = vcpu_get(vi);
	if (!v)
		return;
	roi_point_of(v, vi, &p, mine);
	switch (op) {
	case CXLBED_ROI_BEGIN:
		kprof_begin(vi);
		roi_begin(&tp.log, vi, id, &p);
		break;
	case CXLBED_ROI_END:
		kprof_end(vi, id);
		if (roi_end(&tp.log, vi, id, &p))
			write_report();
		break;
	case CXLBED_ROI_DUMP:
		write_report();
		break;
	case CXLBED_ROI_ARM:	/* a program's first marker: its stale reads */
		sr_log_restart(&tp.shm->stale, tp.cfg.host_index);
		break;
	}
}
