// SPDX-License-Identifier: MIT
/*
 * The timing config's copy engines and shared regions for one host
 * (docs/kv-share.md): each RDMA NIC of the host crosses its own port and
 * the first other host's port of the same kind (`copyres`, shared by name
 * between the hosts' plugins), a DMA engine its own and the host's path to
 * its pools (a resource as wide as that path's narrowest part, which all
 * the engine's transfers in flight share); a region of a pool's device is
 * watched for stale reads at the device's offset in the run's shared space.
 */
#include "qemu/timing_copy.h"

#include "topology/path.h"

static void copyres_line(GString *s, const struct cb_copy_preset *p,
			 const char *name)
{
	g_string_append_printf(s, "copyres name=%s gbps=%g depth=%d\n", name,
			       p->gbps, p->depth);
}

/* The first other host with a NIC of @p's kind, or NULL. */
static const struct cb_host *peer_of(const struct cb_topology *t,
				     const struct cb_host *h,
				     const struct cb_copy_preset *p)
{
	struct cb_host *o;
	const struct cb_copy_preset *q;

	cb_foreach(t->hosts, struct cb_host, o) {
		if (o == h || !o->nics)
			continue;
		cb_foreach(o->nics, const struct cb_copy_preset, q)
			if (q == p)
				return o;
	}
	return NULL;
}

/* The narrowest read bandwidth on the way to @h's pool devices (0: none). */
static double pool_cap(const struct cb_host *h)
{
	struct cb_device *d;
	double cap = 0;

	cb_foreach(h->devices, struct cb_device, d) {
		const struct cb_path *p;

		if (!d->pool)
			continue;
		p = cb_device_path(d);
		if (!cap || d->perf.read_gbps < cap)
			cap = d->perf.read_gbps;
		for (int i = 0; i < p->nhops; i++)
			if (p->hops[i].resource && p->hops[i].gbps[CB_READ] > 0 &&
			    p->hops[i].gbps[CB_READ] < cap)
				cap = p->hops[i].gbps[CB_READ];
	}
	return cap;
}

void timing_copy_lines(GString *s, const struct cb_topology *t,
		       const struct cb_host *h)
{
	const struct cb_copy_preset *p, *dma = topology_copy_preset_find("dma");

	if (!h->nics)
		return;
	cb_foreach(h->nics, const struct cb_copy_preset, p) {
		const struct cb_host *o = peer_of(t, h, p);
		g_autofree char *mine = g_strdup_printf("nic:%s:%s", p->name, h->id);
		g_autofree char *theirs = o ? g_strdup_printf("nic:%s:%s", p->name,
							      o->id) : NULL;

		copyres_line(s, p, mine);
		if (theirs)
			copyres_line(s, p, theirs);
		g_string_append_printf(s, "engine name=%s latency_ns=%g via=%s%s%s\n",
				       p->name, p->latency_ns, mine,
				       theirs ? "," : "", theirs ? theirs : "");
	}
	if (h->dma_engine) {
		g_autofree char *mine = g_strdup_printf("dma:%s", h->id);
		g_autofree char *pool = g_strdup_printf("pool-path:%s", h->id);
		double cap = pool_cap(h);

		copyres_line(s, dma, mine);
		if (cap > 0)
			g_string_append_printf(s, "copyres name=%s gbps=%g depth=%d\n",
					       pool, cap, dma->depth);
		g_string_append_printf(s, "engine name=dma latency_ns=%g via=%s%s%s\n",
				       dma->latency_ns, mine, cap > 0 ? "," : "",
				       cap > 0 ? pool : "");
	}
}

uint64_t timing_share_offset(const struct cb_topology *t,
			     const struct cb_region *r)
{
	struct cb_device *d;
	struct cb_pool *pool;

	if (r->devices->len != 1)
		return UINT64_MAX;
	d = g_ptr_array_index(r->devices, 0);
	if (!d->pool || !d->pool->shared)
		return UINT64_MAX;
	/* pools apart by 4 GiB in the shared space; only the first 64 MiB
	 * of it is watched (model_stale.h) */
	cb_foreach(t->pools, struct cb_pool, pool)
		if (pool == d->pool)
			return ((uint64_t)pool_i_ << 32) + d->pool_offset;
	return UINT64_MAX;
}
