// SPDX-License-Identifier: MIT
/*
 * Memory shared between hosts without coherence (model_stale.h): every
 * modeled access to a region the config marks shared (`share=`) is
 * checked against the other hosts' stores, and clflush, clflushopt and
 * clwb, which QEMU runs without touching memory, are found in the code
 * (insn_flush.h) and applied to the model's caches and the stale table.
 * A flush's virtual address is translated through the pages of shared
 * regions this host touched lately; a page not among them (a program that
 * invalidates before its first access, as a reader must) keeps the flush
 * waiting for its area's first access (flush_pending.h).
 */
#include <string.h>

#include "timing_plugin.h"
#include "flush_pending.h"
#include "insn_flush.h"

uint64_t share_lo, share_hi;	/* the shared regions' span; 0, 0: none */

/* virtual page -> physical page of shared memory, direct-mapped, per host */
#define SHARE_PAGES 16384
static struct { uint64_t vpage1, ppage; } pages[SHARE_PAGES];
static struct flush_pending pending;	/* flushes not yet translated */

uint64_t share_flushes_dropped(void)
{
	return pending.dropped;
}
static struct qemu_plugin_register *regs[16];
static bool regs_found;

/* The shared regions of the config read last (bases as placed). */
#define SHARED_MAX 16
static struct { uint64_t base, size, share; } shared[SHARED_MAX];
static int nshared;

/* The shared region holding @pa: its offset in the shared space, or
 * TM_NOT_SHARED. */
static uint64_t share_offset(uint64_t pa)
{
	int n = __atomic_load_n(&nshared, __ATOMIC_ACQUIRE);

	for (int i = 0; i < n; i++)
		if (pa >= shared[i].base && pa < shared[i].base + shared[i].size)
			return shared[i].share + (pa - shared[i].base);
	return TM_NOT_SHARED;
}

void share_config(const struct tm_config *c)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	int n = 0;

	for (guint i = 0; i < c->regions->len && n < SHARED_MAX; i++) {
		const struct tm_cfg_region *g =
			&g_array_index(c->regions, struct tm_cfg_region, i);

		if (g->share == TM_NOT_SHARED)
			continue;
		shared[n].base = g->base;
		shared[n].size = g->size;
		shared[n++].share = g->share;
		if (g->base < lo)
			lo = g->base;
		if (g->base + g->size > hi)
			hi = g->base + g->size;
	}
	__atomic_store_n(&nshared, n, __ATOMIC_RELEASE);
	share_lo = hi ? lo : 0;
	share_hi = hi;
}

/* Flush the line of @pa (shared-space offset @off) from this host. */
static double flush_line(struct vcpu *v, uint64_t pa, uint64_t off, double now)
{
	double go = tm_mem_flush(&tp.mem, &v->mem, pa, now);

	v->clk.stall_ns += go - now;
	v->last_vline = 0;	/* its next access to the line is no repeat */
	sr_flush(&tp.shm->stale, off >> tp.mem.line_shift, tp.cfg.host_index);
	return go;
}

struct flush_ctx {
	struct vcpu *v;
	double now;
};

static void flush_waiting(uint64_t pa, void *ctx)
{
	struct flush_ctx *c = ctx;
	uint64_t off = share_offset(pa);

	if (off != TM_NOT_SHARED)
		c->now = flush_line(c->v, pa, off, c->now);
}

void share_access(struct vcpu *v, unsigned int vi, uint64_t vaddr,
		  uint64_t pa, bool store, uint64_t pc, double now)
{
	uint64_t off = share_offset(pa), line;
	struct sr_table *s = &tp.shm->stale;
	int host = tp.cfg.host_index;
	uint64_t vpage = vaddr >> TM_PAGE_SHIFT;

	if (off == TM_NOT_SHARED)
		return;
	pages[vpage % SHARE_PAGES].vpage1 = vpage + 1;
	pages[vpage % SHARE_PAGES].ppage = pa >> TM_PAGE_SHIFT;
	if (pending.used) {
		struct flush_ctx c = { v, now };

		if (fp_take(&pending, vaddr, pa, flush_waiting, &c))
			now = c.now;
	}
	line = off >> tp.mem.line_shift;
	if (store) {
		sr_store(s, line, host);
		return;
	}
	enum sr_kind k = sr_load(s, line, host);

	if (k != SR_FRESH) {
		struct sr_event e = {
			.line = line, .vaddr = vaddr, .pc = pc, .t_ns = now,
			.host = host, .kind = k, .roi = roi_open_on(&tp.log, vi),
			.writer = (int)s->line[line].writer - 1,
		};

		sr_log(s, &e);
	}
}

static uint64_t reg_value(int r)
{
	g_autoptr(GByteArray) buf = g_byte_array_new();
	uint64_t v = 0;

	if (r < 0 || !regs[r])
		return 0;
	if (qemu_plugin_read_register(regs[r], (struct _GByteArray *)buf) >= 8)
		memcpy(&v, buf->data, 8);
	return v;
}

static void find_regs(void)
{
	GArray *all = (GArray *)qemu_plugin_get_registers();

	for (guint i = 0; all && i < all->len; i++) {
		qemu_plugin_reg_descriptor *d =
			&g_array_index(all, qemu_plugin_reg_descriptor, i);

		for (int r = 0; r < 16; r++)
			if (!strcmp(d->name, insn_flush_reg_name(r)))
				regs[r] = d->handle;
	}
	if (all)
		g_array_free(all, TRUE);
	regs_found = true;
}

/* A flush instruction ran (registered with R_REGS; udata: its operand). */
static void on_flush(unsigned int vi, void *udata)
{
	const struct insn_flush *op = udata;
	struct vcpu *v = vcpu_get(vi);
	uint64_t vaddr, vpage, pa, off;

	if (!v || !share_hi || copy_paused[vi])
		return;
	if (!regs_found)
		find_regs();
	vaddr = reg_value(op->base) + reg_value(op->index) * op->scale +
		(uint64_t)op->disp;
	vpage = vaddr >> TM_PAGE_SHIFT;
	if (pages[vpage % SHARE_PAGES].vpage1 != vpage + 1) {
		fp_add(&pending, vaddr);	/* flushed at its area's first access */
		v->last_vline = 0;
		return;
	}
	pa = pages[vpage % SHARE_PAGES].ppage << TM_PAGE_SHIFT |
	     (vaddr & ((1ull << TM_PAGE_SHIFT) - 1));
	off = share_offset(pa);
	if (off == TM_NOT_SHARED)
		return;
	flush_line(v, pa, off, tm_now(&v->clk, v->cnt->insns));
}

void share_instrument(struct qemu_plugin_insn *insn)
{
	uint8_t b[16];
	size_t n = qemu_plugin_insn_size(insn);
	struct insn_flush op, *keep;

	if (n > sizeof(b) || qemu_plugin_insn_data(insn, b, n) != n ||
	    !insn_flush_decode(b, n, qemu_plugin_insn_vaddr(insn), &op))
		return;
	/* kept for the translation's life (flushes are few) */
	keep = g_memdup2(&op, sizeof(op));
	qemu_plugin_register_vcpu_insn_exec_cb(insn, on_flush,
					       QEMU_PLUGIN_CB_R_REGS, keep);
}
