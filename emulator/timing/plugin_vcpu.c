// SPDX-License-Identifier: MIT
/*
 * Per-vCPU side of the plugin: modeled clocks, the memory callback that
 * feeds the model, and check-ins that keep vCPUs and hosts within the
 * skew bound.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "timing_plugin.h"

uint64_t insns_of(unsigned int vi)
{
	return ((struct vcpu_counts *)qemu_plugin_scoreboard_find(tp.sb, vi))->insns;
}

uint64_t kernel_tbs_of(unsigned int vi)
{
	return ((struct vcpu_counts *)qemu_plugin_scoreboard_find(tp.sb, vi))->kernel_tbs;
}

/*
 * Kernel blocks a silent vCPU must have run to count as away in the
 * kernel rather than descheduled by the host: well above the timer ticks
 * of a stale_ms stretch (a few hundred blocks each), well below a real
 * stint such as faulting in a buffer.
 */
#define TM_AWAY_KERNEL_TBS 100000

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
		v->beat_ktbs = kernel_tbs_of(vi);
		v->mem.who = v->slot;
		/* another vCPU's write to our last line ends our repeats of it */
		v->mem.repeat_key = &v->last_vline;
		tm_host_mem_add_core(&tp.mem, &v->mem);
		v->cnt = qemu_plugin_scoreboard_find(tp.sb, vi);
		v->page_v = UINT64_MAX;
		v->deadline = UINT64_MAX;
		v->rung = UINT64_MAX;
		v->wake_at = -1;
		v->kicked_at = -1;
		v->icr_dest_resumes = -1;
		tm_shared_use_slot(tp.shm, v->slot);
		tm_sync_publish(&tp.sync, v->slot, v->clk.offset_ns);
		__atomic_store_n(&tp.cpu[vi], v, __ATOMIC_RELEASE);
	}
	g_mutex_unlock(&tp.lock);
	return tp.cpu[vi];
}

uint64_t host_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Kernel blocks @v has run since its last check-in. */
static uint64_t kernel_tbs_since_beat(const struct vcpu *v, unsigned int vi)
{
	return kernel_tbs_of(vi) - __atomic_load_n(&v->beat_ktbs, __ATOMIC_RELAXED);
}

/*
 * The running vCPU of this host that holds @v back (the smallest clock
 * published by a running slot, if that is ours and the smallest of all),
 * or NULL.
 */
static struct vcpu *laggard(const struct vcpu *v, double *clock)
{
	int first = tp.cfg.host_index * TM_MAX_VCPUS;
	double all = tm_sync_min(&tp.sync, v->slot), best = -1;
	struct vcpu *who = NULL;

	for (int i = 0; i < tp.nvcpus; i++) {
		struct vcpu *o = tp.cpu[i];
		double c;

		if (!o || o == v || (tp.sync.halted &&
					__atomic_load_n(&tp.sync.halted[first + i], __ATOMIC_RELAXED)))
			continue;
		c = tm_sync_published(&tp.sync, first + i);
		if (c >= 0 && (best < 0 || c < best)) {
			best = c;
			who = o;
		}
	}
	*clock = best;
	return who && best <= all ? who : NULL;
}

/*
 * Is @o's host thread asleep in the kernel (a futex: QEMU's exclusive
 * section, the big lock) rather than running or runnable? Not when it
 * sleeps in a skew wait of its own: it waits for a slower clock, which
 * the chain of waits ends at. A vCPU waiting until its laggard caught up
 * (tm_sync_until) sleeps long enough for the look to take it for one
 * stuck in QEMU, and the others then ran on past the skew bound.
 */
static bool thread_blocked(const struct vcpu *o)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	if (!o->tid || __atomic_load_n(&o->in_skew_wait, __ATOMIC_ACQUIRE))
		return false;
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", o->tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && (p[2] == 'S' || p[2] == 'D');
}

/*
 * A vCPU of ours that stays asleep on the host with its clock unchanged
 * is waiting in QEMU, not running guest code: seen with gdb, vCPU 0 in
 * cpu_exec_step_atomic() waiting for the others to leave their blocks
 * (an exclusive section) while vCPU 3 waited for vCPU 0's clock, each
 * wait ending only at the sync timeout (2 s), and a libcxlpool run with
 * three copy lanes took many minutes of host time. Such a vCPU holds
 * nobody back: after BLOCKED_CHECKS looks BLOCKED_MS apart (10 ms
 * asleep, longer than a wait for the big lock on a busy host) a wait on
 * it ends (counted as blocked_skips).
 */
#define BLOCKED_MS 2
#define BLOCKED_CHECKS 5
struct blocked_watch {
	uint64_t look_at;	/* host ms of the next look; 0: not started */
	double seen;		/* the clock it had at the last look */
	int count;		/* looks in a row that found it so */
};

/* Time for a look (host ms @ms)? The first call only starts the watch. */
static bool watch_due(struct blocked_watch *b, uint64_t ms)
{
	if (!b->look_at) {
		b->look_at = ms + BLOCKED_MS;
		b->seen = -1;
		return false;
	}
	return ms >= b->look_at;
}

/* At a look (watch_due): is the wait on @o (NULL: not ours) over, @o
 * being stuck in QEMU with its clock at @clock? */
static bool watch_blocked(struct blocked_watch *b, const struct vcpu *o,
			  double clock, uint64_t ms)
{
	b->look_at = ms + BLOCKED_MS;
	b->count = o && clock == b->seen && thread_blocked(o) ? b->count + 1 : 0;
	b->seen = clock;
	if (b->count < BLOCKED_CHECKS)
		return false;
	__atomic_fetch_add(&tp.blocked_skips, 1, __ATOMIC_RELAXED);
	return true;
}

/*
 * Sleep until the slot that holds us back publishes (or 500 us pass: the
 * loop's host-time checks, ringing a sleeper that is due and the blocked
 * watch, still run that often).
 */
#define SYNC_SLEEP_US 500
static void sleep_on_laggard(struct vcpu *v, double now,
			     bool (*blocked)(void *), void *ctx)
{
	int w = tm_sync_min_slot(&tp.sync, v->slot);

	if (w >= 0)
		tm_sync_sleep_on(&tp.sync, w, tm_sync_until(&tp.sync, now),
				 blocked, ctx, SYNC_SLEEP_US);
}

/*
 * The skew bound: publish @now and wait (host time) while more than the
 * skew ahead of another vCPU or host. A halted vCPU publishes its next
 * clock event: once we are past it, ring it (it will not move otherwise).
 * A laggard stuck in QEMU ends the wait (watch_blocked).
 */
static double thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static bool wait_skew(struct vcpu *v, unsigned int vi, double now)
{
	struct tm_ahead ahead = { &tp.sync, v->slot, now };
	struct blocked_watch watch = { 0 };
	uint64_t give_up = 0;
	double cpu0 = -1;
	bool in_time = true, waited = false;

	if (!tp.waits) {
		tm_sync_publish(&tp.sync, v->slot, now);
		return true;
	}
	while (tm_sync_ahead(&tp.sync, v->slot, now)) {
		uint64_t ms;
		struct vcpu *o;
		double c;

		__atomic_store_n(&v->in_skew_wait, true, __ATOMIC_RELEASE);
		/* the CPU clock is a system call: read it for one wait in 16 */
		if (cpu0 < 0 && !(v->waits & 15))
			cpu0 = thread_cpu_ns();
		waited = true;
		if (tp.guest_time)
			clock_check(v, vi, now);
		ms = host_ms();
		if (!give_up)
			give_up = ms + tp.sync_timeout_ms;
		else if (ms > give_up) {
			in_time = false;
			break;
		}
		if (watch_due(&watch, ms)) {
			o = laggard(v, &c);
			if (watch_blocked(&watch, o, c, ms))
				break;
		}
		sleep_on_laggard(v, now, tm_sync_still_ahead, &ahead);
	}
	__atomic_store_n(&v->in_skew_wait, false, __ATOMIC_RELEASE);
	if (cpu0 >= 0)
		v->wait_cpu_ns += 16 * (thread_cpu_ns() - cpu0);
	v->waits += waited;
	return in_time;
}

/* A sync wait gave up: who held it back (QEMU's log, every 16th time). */
static void sync_dump(const struct vcpu *v, unsigned int vi, double now)
{
	int n = __atomic_load_n(tp.sync.nslots, __ATOMIC_ACQUIRE);

	fprintf(stderr, "cxlbed-timing: vCPU %u (slot %d) at %.0f ns waited %u ms; slots:",
		vi, v->slot, now, tp.sync_timeout_ms);
	for (int i = 0; i < n; i++) {
		uint64_t c = __atomic_load_n(&tp.sync.slot[i], __ATOMIC_ACQUIRE);

		if (c)
			fprintf(stderr, " %d=%" PRIu64 "%s", i, c - 1,
				tp.sync.halted && tp.sync.halted[i] ? "(halted)" : "");
	}
	fprintf(stderr, "\n");
}

static void sync_point(struct vcpu *v, unsigned int vi, double now)
{
	uint64_t ms = host_ms(), ktbs = kernel_tbs_of(vi);

	if (!v->tid)	/* this runs on the vCPU's own thread */
		v->tid = (int)syscall(SYS_gettid);

	/*
	 * Silent for long, the others stopped waiting for us. If we were in
	 * unmodeled kernel code, rejoin at their time, as after a halt. If
	 * we merely were not run (a busy host, more vCPUs than cores; or
	 * held at a QEMU exclusive section while another vCPU waited for us
	 * inside its callback), our clock is still right: keep it, and the
	 * others wait for us again from here.
	 */
	if (tp.stale_ms && v->beat_ms && ms - v->beat_ms > tp.stale_ms &&
	    kernel_tbs_since_beat(v, vi) > TM_AWAY_KERNEL_TBS) {
		double min = tm_sync_min(&tp.sync, v->slot);

		if (min > now) {
			v->clk.stall_ns += min - now;
			now = min;
			__atomic_fetch_add(&tp.stale_rejoins, 1,
					   __ATOMIC_RELAXED);
		}
	}
	if (!wait_skew(v, vi, now) &&
	    __atomic_fetch_add(&tp.sync_timeouts, 1, __ATOMIC_RELAXED) % 16 == 0)
		sync_dump(v, vi, now);
	v->beat_ms = host_ms();
	__atomic_store_n(&v->beat_ktbs, ktbs, __ATOMIC_RELAXED);
	v->next_sync = now + tp.cfg.skew_ns / 4.0;
	plugin_reload_check();
}

#define TM_PAGE_MASK ((1ull << TM_PAGE_SHIFT) - 1)

/* The set of v->seen that holds virtual page @page (the most recent first). */
static struct seen_page *seen_set(struct vcpu *v, uint64_t page)
{
	unsigned int bits = __builtin_ctz(TM_SEEN_SETS);

	return &v->seen[2 * ((page * 0x9e3779b97f4a7c15ull) >> (64 - bits))];
}

static const struct seen_page *seen_find(struct vcpu *v, uint64_t page)
{
	struct seen_page *s = seen_set(v, page);

	return s[0].vpage == page ? &s[0] : s[1].vpage == page ? &s[1] : NULL;
}

static void seen_note(struct vcpu *v, uint64_t page, uint64_t ppage,
		      uint64_t ktbs)
{
	struct seen_page *s = seen_set(v, page);

	if (s[0].vpage != page)
		s[1] = s[0];
	s[0] = (struct seen_page){ page, ppage, ktbs };
}

/*
 * A translation of virtual page @page (at physical page @ppage), the
 * access at line @off of it. Kept, so that an access that enters a page
 * at its first line (a stream going up) or its last (going down) finds
 * where the page before it in the stream lies: if this one is its
 * physical neighbour, what the model's prefetcher ran on into is the
 * stream's (tm_mem_page_claim); if not, the prefetcher went on into the
 * wrong lines (tm_mem_page_hop). Entries from before unmodeled kernel
 * code ran (a process switch, a remapping) are not trusted for a hop.
 */
static void page_entered(struct vcpu *v, uint64_t page, uint64_t ppage,
			 unsigned int off)
{
	unsigned int shift = TM_PAGE_SHIFT - tp.mem.line_shift;
	uint64_t ktbs = v->cnt->kernel_tbs;
	const struct seen_page *p = NULL;
	struct seen_page o;
	int d = 0;

	if (off == 0 || off == (1u << shift) - 1) {
		d = off == 0 ? -1 : 1;	/* the page the stream came from */
		p = seen_find(v, page + d);
	}
	if (p)
		o = *p;		/* noting this page may take its place */
	seen_note(v, page, ppage, ktbs);
	if (!p)
		return;
	if (o.ppage - d == ppage) {
		tm_mem_page_claim(&tp.mem, &v->mem, ppage << shift);
		return;
	}
	if (o.ktbs != ktbs) {
		v->mem.st.hops_refused++;
		return;
	}
	tm_mem_page_hop(&tp.mem, &v->mem, (o.ppage - d) << shift,
			ppage << shift, 1u << shift,
			tm_now(&v->clk, v->cnt->insns));
}

/* Everything but a repeat of the last line: out of line (see on_mem). */
static __attribute__((noinline, cold)) void
on_mem_slow(unsigned int vi, qemu_plugin_meminfo_t info, uint64_t vaddr,
	    uint64_t vline, enum tp_access kind, uint64_t pc)
{
	struct qemu_plugin_hwaddr *hw;
	struct vcpu *v = vi < TM_MAX_VCPUS ? tp.cpu[vi] : NULL;
	uint64_t pa, page = vaddr >> TM_PAGE_SHIFT;
	bool is_io, translated = false;
	double now, go;

	if (v && copy_paused[vi])
		return;		/* a copy engine's bytes (plugin_copy.c) */
	/* a new line of the page translated last: no need to ask QEMU */
	if (v && page == v->page_v && !tp.kernel &&
	    v->cnt->kernel_tbs == v->page_ktbs) {
		pa = v->page_p | (vaddr & TM_PAGE_MASK);
		is_io = v->page_io;
	} else {
		hw = qemu_plugin_get_hwaddr(info, vaddr);
		if (!hw)
			return;
		pa = qemu_plugin_hwaddr_phys_addr(hw);
		is_io = qemu_plugin_hwaddr_is_io(hw);
		translated = true;
		if (v) {
			v->page_v = page;
			v->page_p = pa & ~TM_PAGE_MASK;
			v->page_io = is_io;
			v->page_ktbs = v->cnt->kernel_tbs;
		}
	}
	if (!mf_decode(tp.fabric, pa, is_io)) {
		if (v)
			v->last_vline = 0;
		return;		/* device MMIO: not memory */
	}
	if (!v && !(v = vcpu_get(vi)))
		return;
	v->mem.st.mmio_lines += is_io;
	/* a non-temporal store leaves the line in no cache: no repeat hits */
	v->last_vline = kind == TP_STORE_NT ? 0 : vline;
	if (tp.cost == TP_COST_LINES)	/* the benchmark's ladder: no model */
		return;
	if (translated)
		page_entered(v, page, pa >> TM_PAGE_SHIFT,
			     (unsigned int)((pa & TM_PAGE_MASK) >> tp.mem.line_shift));
	now = tm_now(&v->clk, v->cnt->insns);
	if (pa >= share_lo && pa < share_hi) {
		share_access(v, vi, vaddr, pa, kind != TP_LOAD, pc, now);
		now = tm_now(&v->clk, v->cnt->insns);	/* after a flush it applied */
	}
	go = kind == TP_STORE_NT ? tm_mem_store_nt(&tp.mem, &v->mem, pa, now) :
		tm_mem_access(&tp.mem, &v->mem, pa, kind == TP_STORE, now);
	v->clk.stall_ns += go - now;
	if (tp.guest_time)
		clock_check(v, vi, go);
	if (go >= v->next_sync)
		sync_point(v, vi, go);
}

/*
 * Every TP_BUDGET instructions (a conditional block callback): a vCPU
 * that touches no modeled memory for long (a delay loop, a spin) still
 * publishes its clock, takes its clock events and checks in.
 */
void on_budget(unsigned int vi, void *udata)
{
	struct vcpu_counts *c = qemu_plugin_scoreboard_find(tp.sb, vi);
	struct vcpu *v = vcpu_get(vi);
	double now;

	c->budget = 0;
	if (!v || copy_paused[vi])
		return;
	now = tm_now(&v->clk, c->insns);
	tm_sync_publish_clock(&tp.sync, v->slot, now);
	clock_check(v, vi, now);
	if (now >= v->next_sync)
		sync_point(v, vi, now);
}

/*
 * One access; loads and stores have their own callbacks (no is_store
 * call). Most accesses repeat the line before them: that case is kept
 * small enough to need no register spills.
 */
static inline void on_mem(unsigned int vi, qemu_plugin_meminfo_t info,
			  uint64_t vaddr, enum tp_access kind, void *pc)
{
	bool store = kind != TP_LOAD;
	uint64_t vline = (vaddr >> tp.mem.line_shift) + 1;
	struct vcpu *v = vi < TM_MAX_VCPUS ? tp.cpu[vi] : NULL;

	/*
	 * The virtual line touched last, again: an L1 hit with nothing to
	 * charge; skip even the address translation. (Wrong only if another
	 * process's first access after a switch hits the very same line.)
	 */
	if (v && v->last_vline == vline && (v->mem.last_dirty || !store)) {
		/*
		 * ... except every 1024th: a vCPU spinning on one line must
		 * still check in, or the others would wait for it in vain.
		 * The model counts that one.
		 */
		if (++v->repeat_tick & 1023) {
			v->repeats[store]++;
			return;
		}
	}
	on_mem_slow(vi, info, vaddr, vline, kind, (uintptr_t)pc);
}

void on_load(unsigned int vi, qemu_plugin_meminfo_t info, uint64_t vaddr,
	     void *udata)
{
	on_mem(vi, info, vaddr, TP_LOAD, udata);
}

void on_store(unsigned int vi, qemu_plugin_meminfo_t info, uint64_t vaddr,
	      void *udata)
{
	on_mem(vi, info, vaddr, TP_STORE, udata);
}

/* movnt*: past the caches to memory (tm_mem_store_nt) */
void on_store_nt(unsigned int vi, qemu_plugin_meminfo_t info, uint64_t vaddr,
		 void *udata)
{
	on_mem(vi, info, vaddr, TP_STORE_NT, udata);
}

/* cost=calls: what QEMU's callback alone costs (the benchmark's ladder). */
void on_mem_nothing(unsigned int vi, qemu_plugin_meminfo_t info,
		    uint64_t vaddr, void *udata)
{
}

/*
 * With the guest kernel modeled from early on, its stores to device
 * registers (ioremap and fixmap space) are left alone: looking up the
 * physical address of a store that remapped memory (PCI set-up) aborts
 * QEMU (docs/timing-model.md, "Arming").
 */
void on_store_kernel(unsigned int vi, qemu_plugin_meminfo_t info,
		     uint64_t vaddr, void *udata)
{
	if (!clock_skip_store(vaddr)) {
		on_mem(vi, info, vaddr, TP_STORE, udata);
		return;
	}
	/* an IPI: the modeled time a halted vCPU is woken at */
	if ((vaddr & ~0x10ull) == tp.apic_icr && tp.apic_icr)
		clock_apic_store(vi, vaddr,
				 qemu_plugin_mem_get_value(info).data.u32);
}

/*
 * A halted vCPU holds nobody back (with the guest clock: nobody past its
 * next clock event); back from halt, it joins the others. Both run with
 * QEMU's big lock held: no waiting here.
 */
void on_idle(qemu_plugin_id_t id, unsigned int vi)
{
	struct vcpu *v = vi < TM_MAX_VCPUS ? tp.cpu[vi] : NULL;

	if (tp.guest_time && (v = vcpu_get(vi)))
		clock_idle(v, vi);
	else if (v)
		tm_sync_stop(&tp.sync, v->slot);
}

void on_resume(qemu_plugin_id_t id, unsigned int vi)
{
	struct vcpu *v = vi < TM_MAX_VCPUS ? tp.cpu[vi] : NULL;
	double now, at;

	if (!v)
		return;
	now = tm_now(&v->clk, insns_of(vi));
	if (tp.guest_time)
		at = clock_resume(v, vi, now);
	else
		at = tm_sync_min(&tp.sync, v->slot);
	if (at > now)
		v->clk.stall_ns += at - now;
	tm_sync_publish(&tp.sync, v->slot, at > now ? at : now);
}
