// SPDX-License-Identifier: MIT
/*
 * The guest's clock and timer interrupts in modeled time; the guest side
 * is guest/clock/cxlbed_clock.c, the page they share cxlbed-clock.h.
 *
 * - READ answers with the vCPU's modeled time, never less than any CPU
 *   was given before (the kernel needs one monotonic clock; vCPU clocks
 *   differ by at most the skew bound).
 * - SET arms a deadline in the vCPU's own modeled time. It is checked
 *   where the plugin already runs (every modeled memory access and every
 *   TP_BUDGET instructions, on_budget()); when passed, the plugin rings
 *   the vCPU's MSI-X vector and waits, in host time, until QEMU's main
 *   loop has taken the ring, so the interrupt is pending before the vCPU
 *   runs on: it arrives within a block of the deadline whatever the host.
 * - A halted vCPU publishes its deadline as its clock (model_time.h).
 *   Whoever runs past that deadline rings it; it resumes at the deadline.
 *   When every vCPU of the host is halted, the earliest deadline is taken
 *   at once (idle time costs no host time), unless another host is that
 *   far behind: then a thread of ours waits for it to catch up.
 */
#include <time.h>

#include "timing_plugin.h"

/* This file's own state: the clock it hands out and the idle vCPUs. */
static struct {
	uint64_t clock_last;	/* the largest time handed to the guest */
	uint64_t io_start, io_end, fix_start, fix_end;	/* from the guest */
	GMutex idle_lock;	/* halted, tp.idle_next, warped_to, wake_at */
	int halted;		/* vCPUs of this host that are halted */
	uint64_t warped_to;	/* the latest deadline a warp jumped to */
	GCond warp_cond;	/* the warper thread's wake-up */
} ck;

static double vcpu_now(struct vcpu *v, unsigned int vi)
{
	return tm_now(&v->clk, insns_of(vi));
}

/*
 * Time handed to the guest: own clock, never below what was handed out.
 * How often, and by how much, a read was held up to another vCPU's is
 * counted: more than the skew bound means two reads on one vCPU can see
 * no time pass while its own clock moved on.
 */
static uint64_t monotonic(double now)
{
	uint64_t t = (uint64_t)now;
	uint64_t last = __atomic_load_n(&ck.clock_last, __ATOMIC_RELAXED);
	uint64_t held, max;

	while (t > last &&
	       !__atomic_compare_exchange_n(&ck.clock_last, &last, t, true,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	if (t > last)
		return t;
	held = last - t;
	__atomic_fetch_add(&tp.cs.held_reads, 1, __ATOMIC_RELAXED);
	max = __atomic_load_n(&tp.cs.held_max_ns, __ATOMIC_RELAXED);
	while (held > max &&
	       !__atomic_compare_exchange_n(&tp.cs.held_max_ns, &max, held, true,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	return last;
}

static void set_deadline(struct vcpu *v, unsigned int vi, uint64_t d)
{
	__atomic_store_n(&v->deadline, d, __ATOMIC_RELAXED);
	tp.clock.page->cpu[vi].deadline = d;
}

/*
 * Is a wake-up of halted @o on its way (rung, or sent an IPI)? A kick
 * that has not woken it within KICK_MS of host time never will (a safety
 * valve, counted: none expire in a sound run).
 */
#define KICK_MS 100
static bool waking(struct vcpu *o)
{
	if (o->kicked_at >= 0 && host_ms() - o->kick_ms > KICK_MS) {
		o->kicked_at = -1;
		tp.cs.kick_timeouts++;
	}
	return o->wake_at >= 0 || o->kicked_at >= 0;
}

/* Earliest deadline of a halted vCPU not already waking (idle_lock held). */
static struct vcpu *next_sleeper(unsigned int *which)
{
	struct vcpu *best = NULL;

	for (int i = 0; i < tp.nvcpus; i++) {
		struct vcpu *o = tp.cpu[i];

		if (o && o->halted && !waking(o) &&
		    (!best || o->deadline < best->deadline)) {
			best = o;
			*which = i;
		}
	}
	return best && best->deadline != UINT64_MAX ? best : NULL;
}

static void idle_next_update(void)
{
	unsigned int i;
	struct vcpu *o = next_sleeper(&i);

	__atomic_store_n(&tp.idle_next, o ? o->deadline : UINT64_MAX,
			 __ATOMIC_RELAXED);
}

/* Raise @v's clock interrupt for its deadline. */
static void ring(struct vcpu *v, unsigned int vi)
{
	v->rung = v->deadline;
	v->rung_ms = host_ms();
	set_deadline(v, vi, UINT64_MAX);
	__atomic_fetch_add(&tp.cs.irqs, 1, __ATOMIC_RELAXED);
	tp.clock.page->cpu[vi].irqs++;
	clock_dev_ring(&tp.clock, vi);
}

/*
 * Until QEMU's main loop has read the eventfd, which it does right before
 * raising the MSI: from then on the interrupt is pending at the vCPU.
 * Bounded: a main loop that waits for this vCPU must not hang the run.
 */
static void wait_taken(unsigned int vi)
{
	struct timespec pause = { 0, 10000 };
	uint64_t give_up = 0;

	for (int spins = 0; clock_dev_pending(&tp.clock, vi); spins++) {
		if (spins < 32) {
			__builtin_ia32_pause();
			continue;
		}
		if (!give_up) {
			give_up = host_ms() + 200;
		} else if (host_ms() > give_up) {
			__atomic_fetch_add(&tp.cs.ring_timeouts, 1,
					   __ATOMIC_RELAXED);
			return;
		}
		nanosleep(&pause, NULL);
	}
}

/* Ring halted vCPUs whose deadline @now has passed (idle_lock held). */
static void wake_sleepers(double now)
{
	unsigned int i;
	struct vcpu *o;

	while ((o = next_sleeper(&i)) && o->deadline <= (uint64_t)now) {
		o->wake_at = o->deadline;
		ring(o, i);
	}
	idle_next_update();
}

void clock_follow(double t)
{
	if ((uint64_t)t < __atomic_load_n(&tp.idle_next, __ATOMIC_RELAXED))
		return;
	g_mutex_lock(&ck.idle_lock);
	wake_sleepers(t);
	g_mutex_unlock(&ck.idle_lock);
}

void clock_due(struct vcpu *v, unsigned int vi, double now)
{
	if ((uint64_t)now >= v->deadline) {
		ring(v, vi);
		wait_taken(vi);
	}
	if ((uint64_t)now >= __atomic_load_n(&tp.idle_next, __ATOMIC_RELAXED)) {
		g_mutex_lock(&ck.idle_lock);
		wake_sleepers(now);
		g_mutex_unlock(&ck.idle_lock);
	}
}

/*
 * Every vCPU of the host is halted: jump to the earliest deadline, unless
 * another host is more than the skew behind it (idle_lock held) and
 * @force is false. True when nothing is left to do for now.
 */
static bool try_warp(bool force)
{
	int first = tp.cfg.host_index * TM_MAX_VCPUS;
	unsigned int i;
	struct vcpu *w;
	double others;

	if (ck.halted < tp.nvcpus)
		return true;
	for (int k = 0; k < tp.nvcpus; k++)
		if (tp.cpu[k] && tp.cpu[k]->halted && waking(tp.cpu[k]))
			return true;	/* a wake-up is on its way */
	w = next_sleeper(&i);
	if (!w)
		return true;	/* nothing armed: wait for a device */
	others = tm_sync_min_outside(&tp.sync, first, TM_MAX_VCPUS);
	if (!force && others >= 0 && (double)w->deadline > others + tp.cfg.skew_ns)
		return false;
	w->wake_at = w->deadline;
	tp.cs.warps++;
	tp.cs.warped_ns += w->deadline - vcpu_now(w, i);
	if (w->deadline > ck.warped_to)
		ck.warped_to = w->deadline;
	ring(w, i);
	idle_next_update();
	return true;
}

/*
 * A halted vCPU with a clock interrupt rung this long ago (host time) that
 * the guest has not handled (its handler's IRQ marker clears `rung`) lost
 * it: raise it again (counted). Only a halted one: a running vCPU can go
 * that long without taking a pending interrupt while it waits on the
 * others (the skew bound), and ringing it again then gave it a second
 * tick (guest-time.t: 255 ticks per modeled second instead of 250 on a
 * busy host). Seen with gdb on a 4-vCPU boot that never came up
 * (fpga-loaded, a loaded host): vCPU 1 was rung 1 ms into modeled time,
 * while the clock module was still setting up each CPU's vector, and
 * never handled it; with the ring its deadline was spent, so it armed
 * nothing again, woke only for IPIs, and RCU reported its timer dead
 * while the other vCPUs warped the clock 35 hours ahead.
 */
#define RING_LOST_MS 1000

static void rering_lost(void)
{
	uint64_t now = host_ms();

	for (int i = 0; i < tp.nvcpus; i++) {
		struct vcpu *o = tp.cpu[i];

		if (o && o->halted && __atomic_load_n(&o->rung, __ATOMIC_RELAXED) != UINT64_MAX &&
		    now - o->rung_ms > RING_LOST_MS) {
			o->rung_ms = now;
			tp.cs.rerings++;
			clock_dev_ring(&tp.clock, (unsigned int)i);
		}
	}
}

/*
 * Waits for other hosts to catch up with this idle one; like a running
 * vCPU's wait (wait_skew), for at most sync_timeout_ms of host time, then
 * it warps anyway and counts a sync timeout, so that no wait between
 * hosts is unbounded.
 *
 * Besides being woken to warp, it looks every 100 ms: for a lost ring,
 * and for a host whose vCPUs are all halted with nothing on its way to
 * wake them. That happens when a kick (clock_apic_store) is recorded for
 * an IPI the target had already taken: on a busy host the target can
 * wake at a published clock that lags the sender's, run, and halt again
 * before the sender's callback records the kick. The kick then expires
 * (KICK_MS, counted as kick_timeouts), but only a look at the host
 * notices: a vCPU with a kick is not a sleeper, so idle_next leaves it
 * out and a running vCPU past its deadline never rings it; and once every
 * vCPU is halted, nothing else calls try_warp. Seen in two-host boots
 * (pool-unequal-qos, contention), with gdb: one host's two vCPUs halted
 * for minutes behind such a kick (warps 0), and in another run one halted
 * vCPU with a stale kick, idle_next at "none", while its sibling and the
 * other host's vCPU waited on its deadline at every sync point.
 */
static gpointer warper(gpointer unused)
{
	struct timespec pause = { 0, 100000 };

	g_mutex_lock(&ck.idle_lock);
	for (;;) {
		uint64_t give_up;

		g_cond_wait_until(&ck.warp_cond, &ck.idle_lock,
				  g_get_monotonic_time() + 100 * G_TIME_SPAN_MILLISECOND);
		rering_lost();
		idle_next_update();	/* expires stale kicks: sleepers again */
		give_up = host_ms() + tp.sync_timeout_ms;
		while (!try_warp(false)) {
			g_mutex_unlock(&ck.idle_lock);
			nanosleep(&pause, NULL);
			g_mutex_lock(&ck.idle_lock);
			if (host_ms() > give_up) {
				__atomic_fetch_add(&tp.sync_timeouts, 1, __ATOMIC_RELAXED);
				try_warp(true);
				break;
			}
		}
	}
	return NULL;
}

/* Called with QEMU's big lock held: never wait here. */
void clock_idle(struct vcpu *v, unsigned int vi)
{
	double now = vcpu_now(v, vi);

	g_mutex_lock(&ck.idle_lock);
	if (v->halted) {		/* idle again without having resumed */
		g_mutex_unlock(&ck.idle_lock);
		return;
	}
	if (v->deadline <= (uint64_t)now) {	/* due since the last check */
		v->wake_at = now;
		ring(v, vi);
	}
	v->halted = true;
	v->halt_at = now;
	v->kicked_at = -1;	/* a kick from before this halt is spent */
	ck.halted++;
	tm_sync_halt(&tp.sync, v->slot, v->deadline);
	idle_next_update();
	if (!try_warp(false))
		g_cond_signal(&ck.warp_cond);
	g_mutex_unlock(&ck.idle_lock);
}

/* The modeled time @v resumes at (QEMU's big lock held). */
double clock_resume(struct vcpu *v, unsigned int vi, double now)
{
	double at, shown;

	g_mutex_lock(&ck.idle_lock);
	if (v->halted)	/* else it halted before the plugin armed */
		ck.halted--;
	v->halted = false;
	__atomic_store_n(&v->resumes, v->resumes + 1, __ATOMIC_RELAXED);
	if (v->wake_at >= 0 || v->kicked_at >= 0) {
		/* its clock event or an IPI: the earlier of the two */
		at = v->wake_at < 0 ? v->kicked_at :
		     v->kicked_at < 0 ? v->wake_at :
		     MIN(v->wake_at, v->kicked_at);
		v->wake_at = -1;
		v->kicked_at = -1;
	} else {
		/* a device's interrupt (or an IPI seen late): join the others */
		at = tm_sync_min_running(&tp.sync, v->slot);
	}
	/*
	 * Never before a time the guest was already shown: a sibling that
	 * ran on after this one halted may have read the clock up to
	 * milliseconds later, and this one's readings would stand still
	 * (monotonic()) until its own clock caught up.
	 */
	shown = (double)__atomic_load_n(&ck.clock_last, __ATOMIC_RELAXED);
	if (at < shown)
		at = shown;
	/*
	 * Nor before the host's latest warp: with every vCPU halted, the
	 * host's time jumped to that deadline, so whatever wakes a vCPU
	 * afterwards (a device, in host time) comes no earlier. Joining the
	 * others finds nobody running when the other hosts are idle too,
	 * and a vCPU woken so resumed at its own halt time while the warped
	 * sibling ran, and read the clock, a whole timer period later (a
	 * reading of pool-unequal.scn held 40.000005 ms once; docs/
	 * timing-model.md, "Guest time").
	 */
	if (at < (double)ck.warped_to) {
		at = (double)ck.warped_to;
		if (at > now) {
			tp.cs.warp_joins++;
			if (at - now > tp.cs.warp_join_max_ns)
				tp.cs.warp_join_max_ns = at - now;
		}
	}
	idle_next_update();
	g_mutex_unlock(&ck.idle_lock);
	return at > now ? at : now;
}

/* Each CPU names itself: guest CPU numbers must be vCPU indexes. */
static void hello(unsigned int vi)
{
	struct cxlbed_clock_page *pg = tp.clock.page;

	if (pg->hello_cpu != vi && !pg->mismatch)
		pg->mismatch = vi + 1;
	ck.io_start = pg->io_start;
	ck.io_end = pg->io_end;
	ck.fix_start = pg->fix_start;
	ck.fix_end = pg->fix_end;
	tp.apic_icr = pg->apic_icr;
}

/* APIC id = vCPU index (QEMU's default x86 topology) */
static unsigned int icr_dest(uint32_t icr_hi)
{
	return icr_hi >> 24;
}

/*
 * Which halt the IPI ended: the destination's count of resumes, read
 * when the high word was stored (before the send), tells. Unchanged, it
 * is still in the halt the IPI found; changed, it was woken since, and
 * the halt it is in now is a later one, left alone. Without a high word
 * (a shorthand) only modeled times tell: a halt from after our published
 * clock is taken for a later one. They told wrong when the target halted
 * between our published clock and the send, a quarter of the skew at
 * most: a streamer released from a barrier then slept until its next
 * timer tick and began 0.7-1.7 ms after the chaser (queue-write.t).
 */
static bool halt_ended_by_send(const struct vcpu *v, const struct vcpu *o,
			       int i, double sent)
{
	if (v->icr_dest_resumes >= 0 && (int)icr_dest(v->icr_hi) == i)
		return o->resumes == (uint32_t)v->icr_dest_resumes;
	return o->halt_at < sent;
}

/*
 * A store to the APIC's ICR (high word: destination; low word: send).
 * The IPI's target, if halted, is woken at the sender's modeled time. A
 * hint only: this runs after the store, and on a busy host the target may
 * already have woken, run and halted again; clock_resume() ignores a
 * kick from before the halt it ends.
 */
void clock_apic_store(unsigned int vi, uint64_t vaddr, uint64_t value)
{
	struct vcpu *v = vcpu_get(vi), *o;
	int shorthand = (value >> 18) & 3;
	double now, sent;

	if (!v)
		return;
	if (vaddr != tp.apic_icr) {
		unsigned int dest = icr_dest((uint32_t)value);

		v->icr_hi = value;
		v->icr_dest_resumes = -1;
		if (dest < (unsigned int)tp.nvcpus && tp.cpu[dest])
			v->icr_dest_resumes = __atomic_load_n(&tp.cpu[dest]->resumes,
							      __ATOMIC_RELAXED);
		return;
	}
	now = vcpu_now(v, vi);
	/*
	 * Our clock as published before the store. A target that halted
	 * after it was woken by this very IPI, ran and halted again before
	 * we got here (a busy host): it halted past this, and is left alone.
	 */
	sent = tm_sync_published(&tp.sync, v->slot);
	g_mutex_lock(&ck.idle_lock);
	for (int i = 0; i < tp.nvcpus; i++) {
		bool to = shorthand == 0 ? (int)icr_dest(v->icr_hi) == i :
			  shorthand == 1 ? (unsigned int)i == vi :
			  shorthand == 2 || (unsigned int)i != vi;

		o = tp.cpu[i];
		if (!to || !o || !o->halted || !halt_ended_by_send(v, o, i, sent) ||
		    (o->kicked_at >= 0 && o->kicked_at <= now))
			continue;
		o->kicked_at = now;
		o->kick_ms = host_ms();
	}
	v->icr_dest_resumes = -1;
	idle_next_update();	/* a woken vCPU's deadline is not due here */
	g_mutex_unlock(&ck.idle_lock);
}

bool clock_skip_store(uint64_t vaddr)
{
	return (vaddr >= ck.io_start && vaddr < ck.io_end) ||
	       (vaddr >= ck.fix_start && vaddr < ck.fix_end);
}

void clock_marker(unsigned int vi, int what)
{
	struct cxlbed_clock_cpu *c = &tp.clock.page->cpu[vi];
	struct vcpu *v;
	double now, late;

	if (!tp.guest_time || vi >= (unsigned int)tp.nvcpus)
		return;
	if (what == CXLBED_CLK_HELLO) {
		hello(vi);
		vcpu_get(vi);	/* every vCPU has a clock: see try_warp() */
		return;
	}
	v = vcpu_get(vi);
	if (!v)
		return;
	now = vcpu_now(v, vi);
	switch (what) {
	case CXLBED_CLK_READ:
		c->now = monotonic(now);
		clock_check(v, vi, now);
		break;
	case CXLBED_CLK_SET:
		set_deadline(v, vi, (uint64_t)now + c->arg);
		clock_check(v, vi, now);
		break;
	case CXLBED_CLK_STOP:
		set_deadline(v, vi, UINT64_MAX);
		break;
	case CXLBED_CLK_IRQ:
		if (v->rung == UINT64_MAX) {	/* not ours: misrouted */
			__atomic_fetch_add(&tp.cs.stray, 1, __ATOMIC_RELAXED);
			break;
		}
		late = now - (double)v->rung;
		v->rung = UINT64_MAX;
		g_mutex_lock(&ck.idle_lock);
		tp.cs.handled++;
		tp.cs.late_sum_ns += late;
		if (late > tp.cs.late_max_ns)
			tp.cs.late_max_ns = late;
		g_mutex_unlock(&ck.idle_lock);
		break;
	}
}

bool clock_install(int sock, int nvcpus, char **err)
{
	if (!clock_dev_serve(&tp.clock, sock, nvcpus, err))
		return false;
	tp.guest_time = true;
	tp.nvcpus = nvcpus;
	tp.idle_next = UINT64_MAX;
	g_mutex_init(&ck.idle_lock);
	g_cond_init(&ck.warp_cond);
	g_thread_unref(g_thread_new("cxlbed-warp", warper, NULL));
	return true;
}
