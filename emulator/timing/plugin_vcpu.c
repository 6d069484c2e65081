// SPDX-License-Identifier: MIT
/*
 * Per-vCPU side of the plugin: modeled clocks, the memory callback that
 * feeds the model, and check-ins that keep vCPUs and hosts within the
 * skew bound.
 */
#include <string.h>
#include <time.h>

#include "timing_plugin.h"

uint64_t insns_of(unsigned int vi)
{
	return *(uint64_t *)qemu_plugin_scoreboard_find(tp.sb, vi);
}

struct vcpu *vcpu_get(unsigned int vi)
{
	struct vcpu *v = vi < TM_MAX_VCPUS ? tp.cpu[vi] : NULL;
	double start;

	if (v || vi >= TM_MAX_VCPUS)
		return v;
	g_mutex_lock(&tp.lock);
	if (!tp.cpu[vi]) {
		v = g_new0(struct vcpu, 1);
		if (!tm_cpu_mem_init(&v->mem, &tp.mem))
			g_error("cxlbed-timing: cache geometry unusable");
		v->slot = tp.cfg.host_index * TM_MAX_VCPUS + vi;
		/* join the run at the modeled time the others have reached */
		start = tm_sync_min(&tp.sync, v->slot);
		v->clk.ns_per_insn = tp.cfg.ns_per_insn;
		tm_vclock_start(&v->clk, insns_of(vi), start > 0 ? start : 0);
		tm_shared_use_slot(tp.shm, v->slot);
		tm_sync_publish(&tp.sync, v->slot, v->clk.offset_ns);
		__atomic_store_n(&tp.cpu[vi], v, __ATOMIC_RELEASE);
	}
	g_mutex_unlock(&tp.lock);
	return tp.cpu[vi];
}

static uint64_t host_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sync_point(struct vcpu *v, unsigned int vi, double now)
{
	uint64_t ms = host_ms();

	/*
	 * Silent for long (in unmodeled kernel code): the others stopped
	 * waiting for us, so rejoin at their time, as after a halt.
	 */
	if (tp.stale_ms && v->beat_ms && ms - v->beat_ms > tp.stale_ms) {
		double min = tm_sync_min(&tp.sync, v->slot);

		if (min > now) {
			v->clk.stall_ns += min - now;
			now = min;
			__atomic_fetch_add(&tp.stale_rejoins, 1,
					   __ATOMIC_RELAXED);
		}
	}
	if (!tm_sync_wait(&tp.sync, v->slot, now, tp.sync_timeout_ms))
		__atomic_fetch_add(&tp.sync_timeouts, 1, __ATOMIC_RELAXED);
	v->beat_ms = host_ms();
	v->next_sync = now + tp.cfg.skew_ns / 4.0;
}

void on_mem(unsigned int vi, qemu_plugin_meminfo_t info, uint64_t vaddr,
		   void *udata)
{
	bool store = qemu_plugin_mem_is_store(info);
	uint64_t vline = (vaddr >> tp.mem.line_shift) + 1;
	struct qemu_plugin_hwaddr *hw;
	struct vcpu *v;
	uint64_t pa;
	double now, go;

	/*
	 * The virtual line touched last, again: an L1 hit with nothing to
	 * charge; skip even the address translation. (Wrong only if another
	 * process's first access after a switch hits the very same line.)
	 */
	v = vi < TM_MAX_VCPUS ? tp.cpu[vi] : NULL;
	if (v && v->last_vline == vline && (v->mem.last_dirty || !store)) {
		v->mem.st.accesses++;
		v->mem.st.loads += !store;
		v->mem.st.stores += store;
		return;
	}
	hw = qemu_plugin_get_hwaddr(info, vaddr);
	if (!hw)
		return;
	pa = qemu_plugin_hwaddr_phys_addr(hw);
	if (!mf_decode(tp.fabric, pa, qemu_plugin_hwaddr_is_io(hw))) {
		if (v)
			v->last_vline = 0;
		return;		/* device MMIO: not memory */
	}
	v = vcpu_get(vi);
	if (!v)
		return;
	v->last_vline = vline;
	now = tm_now(&v->clk, insns_of(vi));
	go = tm_mem_access(&tp.mem, &v->mem, pa, store, now);
	v->clk.stall_ns += go - now;
	if (go >= v->next_sync)
		sync_point(v, vi, go);
}

/* A halted vCPU holds nobody back; back from halt, it joins the others. */
void on_idle(qemu_plugin_id_t id, unsigned int vi)
{
	struct vcpu *v = vi < TM_MAX_VCPUS ? tp.cpu[vi] : NULL;

	if (v)
		tm_sync_stop(&tp.sync, v->slot);
}

void on_resume(qemu_plugin_id_t id, unsigned int vi)
{
	struct vcpu *v = vi < TM_MAX_VCPUS ? tp.cpu[vi] : NULL;
	double now, min;

	if (!v)
		return;
	now = tm_now(&v->clk, insns_of(vi));
	min = tm_sync_min(&tp.sync, v->slot);
	if (min > now)
		v->clk.stall_ns += min - now;
	tm_sync_publish(&tp.sync, v->slot, min > now ? min : now);
}
