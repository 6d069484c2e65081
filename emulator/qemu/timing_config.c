// SPDX-License-Identifier: MIT
#include "timing_config.h"

#include <string.h>

#include "common/error.h"

#define MIB (1024ull * 1024)
#define GIB (1024ull * MIB)
#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))

/*
 * Media figures; the path (bridge, links, switches) adds to the latency.
 * Latencies assume a direct-attached device (~15 ns of hops) unless said.
 */
static const struct timing_preset presets[] = {
	{ "ddr5-local", { 100, 100, 100, 70 },
	  "local DDR5, 80-115 ns idle" },
	{ "cxl-asic", { 205, 215, 24, 12 },
	  "CXL ASIC expander x8: ~2.2x local; 36 GB/s at 2:1 read:write" },
	{ "cxl-fpga", { 275, 285, 16, 8 },
	  "CXL FPGA expander: ~2.9x local" },
	{ "pond-182", { 167, 177, 24, 12 },
	  "Pond small pool, direct-attached: 182% of local" },
	{ "pond-222", { 157, 167, 24, 12 },
	  "Pond larger pool behind one switch (50 ns): 222% of local" },
};

const struct timing_preset *timing_presets(int *n)
{
	*n = G_N_ELEMENTS(presets);
	return presets;
}

const struct timing_preset *timing_preset_find(const char *name)
{
	for (guint i = 0; i < G_N_ELEMENTS(presets); i++)
		if (!strcmp(presets[i].name, name))
			return &presets[i];
	return NULL;
}

/* q35: RAM below 4 GiB stops at 2 GiB when there is 2.75 GiB or more. */
static uint64_t above_4g_end(uint64_t ram)
{
	uint64_t lowmem = ram >= 0xb0000000ull ? 0x80000000ull : 0xb0000000ull;
	uint64_t below = ram < lowmem ? ram : lowmem;

	return 4 * GIB + (ram - below);
}

uint64_t timing_window_base(const struct cb_host *h, const struct cb_window *w)
{
	/* the host-bridge register block (1 MiB) comes first */
	uint64_t base = ALIGN_UP(above_4g_end(h->memory) + MIB, 256 * MIB);
	struct cb_window *o;

	cb_foreach(h->windows, struct cb_window, o)
		if (o->index < w->index)
			base += o->size;
	return base;
}

uint64_t timing_region_base(const struct cb_host *h, const struct cb_region *r)
{
	uint64_t cursor = timing_window_base(h, r->window);
	struct cb_region *o;

	cb_foreach(h->regions, struct cb_region, o) {
		if (o->window != r->window)
			continue;
		cursor = ALIGN_UP(cursor, 256 * MIB);
		if (o == r)
			return cursor;
		cursor += o->size;
	}
	return cursor;
}

static void add_res(GString *s, GHashTable *seen, const char *name,
		    double rd, double wr)
{
	if (g_hash_table_contains(seen, name))
		return;
	g_hash_table_add(seen, g_strdup(name));
	g_string_append_printf(s, "resource name=%s read_gbps=%g write_gbps=%g\n",
			       name, rd, wr);
}

/*
 * A per-host QoS cap on link @id: a resource of this host's alone
 * ("cap:link:ID:HOST"), crossed just before the shared link, so the host
 * never gets more than the cap however idle the link is.
 */
static void add_cap(GString *s, GHashTable *seen, GPtrArray *via,
		    const struct cb_link *l, const char *id, const char *host)
{
	const double *cap = l->host_caps_gbps ?
		g_hash_table_lookup(l->host_caps_gbps, host) : NULL;
	char *name;

	if (!cap || *cap <= 0)
		return;
	name = g_strdup_printf("cap:link:%s:%s", id, host);
	add_res(s, seen, name, *cap, *cap);
	g_ptr_array_add(via, name);
}

/* Walk from a device up to its bridge, collecting resources top-down. */
static void device_line(GString *s, GHashTable *seen, const struct cb_device *d,
			const char *host)
{
	GPtrArray *via = g_ptr_array_new_with_free_func(g_free);
	g_autofree char *path = topology_device_path(d);
	const struct cb_port *port = d->port;
	const struct cb_bridge *b = port->bridge;
	double hops = d->link.latency_ns;
	char *media;

	/* resources in order from the device up, reversed when printed */
	media = d->pool ? g_strdup_printf("media:pool:%s", d->pool->id) :
			  g_strdup_printf("media:%s", d->id);
	add_res(s, seen, media, d->perf.read_gbps, d->perf.write_gbps);
	g_ptr_array_add(via, media);
	g_ptr_array_add(via, g_strdup_printf("link:%s", d->id));
	add_res(s, seen, g_ptr_array_index(via, via->len - 1), d->link.gbps,
		d->link.gbps);
	add_cap(s, seen, via, &d->link, d->id, host);
	while (port->kind == CB_PORT_DOWNSTREAM && port->parent_switch) {
		const struct cb_switch *sw = port->parent_switch;

		hops += sw->latency_ns + sw->link.latency_ns;
		g_ptr_array_add(via, g_strdup_printf("link:%s", sw->id));
		add_res(s, seen, g_ptr_array_index(via, via->len - 1),
			sw->link.gbps, sw->link.gbps);
		add_cap(s, seen, via, &sw->link, sw->id, host);
		port = sw->upstream;
	}
	hops += b->latency_ns;
	g_ptr_array_add(via, g_strdup_printf("bridge:%s", b->id));
	add_res(s, seen, g_ptr_array_index(via, via->len - 1), b->gbps, b->gbps);

	g_string_append_printf(s, "target name=%s path=%s cxl=1 read_ns=%g "
			       "write_ns=%g hops_ns=%g via=", d->id, path,
			       d->perf.read_latency_ns,
			       d->perf.write_latency_ns, hops);
	for (int i = via->len - 1; i >= 0; i--)
		g_string_append_printf(s, "%s%s", (char *)g_ptr_array_index(via, i),
				       i ? "," : "\n");
	g_ptr_array_free(via, TRUE);
}

char *timing_config_text(const struct cb_topology *t, const struct cb_host *h,
			 const struct timing_config_opts *o)
{
	static const struct timing_config_opts none;
	GString *s = g_string_new(NULL);
	g_autoptr(GHashTable) seen =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autofree char *dram = g_strdup_printf("dram:%s", h->id);
	const struct cb_cache_cfg *c = &h->cache;
	struct cb_device *d;
	struct cb_window *w;
	struct cb_region *r;

	if (!o)
		o = &none;
	g_string_append_printf(s, "cxlbed-timing 1\n"
			       "# generated by cxlbed from %s for host %s\n",
			       t->file ? t->file : "(topology)", h->id);
	g_string_append_printf(s, "host name=%s index=%d\n", h->id, h->index);
	if (o->ns_per_insn > 0 || o->skew_ns) {
		g_string_append(s, "clock");
		if (o->ns_per_insn > 0)
			g_string_append_printf(s, " ns_per_insn=%g", o->ns_per_insn);
		if (o->skew_ns)
			g_string_append_printf(s, " skew_ns=%llu",
					       (unsigned long long)o->skew_ns);
		g_string_append_c(s, '\n');
	}
	g_string_append_printf(s, "cache line=%d l1=%llu l2=%llu llc=%llu "
			       "mlp=%d",
			       c->line_bytes ? c->line_bytes : 64,
			       (unsigned long long)c->l1_bytes,
			       (unsigned long long)c->l2_bytes,
			       (unsigned long long)c->llc_bytes,
			       c->max_outstanding_misses ?
			       c->max_outstanding_misses : 16);
	if (o->prefetch_lines)
		g_string_append_printf(s, " prefetch=%d",
				       o->prefetch_lines < 0 ? 0 : o->prefetch_lines);
	g_string_append_c(s, '\n');
	if (o->shm)
		g_string_append_printf(s, "shm name=%s\n", o->shm);
	if (o->report)
		g_string_append_printf(s, "report path=%s\n", o->report);

	add_res(s, seen, dram, h->local.read_gbps, h->local.write_gbps);
	g_string_append_printf(s, "target name=local path=local cxl=0 "
			       "read_ns=%g write_ns=%g hops_ns=0 via=%s\n",
			       h->local.read_latency_ns,
			       h->local.write_latency_ns, dram);
	cb_foreach(h->devices, struct cb_device, d)
		device_line(s, seen, d, h->id);
	cb_foreach(h->windows, struct cb_window, w) {
		struct cb_bridge *b;

		g_string_append_printf(s, "window index=%d base=0x%llx "
				       "size=0x%llx gran=%u targets=", w->index,
				       (unsigned long long)timing_window_base(h, w),
				       (unsigned long long)w->size,
				       w->granularity);
		cb_foreach(w->bridges, struct cb_bridge, b)
			g_string_append_printf(s, "%s%s", b_i_ ? "," : "", b->id);
		g_string_append_c(s, '\n');
	}
	cb_foreach(h->regions, struct cb_region, r) {
		g_string_append_printf(s, "region name=%s base=0x%llx size=0x%llx "
				       "gran=%u targets=", r->id,
				       (unsigned long long)timing_region_base(h, r),
				       (unsigned long long)r->size,
				       r->granularity);
		cb_foreach(r->devices, struct cb_device, d)
			g_string_append_printf(s, "%s%s", d_i_ ? "," : "", d->id);
		g_string_append_c(s, '\n');
	}
	return g_string_free(s, FALSE);
}

bool timing_config_write_opts(const struct cb_topology *t,
			      const struct cb_host *h,
			      const struct timing_config_opts *o,
			      const char *path, GError **error)
{
	g_autofree char *text = timing_config_text(t, h, o);
	GError *e = NULL;

	if (!g_file_set_contents(path, text, -1, &e)) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN,
			    "writing timing config: %s", e->message);
		g_error_free(e);
		return false;
	}
	return true;
}

bool timing_config_write(const struct cb_topology *t, const struct cb_host *h,
			 const char *path, GError **error)
{
	return timing_config_write_opts(t, h, NULL, path, error);
}
