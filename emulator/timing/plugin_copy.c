// SPDX-License-Identifier: MIT
/*
 * Copy engines for the guest (cxlbed-copy.h): a POST marker posts a
 * transfer on one of the host's engines at the vCPU's modeled time and
 * pauses the vCPU's model while the program moves the bytes itself; MOVED
 * resumes it at the time of POST; WAIT stalls the vCPU until the
 * transfer's completion (model_copy.h); BUSY charges modeled compute.
 */
#include <string.h>

#include "timing_plugin.h"
#include "cxlbed-copy.h"

bool copy_paused[TM_MAX_VCPUS];

struct engine {
	int hop[CE_MAX_HOPS];
	int nhops;
	double latency_ns, cap_gbps;
};

static struct engine engines[16];
static int nengines = -1;	/* -1: not built from the config yet */
static double paused_at[TM_MAX_VCPUS];
static struct qemu_plugin_register *rax;
static struct copy_stats stats;

/* The config's engines on the segment's copy resources (first use). */
static void build_engines(void)
{
	struct tm_config *c = &tp.cfg;
	int n = 0;

	for (guint i = 0; i < c->engines->len && n < 16; i++) {
		const struct tm_cfg_engine *e =
			&g_array_index(c->engines, struct tm_cfg_engine, i);
		struct engine *g = &engines[n++];

		memset(g, 0, sizeof(*g));
		g->latency_ns = e->latency_ns;
		g->cap_gbps = e->cap_gbps;
		for (int k = 0; k < e->nvia && k < CE_MAX_HOPS; k++)
			for (guint j = 0; j < c->copyres->len; j++) {
				const struct tm_cfg_copyres *r = &g_array_index(
					c->copyres, struct tm_cfg_copyres, j);
				int h;

				if (strcmp(r->name, e->via[k]))
					continue;
				h = ce_res_get(&tp.shm->copy, r->name, r->gbps, r->depth);
				if (h >= 0)
					g->hop[g->nhops++] = h;
			}
	}
	nengines = n;
}

/* %rax of the vCPU running the marker (registered with R_REGS). */
static uint64_t read_rax(void)
{
	g_autoptr(GByteArray) buf = g_byte_array_new();
	uint64_t v = 0;

	if (!rax) {
		GArray *regs = (GArray *)qemu_plugin_get_registers();

		for (guint i = 0; regs && i < regs->len; i++) {
			qemu_plugin_reg_descriptor *d =
				&g_array_index(regs, qemu_plugin_reg_descriptor, i);

			if (!strcmp(d->name, "rax"))
				rax = d->handle;
		}
		if (regs)
			g_array_free(regs, TRUE);
	}
	if (rax && qemu_plugin_read_register(rax, (struct _GByteArray *)buf) >= 8)
		memcpy(&v, buf->data, 8);
	return v;
}

static void post(struct vcpu *v, unsigned int vi, double now)
{
	g_autoptr(GByteArray) buf = g_byte_array_new();
	struct cxlbed_copy d;
	const struct engine *e;
	int h;

	if (!qemu_plugin_read_memory_vaddr(read_rax(), (struct _GByteArray *)buf,
					   sizeof(d))) {
		stats.refused++;
		return;
	}
	memcpy(&d, buf->data, sizeof(d));
	if (nengines < 0)
		build_engines();
	if (d.magic != CXLBED_COPY_MAGIC || (int)d.engine >= nengines ||
	    !engines[d.engine].nhops) {
		stats.refused++;
		return;
	}
	e = &engines[d.engine];
	h = ce_post(&tp.shm->copy, now, (double)d.bytes, e->hop, e->nhops,
		    e->cap_gbps, e->latency_ns, v->slot, d.tag);
	if (h < 0) {
		stats.refused++;
		return;
	}
	stats.posts++;
	stats.bytes += d.bytes;
	/* the program's own copy of the bytes is not modeled */
	paused_at[vi] = now;
	__atomic_store_n(&copy_paused[vi], true, __ATOMIC_RELAXED);
}

static void wait_for(struct vcpu *v, unsigned int vi, double now, uint64_t tag)
{
	int h = ce_find(&tp.shm->copy, v->slot, tag);
	double done;

	if (h < 0) {
		stats.refused++;
		return;
	}
	done = ce_done(&tp.shm->copy, h);
	ce_collect(&tp.shm->copy, h);
	stats.waits++;
	if (done > now) {
		stats.wait_ns += done - now;
		tm_stall_until(&v->clk, insns_of(vi), done);
	}
}

void copy_marker(unsigned int vi, int what)
{
	struct vcpu *v = vcpu_get(vi);
	double now;
	uint64_t arg;

	if (!v || tp.armed != 2)
		return;
	now = tm_now(&v->clk, insns_of(vi));
	switch (what) {
	case CXLBED_COPY_POST:
		post(v, vi, now);
		return;
	case CXLBED_COPY_MOVED:
		if (!copy_paused[vi])
			return;
		/* on from where POST left the clock: the copy's own
		 * instructions and accesses cost nothing */
		tm_vclock_start(&v->clk, insns_of(vi), paused_at[vi]);
		__atomic_store_n(&copy_paused[vi], false, __ATOMIC_RELAXED);
		return;
	case CXLBED_COPY_WAIT:
		wait_for(v, vi, now, read_rax());
		break;
	case CXLBED_COPY_BUSY:
		arg = read_rax();
		stats.busy_ns += arg;
		tm_stall_until(&v->clk, insns_of(vi), now + (double)arg);
		break;
	default:
		return;
	}
	now = tm_now(&v->clk, insns_of(vi));
	tm_sync_publish_clock(&tp.sync, v->slot, now);
	if (tp.guest_time)
		clock_check(v, vi, now);
}

const struct copy_stats *copy_stats(void)
{
	return &stats;
}
