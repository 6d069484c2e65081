// SPDX-License-Identifier: MIT
#include "qemu/numa_layout.h"

/* A region's figures: the whole path, as the kernel should tier it. */
static void region_figures(struct numa_pd *pd, const struct cb_region *r)
{
	for (int dir = CB_READ; dir <= CB_WRITE; dir++) {
		pd->latency_ns[dir] = topology_region_max_latency_ns(r, dir);
		pd->gbps[dir] = topology_region_gbps(r, dir);
	}
	pd->has_figures = pd->latency_ns[CB_READ] > 0 && pd->gbps[CB_READ] > 0 &&
			  pd->latency_ns[CB_WRITE] > 0 && pd->gbps[CB_WRITE] > 0;
}

/* The regions of @w, then one domain each, tiling the window. */
static void add_window(struct numa_layout *l, const struct cb_window *w)
{
	const struct cb_host *h = l->host;
	uint64_t wbase = qemu_window_base(h, w), wend = wbase + w->size;
	struct numa_pd *prev = NULL;
	struct cb_region *r;

	cb_foreach(h->regions, struct cb_region, r) {
		struct numa_pd pd = {
			.kind = NUMA_PD_REGION,
			.pxm = l->pds->len,
			.region = r,
			.window = w,
		};
		uint64_t base = qemu_region_base(h, r);

		if (r->window != w)
			continue;
		pd.range.base = prev ? base : wbase;
		if (prev)
			prev->range.size = base - prev->range.base;
		region_figures(&pd, r);
		g_array_append_val(l->pds, pd);
		prev = &g_array_index(l->pds, struct numa_pd, l->pds->len - 1);
	}
	if (prev) {
		prev->range.size = wend - prev->range.base;
	} else {
		struct numa_pd pd = {
			.kind = NUMA_PD_WINDOW,
			.pxm = l->pds->len,
			.window = w,
			.range = { wbase, w->size },
		};

		g_array_append_val(l->pds, pd);
	}
}

struct numa_layout *numa_layout_new(const struct cb_host *h,
				    int (*bridge_uid)(const struct cb_bridge *b,
						      void *data),
				    void *data)
{
	struct numa_layout *l = g_new0(struct numa_layout, 1);
	struct numa_pd dram = { .kind = NUMA_PD_DRAM, .has_figures = true };
	struct cb_window *w;
	struct cb_bridge *b;

	l->host = h;
	l->pds = g_array_new(FALSE, TRUE, sizeof(struct numa_pd));
	l->ndram = qemu_dram_ranges(h, l->dram);
	dram.latency_ns[CB_READ] = h->local.read_latency_ns;
	dram.latency_ns[CB_WRITE] = h->local.write_latency_ns;
	dram.gbps[CB_READ] = h->local.read_gbps;
	dram.gbps[CB_WRITE] = h->local.write_gbps;
	g_array_append_val(l->pds, dram);
	cb_foreach(h->windows, struct cb_window, w)
		add_window(l, w);
	cb_foreach(h->bridges, struct cb_bridge, b) {
		struct numa_pd pd = {
			.kind = NUMA_PD_PORT,
			.pxm = l->pds->len,
			.bridge = b,
			.uid = bridge_uid ? (uint32_t)bridge_uid(b, data) : 0,
			.has_figures = true,
			.latency_ns = { b->latency_ns, b->latency_ns },
			.gbps = { b->gbps, b->gbps },
		};

		g_array_append_val(l->pds, pd);
	}
	return l;
}

void numa_layout_free(struct numa_layout *l)
{
	if (!l)
		return;
	g_array_unref(l->pds);
	g_free(l);
}

const struct numa_pd *numa_layout_region(const struct numa_layout *l,
					 const struct cb_region *r)
{
	for (guint i = 0; i < l->pds->len; i++) {
		const struct numa_pd *pd = &g_array_index(l->pds, struct numa_pd, i);

		if (pd->kind == NUMA_PD_REGION && pd->region == r)
			return pd;
	}
	return NULL;
}
