/* SPDX-License-Identifier: MIT */
/*
 * Sections -> objects. Pass 1 reads every section's keys into an object
 * (so unknown keys are known before any reference is chased); pass 2
 * resolves names (host, bridge, port, window, devices, pool) kind by kind,
 * so the order of sections in the file does not matter.
 */
#include "topology/topology_priv.h"
#include "common/error.h"

#include <math.h>
#include <string.h>

#define FAIL(line, ...) topo_fail(error, c->cfg->path, (line), __VA_ARGS__)
#define MIB(x) ((unsigned long long)((x) / CB_MIB))
#define ULL(x) ((unsigned long long)(x))
#define GET(call) do { if (!(call)) return false; } while (0)

static const char *const section_kinds[] = {
	[TK_HOST] = "host", [TK_BRIDGE] = "bridge", [TK_ROOTPORT] = "rootport",
	[TK_SWITCH] = "switch", [TK_DEVICE] = "device", [TK_WINDOW] = "window",
	[TK_REGION] = "region", [TK_POOL] = "pool",
};

void topo_obj_free(gpointer p)
{
	struct topo_obj *o = p;

	g_strfreev(o->list);
	g_free(o);
}

static bool valid_width(int w)
{
	return w == 1 || w == 2 || w == 4 || w == 8 || w == 16;
}

static bool valid_speed(double s)
{
	static const double ok[] = { 2.5, 5, 8, 16, 32, 64 };

	for (size_t i = 0; i < G_N_ELEMENTS(ok); i++)
		if (fabs(s - ok[i]) < 1e-9)
			return true;
	return false;
}

bool topo_valid_granularity(uint64_t g)
{
	return g >= 256 && g <= 16384 && !(g & (g - 1));
}

static bool get_capacity(struct topo_ctx *c, struct cfg_section *s,
			 const char *key, uint64_t def, uint64_t *out,
			 GError **error)
{
	GET(cfg_get_size(c->cfg, s, key, def, CB_CAPACITY_UNIT, TOPO_MAX_CAPACITY,
			 out, error));
	if (*out % CB_CAPACITY_UNIT)
		return FAIL(topo_key_line(s, key),
			    "%s: %llu MiB is not a multiple of "
			    "256 MiB (CXL decoders map 256 MiB units); use e.g. "
			    "256M, 512M, 1G", key, MIB(*out));
	return true;
}

static bool get_granularity(struct topo_ctx *c, struct cfg_section *s,
			    uint32_t def, uint32_t *out, GError **error)
{
	uint64_t g;

	GET(cfg_get_size(c->cfg, s, "granularity", def, 256, 16384, &g, error));
	if (!topo_valid_granularity(g))
		return FAIL(topo_key_line(s, "granularity"),
			    "granularity: %llu bytes is not "
			    "a power of two from 256 to 16K; use 256, 512, 1K, "
			    "2K, 4K, 8K or 16K", ULL(g));
	*out = g;
	return true;
}

static bool get_int(struct topo_ctx *c, struct cfg_section *s, const char *key,
		    int def, int min, int max, int *out, GError **error)
{
	uint64_t v;

	GET(cfg_get_uint(c->cfg, s, key, def, min, max, &v, error));
	*out = v;
	return true;
}

/* A latency in ns: hops may cost nothing, a memory at least 1 ns (CDAT's unit). */
static bool get_ns(struct topo_ctx *c, struct cfg_section *s, const char *key,
		   double def, double min, double *out, GError **error)
{
	return cfg_get_real(c->cfg, s, key, def, min, TOPO_MAX_NS, out, error);
}

static bool get_gbps(struct topo_ctx *c, struct cfg_section *s,
		     const char *key, double def, double *out, GError **error)
{
	return cfg_get_real(c->cfg, s, key, def, TOPO_MIN_GBPS, TOPO_MAX_GBPS,
			    out, error);
}

/* GB/s where 0 means "none given": 0, or the range of get_gbps. */
static bool get_gbps_or_0(struct topo_ctx *c, struct cfg_section *s,
			  const char *key, const char *zero, double *out,
			  GError **error)
{
	GET(cfg_get_real(c->cfg, s, key, 0, 0, TOPO_MAX_GBPS, out, error));
	if (*out > 0 && *out < TOPO_MIN_GBPS)
		return FAIL(topo_key_line(s, key), "%s: %g GB/s is below "
			    "%g (1 MB/s, the unit CDAT and HMAT carry); use 0 "
			    "(%s) or %g to %g", key, *out, TOPO_MIN_GBPS, zero,
			    TOPO_MIN_GBPS, TOPO_MAX_GBPS);
	return true;
}

/*
 * Memory figures from @keys: read/write latency, read/write GB/s. Their
 * defaults come from the named preset (key @preset_key) if given, else
 * from @def; a key given beside a preset overrides its figure.
 */
static bool get_mem_perf(struct topo_ctx *c, struct cfg_section *s,
			 const char *preset_key, const char *const keys[4],
			 const struct cb_mem_perf *def, bool write_follows_read,
			 struct cb_mem_perf *out, GError **error)
{
	const char *name = cfg_get_string(c->cfg, s, preset_key, NULL);
	struct cb_mem_perf base = *def;

	if (name) {
		const struct cb_preset *p = topology_preset_find(name);

		if (!p) {
			g_autoptr(GString) names = g_string_new(NULL);
			int n;
			const struct cb_preset *all = topology_presets(&n);

			for (int i = 0; i < n; i++)
				g_string_append_printf(names, "%s%s", i ? ", " : "",
						       all[i].name);
			return FAIL(topo_key_line(s, preset_key), "%s: no preset "
				    "'%s'; use one of %s (docs/timing-model.md)",
				    preset_key, name, names->str);
		}
		base = p->perf;
	}
	GET(get_ns(c, s, keys[0], base.read_latency_ns, 1,
		   &out->read_latency_ns, error));
	/* DRAM without a preset: write latency defaults to the read latency */
	GET(get_ns(c, s, keys[1], !name && write_follows_read ?
		   out->read_latency_ns : base.write_latency_ns, 1,
		   &out->write_latency_ns, error));
	GET(get_gbps(c, s, keys[2], base.read_gbps, &out->read_gbps, error));
	GET(get_gbps(c, s, keys[3], base.write_gbps, &out->write_gbps, error));
	return true;
}

/* link-width, link-speed, link-latency-ns, link-gbps: the link above. */
static bool get_link(struct topo_ctx *c, struct cfg_section *s, int def_width,
		     struct cb_link *l, GError **error)
{
	double g;

	GET(get_int(c, s, "link-width", def_width, 1, 16, &l->width, error));
	if (!valid_width(l->width))
		return FAIL(topo_key_line(s, "link-width"),
			    "link-width: x%d is not a CXL link width; use 1, 2, "
			    "4, 8 or 16", l->width);
	GET(cfg_get_real(c->cfg, s, "link-speed", TOPO_DEF_LINK_SPEED, 2.5, 64,
			 &l->speed_gts, error));
	if (!valid_speed(l->speed_gts))
		return FAIL(topo_key_line(s, "link-speed"),
			    "link-speed: %g GT/s is not a PCIe rate; use 2.5, "
			    "5, 8, 16, 32 or 64", l->speed_gts);
	GET(get_ns(c, s, "link-latency-ns", TOPO_DEF_LINK_LAT, 0, &l->latency_ns,
		   error));
	GET(get_gbps_or_0(c, s, "link-gbps", "derived from width and speed",
			  &g, error));
	l->gbps = g > 0 ? g : topo_link_derived_gbps(l->width, l->speed_gts);
	GET(get_gbps_or_0(c, s, "qos-gbps", "no cap", &l->qos_gbps, error));
	if (l->qos_gbps > l->gbps)
		return FAIL(topo_key_line(s, "qos-gbps"),
			    "qos-gbps: a %g GB/s cap on a %g GB/s link caps nothing; "
			    "give a value below the link's bandwidth", l->qos_gbps,
			    l->gbps);
	return true;
}

/* qos-gbps caps this host's traffic on the link; the model keys caps by host. */
static void settle_qos(struct cb_link *l, const struct cb_host *h)
{
	double *cap;

	if (l->qos_gbps <= 0)
		return;
	if (!l->host_caps_gbps)
		l->host_caps_gbps = g_hash_table_new_full(g_str_hash, g_str_equal,
							  g_free, g_free);
	cap = g_new(double, 1);
	*cap = l->qos_gbps;
	g_hash_table_insert(l->host_caps_gbps, g_strdup(h->id), cap);
}

/* [host] nics = PRESET, ... and dma-engine = on (docs/kv-share.md). */
static bool parse_copy_engines(struct topo_ctx *c, struct cfg_section *s,
			       struct cb_host *h, GError **error)
{
	g_auto(GStrv) names = cfg_get_list(c->cfg, s, "nics");

	h->nics = g_ptr_array_new();
	for (int i = 0; names && names[i]; i++) {
		const char *n = names[i];
		const struct cb_copy_preset *p = topology_copy_preset_find(n);

		if (!p || !strcmp(n, "dma"))
			return FAIL(topo_key_line(s, "nics"),
				    "nics: '%s' is not a NIC (rdma-100g, rdma-200g)", n);
		g_ptr_array_add(h->nics, (gpointer)p);
	}
	return cfg_get_bool(c->cfg, s, "dma-engine", false, &h->dma_engine,
			    error);
}

static bool parse_host(struct topo_ctx *c, struct topo_obj *o, GError **error)
{
	struct cfg_section *s = o->sec;
	struct cb_host *h = g_new0(struct cb_host, 1);
	uint64_t v;

	h->id = g_strdup(s->name);
	h->src = (struct cb_src){ c->t->file, s->line };
	h->index = c->t->hosts->len;
	h->bridges = g_ptr_array_new();
	h->windows = g_ptr_array_new();
	h->regions = g_ptr_array_new();
	h->devices = g_ptr_array_new();
	h->switches = g_ptr_array_new();
	g_ptr_array_add(c->t->hosts, h);
	o->obj = h;

	GET(get_int(c, s, "cpus", TOPO_DEF_CPUS, 1, TOPO_MAX_CPUS, &h->cpus,
		    error));
	GET(cfg_get_size(c->cfg, s, "memory", TOPO_DEF_HOST_MEMORY, 128 * CB_MIB,
			 TOPO_MAX_CAPACITY, &h->memory, error));
	if (h->memory % CB_MIB)
		return FAIL(topo_key_line(s, "memory"),
			    "memory: use a whole number of MiB, at least 128M "
			    "(e.g. 1G)");
	GET(get_mem_perf(c, s, "dram-preset", (const char *const[]){
				 "dram-read-latency-ns", "dram-write-latency-ns",
				 "dram-read-gbps", "dram-write-gbps" },
			 &(struct cb_mem_perf){ TOPO_DEF_DRAM_RLAT, TOPO_DEF_DRAM_WLAT,
				 TOPO_DEF_DRAM_RGBPS, TOPO_DEF_DRAM_WGBPS },
			 true, &h->local, error));
	/* the timing model keeps 16 bytes per line of each cache */
	GET(cfg_get_size(c->cfg, s, "l1", 48 * 1024, TOPO_MIN_CACHE, CB_MIB,
			 &h->cache.l1_bytes, error));
	GET(cfg_get_size(c->cfg, s, "l2", 2 * CB_MIB, TOPO_MIN_CACHE, 64 * CB_MIB,
			 &h->cache.l2_bytes, error));
	GET(cfg_get_size(c->cfg, s, "llc", 32 * CB_MIB, TOPO_MIN_CACHE, CB_GIB,
			 &h->cache.llc_bytes, error));
	GET(cfg_get_uint(c->cfg, s, "cache-line", 64, 16, 256, &v, error));
	if (v & (v - 1))
		return FAIL(topo_key_line(s, "cache-line"),
			    "cache-line: use a power of two from 16 to 256");
	h->cache.line_bytes = v;
	GET(get_int(c, s, "max-outstanding-misses", 10, 1, 256,
		    &h->cache.max_outstanding_misses, error));
	GET(get_ns(c, s, "snoop-latency-ns", TOPO_DEF_SNOOP_LAT, 0,
		   &h->cache.snoop_latency_ns, error));
	return parse_copy_engines(c, s, h, error);
}

static bool parse_bridge(struct topo_ctx *c, struct topo_obj *o, GError **error)
{
	struct cfg_section *s = o->sec;
	struct cb_bridge *b = g_new0(struct cb_bridge, 1);

	b->id = g_strdup(s->name);
	b->src = (struct cb_src){ c->t->file, s->line };
	b->rootports = g_ptr_array_new();
	g_ptr_array_add(c->t->bridges, b);
	o->obj = b;
	o->ref = cfg_get_string(c->cfg, s, "host", NULL);
	GET(get_ns(c, s, "latency-ns", TOPO_DEF_BRIDGE_LAT, 0, &b->latency_ns,
		   error));
	GET(get_gbps(c, s, "gbps", TOPO_DEF_BRIDGE_GBPS, &b->gbps, error));
	return true;
}

static bool parse_rootport(struct topo_ctx *c, struct topo_obj *o,
			   GError **error)
{
	struct cfg_section *s = o->sec;
	struct cb_port *p = g_new0(struct cb_port, 1);

	p->id = g_strdup(s->name);
	p->src = (struct cb_src){ c->t->file, s->line };
	p->kind = CB_PORT_ROOT;
	g_ptr_array_add(c->t->ports, p);
	o->obj = p;
	o->ref = cfg_get_string(c->cfg, s, "bridge", NULL);
	GET(cfg_get_bool(c->cfg, s, "hotplug", false, &p->hotplug, error));
	return true;
}

static bool parse_switch(struct topo_ctx *c, struct topo_obj *o, GError **error)
{
	struct cfg_section *s = o->sec;
	struct cb_switch *sw = g_new0(struct cb_switch, 1);
	bool hotplug;

	sw->id = g_strdup(s->name);
	sw->src = (struct cb_src){ c->t->file, s->line };
	g_ptr_array_add(c->t->switches, sw);
	o->obj = sw;
	o->ref = cfg_get_string(c->cfg, s, "port", NULL);
	GET(get_int(c, s, "ports", TOPO_DEF_SWITCH_PORTS, 1,
		    TOPO_MAX_SWITCH_PORTS, &sw->nports, error));
	GET(get_ns(c, s, "latency-ns", TOPO_DEF_SWITCH_LAT, 0, &sw->latency_ns,
		   error));
	GET(get_link(c, s, TOPO_DEF_LINK_WIDTH, &sw->link, error));
	GET(cfg_get_bool(c->cfg, s, "hotplug", false, &hotplug, error));
	sw->ports = g_new0(struct cb_port *, sw->nports);
	for (int i = 0; i < sw->nports; i++) {
		struct cb_port *p = g_new0(struct cb_port, 1);

		p->id = g_strdup_printf("%s.p%d", sw->id, i);
		p->src = sw->src;
		p->kind = CB_PORT_DOWNSTREAM;
		p->number = i;
		p->parent_switch = sw;
		p->hotplug = hotplug;
		sw->ports[i] = p;
		g_ptr_array_add(c->t->ports, p);
		if (g_hash_table_contains(c->ids, p->id))
			return FAIL(s->line, "switch port id '%s' clashes with "
				    "another section's name; rename one", p->id);
	}
	return true;
}

static bool parse_device(struct topo_ctx *c, struct topo_obj *o, GError **error)
{
	struct cfg_section *s = o->sec;
	struct cb_device *d = g_new0(struct cb_device, 1);
	const char *type;

	d->id = g_strdup(s->name);
	d->src = (struct cb_src){ c->t->file, s->line };
	g_ptr_array_add(c->t->devices, d);
	o->obj = d;
	o->ref = cfg_get_string(c->cfg, s, "port", NULL);
	o->ref2 = cfg_get_string(c->cfg, s, "pool", NULL);
	type = cfg_get_string(c->cfg, s, "type", "volatile");
	if (!strcmp(type, "persistent"))
		d->persistent = true;
	else if (strcmp(type, "volatile"))
		return FAIL(topo_key_line(s, "type"), "type: '%s' is not a "
			    "device type; use volatile or persistent", type);
	GET(get_capacity(c, s, "size", CB_CAPACITY_UNIT, &d->size, error));
	GET(cfg_get_uint_hex(c->cfg, s, "serial", 0, 0, UINT64_MAX, &d->serial,
			     error));
	d->serial_given = cfg_section_find(s, "serial") != NULL;
	if (d->serial_given && !d->serial)
		return FAIL(topo_key_line(s, "serial"),
			    "serial: 0 is reserved; use a non-zero number or "
			    "leave serial out to have one assigned");
	GET(get_mem_perf(c, s, "preset", (const char *const[]){
				 "read-latency-ns", "write-latency-ns",
				 "read-gbps", "write-gbps" },
			 &(struct cb_mem_perf){ TOPO_DEF_DEV_RLAT, TOPO_DEF_DEV_WLAT,
				 TOPO_DEF_DEV_RGBPS, TOPO_DEF_DEV_WGBPS },
			 false, &d->perf, error));
	GET(cfg_get_size(c->cfg, s, "pool-offset", 0, 0, TOPO_MAX_CAPACITY,
			 &d->pool_offset, error));
	d->pool_offset_given = cfg_section_find(s, "pool-offset") != NULL;
	if (d->pool_offset_given && !o->ref2)
		return FAIL(topo_key_line(s, "pool-offset"),
			    "pool-offset only makes sense with pool = POOL");
	if (d->pool_offset % CB_CAPACITY_UNIT)
		return FAIL(topo_key_line(s, "pool-offset"),
			    "pool-offset: use a multiple of 256M");
	GET(get_link(c, s, TOPO_DEF_DEV_LINK_WIDTH, &d->link, error));
	return true;
}

static bool parse_window(struct topo_ctx *c, struct topo_obj *o, GError **error)
{
	struct cfg_section *s = o->sec;
	struct cb_window *w = g_new0(struct cb_window, 1);

	w->id = g_strdup(s->name);
	w->src = (struct cb_src){ c->t->file, s->line };
	w->bridges = g_ptr_array_new();
	g_ptr_array_add(c->t->windows, w);
	o->obj = w;
	o->ref = cfg_get_string(c->cfg, s, "host", NULL);
	o->list = cfg_get_list(c->cfg, s, "targets");
	GET(get_capacity(c, s, "size", 4 * CB_GIB, &w->size, error));
	GET(get_granularity(c, s, TOPO_DEF_GRANULARITY, &w->granularity, error));
	return true;
}

static bool parse_region(struct topo_ctx *c, struct topo_obj *o, GError **error)
{
	struct cfg_section *s = o->sec;
	struct cb_region *r = g_new0(struct cb_region, 1);
	const char *mode;

	r->id = g_strdup(s->name);
	r->src = (struct cb_src){ c->t->file, s->line };
	r->devices = g_ptr_array_new();
	g_ptr_array_add(c->t->regions, r);
	o->obj = r;
	o->ref = cfg_get_string(c->cfg, s, "window", NULL);
	o->list = cfg_get_list(c->cfg, s, "devices");
	/* 0: take the window's granularity once it is known. */
	if (cfg_section_find(s, "granularity"))
		GET(get_granularity(c, s, 0, &r->granularity, error));
	mode = cfg_get_string(c->cfg, s, "mode", "ram");
	if (!strcmp(mode, "devdax"))
		r->mode = CB_REGION_DEVDAX;
	else if (strcmp(mode, "ram"))
		return FAIL(topo_key_line(s, "mode"), "mode: '%s' is not a "
			    "region mode; use ram or devdax", mode);
	return true;
}

/*
 * ld-size carves the pool into logical devices the fabric manager lends;
 * such a pool has media and link figures of its own (its LDs'), and may
 * name the hosts it lends to (resolved in validate.c).
 */
static bool parse_pool_lending(struct topo_ctx *c, struct topo_obj *o,
			       struct cb_pool *p, GError **error)
{
	static const char *const keys[] = {
		"hosts", "preset", "read-latency-ns", "write-latency-ns",
		"read-gbps", "write-gbps", "link-width", "link-speed",
		"link-latency-ns", "link-gbps",
	};
	struct cfg_section *s = o->sec;

	if (cfg_section_find(s, "ld-size") && p->persistent)
		return FAIL(topo_key_line(s, "type"), "type: a lending pool is "
			    "volatile (its LDs come online as RAM or devdax); "
			    "drop type = persistent or ld-size");
	if (!cfg_section_find(s, "ld-size")) {
		for (size_t i = 0; i < G_N_ELEMENTS(keys); i++)
			if (cfg_section_find(s, keys[i]))
				return FAIL(topo_key_line(s, keys[i]), "%s: only a "
					    "pool that lends logical devices "
					    "(ld-size = ...) takes it; add ld-size "
					    "or set it on the pool's [device] "
					    "sections", keys[i]);
		return true;
	}
	GET(get_capacity(c, s, "ld-size", CB_CAPACITY_UNIT, &p->ld_size, error));
	if (p->size % p->ld_size)
		return FAIL(topo_key_line(s, "ld-size"), "ld-size: %lluM does not "
			    "divide the pool's %lluM into whole logical devices; "
			    "use a divisor of it", MIB(p->ld_size), MIB(p->size));
	if (!p->shared)
		return FAIL(topo_key_line(s, "shared"), "shared: a lending pool "
			    "gives each LD its own slice already; drop shared = off");
	o->list = cfg_get_list(c->cfg, s, "hosts");
	GET(get_mem_perf(c, s, "preset", (const char *const[]){
				 "read-latency-ns", "write-latency-ns",
				 "read-gbps", "write-gbps" },
			 &(struct cb_mem_perf){ TOPO_DEF_DEV_RLAT, TOPO_DEF_DEV_WLAT,
				 TOPO_DEF_DEV_RGBPS, TOPO_DEF_DEV_WGBPS },
			 false, &p->perf, error));
	GET(get_link(c, s, TOPO_DEF_DEV_LINK_WIDTH, &p->ld_link, error));
	return true;
}

static bool parse_pool(struct topo_ctx *c, struct topo_obj *o, GError **error)
{
	struct cfg_section *s = o->sec;
	struct cb_pool *p = g_new0(struct cb_pool, 1);
	const char *type, *file;

	p->id = g_strdup(s->name);
	p->src = (struct cb_src){ c->t->file, s->line };
	p->devices = g_ptr_array_new();
	p->lds = g_ptr_array_new();
	p->ld_hosts = g_ptr_array_new();
	g_ptr_array_add(c->t->pools, p);
	o->obj = p;
	GET(get_capacity(c, s, "size", CB_CAPACITY_UNIT, &p->size, error));
	if (!cfg_section_find(s, "size"))
		return FAIL(s->line, "[pool %s] needs size = (e.g. 256M)",
			    p->id);
	type = cfg_get_string(c->cfg, s, "type", "volatile");
	if (!strcmp(type, "persistent"))
		p->persistent = true;
	else if (strcmp(type, "volatile"))
		return FAIL(topo_key_line(s, "type"), "type: '%s' is not a "
			    "pool type; use volatile or persistent", type);
	file = cfg_get_string(c->cfg, s, "file", NULL);
	if (file && strchr(file, ','))
		return FAIL(topo_key_line(s, "file"), "file: '%s' has a ',', "
			    "which a QEMU option value cannot carry; rename "
			    "the file", file);
	p->file = file && *file ? g_strdup(file) : NULL;
	GET(cfg_get_bool(c->cfg, s, "shared", true, &p->shared, error));
	return parse_pool_lending(c, o, p, error);
}

static bool parse_topology(struct topo_ctx *c, struct cfg_section *s,
			   GError **error)
{
	g_autofree char *base = NULL;

	if (c->t->name)
		return FAIL(s->line, "[topology] given twice; keep one");
	if (s->name)
		return FAIL(s->line, "[topology] takes no name; write "
			    "'name = %s' inside it", s->name);
	base = cfg_name_from_file(c->t->file, ".topo");
	c->t->name = g_strdup(cfg_get_string(c->cfg, s, "name", base));
	c->t->description = g_strdup(cfg_get_string(c->cfg, s, "description",
						    ""));
	/* it names results/RUN_ID and table folders: the rule of ids */
	if (!cfg_name_ok(c->t->name))
		return FAIL(topo_key_line(s, "name"), "name: '%s' is not a "
			    "name; use %s", c->t->name, CFG_NAME_RULE);
	return cb_kernel_spec_from_section(c->cfg, s, &c->t->kernel, error);
}

typedef bool (*parse_fn)(struct topo_ctx *, struct topo_obj *, GError **);
static const parse_fn parsers[] = {
	[TK_HOST] = parse_host, [TK_BRIDGE] = parse_bridge,
	[TK_ROOTPORT] = parse_rootport, [TK_SWITCH] = parse_switch,
	[TK_DEVICE] = parse_device, [TK_WINDOW] = parse_window,
	[TK_REGION] = parse_region, [TK_POOL] = parse_pool,
};

static bool read_section(struct topo_ctx *c, struct cfg_section *s,
			 GError **error)
{
	struct topo_obj *o, *prev;
	int k;

	if (!strcmp(s->kind, "topology"))
		return parse_topology(c, s, error);
	for (k = 0; k < (int)G_N_ELEMENTS(section_kinds); k++)
		if (!strcmp(s->kind, section_kinds[k]))
			break;
	if (k == (int)G_N_ELEMENTS(section_kinds))
		return FAIL(s->line, "unknown section [%s]; known: topology, "
			    "host, bridge, rootport, switch, device, window, "
			    "region, pool", s->kind);
	if (!s->name)
		return FAIL(s->line, "[%s] needs a name: [%s NAME]", s->kind,
			    s->kind);
	prev = g_hash_table_lookup(c->ids, s->name);
	if (prev)
		return FAIL(s->line, "'%s' is already the name of [%s %s] at "
			    "line %d; names must be unique across sections",
			    s->name, prev->sec->kind, prev->sec->name,
			    prev->sec->line);
	if (strchr(s->name, '.'))
		return FAIL(s->line, "name '%s' has a '.'; the dot is kept for "
			    "switch ports (sw0.p1): rename it", s->name);
	/* Names become QEMU ids, which must start with a letter, and file names. */
	if (!cfg_name_ok(s->name))
		return FAIL(s->line, "name '%s' is not a name; use %s", s->name,
			    CFG_NAME_RULE);
	o = g_new0(struct topo_obj, 1);
	o->kind = k;
	o->sec = s;
	g_ptr_array_add(c->objs, o);
	g_hash_table_insert(c->ids, s->name, o);
	if (!c->count[k]++)
		c->first[k] = o;
	GET(parsers[k](c, o, error));
	g_hash_table_insert(c->of_obj, o->obj, o);
	return true;
}

static bool check_unknown_keys(struct topo_ctx *c, GError **error)
{
	struct cfg_section *s;

	cb_foreach(c->cfg->sections, struct cfg_section, s) {
		struct cfg_entry *e = cfg_section_first_unused(s);

		if (e)
			return FAIL(e->line, "unknown key '%s' in [%s%s%s]; "
				    "docs/topology.md lists the keys of each "
				    "section", e->key, s->kind,
				    s->name ? " " : "", s->name ? s->name : "");
	}
	return true;
}

/* The one object of KIND when REF is absent and there is exactly one. */
static struct topo_obj *resolve(struct topo_ctx *c, struct topo_obj *o,
				const char *key, const char *ref,
				enum topo_kind kind, GError **error)
{
	struct topo_obj *t;

	if (!ref) {
		guint n = c->count[kind];

		if (n == 1)
			return c->first[kind];
		g_autofree char *up = g_ascii_strup(topo_kind_name(kind), -1);

		FAIL(o->sec->line, "[%s %s] needs %s = %s%s", o->sec->kind,
		     o->sec->name, key, up, n ? " (there is more than one "
		     "to choose from)" : " (and none is defined)");
		return NULL;
	}
	t = g_hash_table_lookup(c->ids, ref);
	if (!t || t->kind != kind) {
		FAIL(topo_key_line(o->sec, key), "%s: no [%s %s] in this file%s",
		     key, topo_kind_name(kind), ref,
		     t ? " (that name is a different kind of section)" : "");
		return NULL;
	}
	return t;
}

static bool plug(struct topo_ctx *c, struct topo_obj *o, struct cb_port *p,
		 GError **error)
{
	if (p->child_kind != CB_NODE_NONE) {
		const char *who = p->child_kind == CB_NODE_SWITCH ?
			p->child.sw->id : p->child.dev->id;
		int line = p->child_kind == CB_NODE_SWITCH ?
			p->child.sw->src.line : p->child.dev->src.line;

		return FAIL(topo_key_line(o->sec, "port"), "port: %s is already "
			    "used by %s (line %d); one switch or device per "
			    "port: pick a free port", p->id, who, line);
	}
	if (o->kind == TK_SWITCH) {
		struct cb_switch *sw = o->obj;

		p->child_kind = CB_NODE_SWITCH;
		p->child.sw = sw;
		sw->upstream = p;
	} else {
		struct cb_device *d = o->obj;

		p->child_kind = CB_NODE_DEVICE;
		p->child.dev = d;
		d->port = p;
	}
	return true;
}

/* Downstream port "pN" of @sw, or NULL. */
static struct cb_port *switch_port(struct cb_switch *sw, const char *pn)
{
	uint64_t n;

	if (pn[0] != 'p' || !cfg_parse_uint(pn + 1, false, &n) ||
	    n >= (uint64_t)sw->nports)
		return NULL;
	return sw->ports[n];
}

/* Does @o name a port of its own (a root port or SWITCH.pN)? */
static bool pins_port(struct topo_ctx *c, const struct topo_obj *o)
{
	const struct topo_obj *t = o->ref ? g_hash_table_lookup(c->ids, o->ref) :
				   NULL;

	return o->ref && (t ? t->kind == TK_ROOTPORT : strchr(o->ref, '.') != NULL);
}

/* port = ROOTPORT | SWITCH (next free downstream port) | SWITCH.pN */
static bool place(struct topo_ctx *c, struct topo_obj *o, GError **error)
{
	struct topo_obj *t;
	int line = topo_key_line(o->sec, "port");

	if (!o->ref)
		return FAIL(o->sec->line, "[%s %s] needs port = ROOTPORT or "
			    "SWITCH (where it plugs in)", o->sec->kind,
			    o->sec->name);
	t = g_hash_table_lookup(c->ids, o->ref);
	if (t && t->kind == TK_ROOTPORT)
		return plug(c, o, t->obj, error);
	if (t && t->kind == TK_SWITCH) {
		struct cb_switch *sw = t->obj;

		if (t == o)
			return FAIL(line, "port: a switch cannot plug into "
				    "itself");
		for (int i = 0; i < sw->nports; i++)
			if (sw->ports[i]->child_kind == CB_NODE_NONE)
				return plug(c, o, sw->ports[i], error);
		return FAIL(line, "port: switch %s has %d downstream ports and "
			    "all are taken; raise 'ports' in [switch %s] (line "
			    "%d, at most %d) or add a switch", sw->id,
			    sw->nports, sw->id, sw->src.line,
			    TOPO_MAX_SWITCH_PORTS);
	}
	if (!t && strchr(o->ref, '.')) {
		g_autofree char *swname = g_strndup(o->ref,
					strchr(o->ref, '.') - o->ref);
		struct topo_obj *s = g_hash_table_lookup(c->ids, swname);
		struct cb_port *p = s && s->kind == TK_SWITCH ?
			switch_port(s->obj, strchr(o->ref, '.') + 1) : NULL;

		if (p) {
			if (p->parent_switch == o->obj)
				return FAIL(line, "port: a switch cannot plug "
					    "into itself");
			return plug(c, o, p, error);
		}
		if (s && s->kind == TK_SWITCH) {
			struct cb_switch *sw = s->obj;

			return FAIL(line, "port: switch %s has no port '%s'; its "
				    "ports are %s.p0 to %s.p%d (ports = %d)",
				    sw->id, o->ref, sw->id, sw->id,
				    sw->nports - 1, sw->nports);
		}
	}
	return FAIL(line, "port: no root port or switch named '%s'; use the "
		    "name of a [rootport] or [switch] section, or SWITCH.pN",
		    o->ref);
}

/* The switch @sw plugs into, or NULL under a root port. */
static struct cb_switch *parent_of(const struct cb_switch *sw)
{
	return sw->upstream->kind == CB_PORT_DOWNSTREAM ?
	       sw->upstream->parent_switch : NULL;
}

static bool too_deep(struct topo_ctx *c, const struct cb_switch *sw,
		     GError **error)
{
	return FAIL(sw->src.line, "switch %s is more than %d switch levels "
		    "below its root port, the most cxlbed takes (the timing "
		    "model follows 8 resources per path; QEMU carries data "
		    "through 1): plug it in higher", sw->id, TOPO_MAX_CASCADE);
}

/*
 * Bridge, host and level of a switch, walking up without recursion to a
 * root port or a settled switch. Catches loops, and cascades deeper than
 * TOPO_MAX_CASCADE levels: every device's path is derived from the walk
 * up, so depth would cost time and memory once per device below.
 */
static bool settle_switch(struct topo_ctx *c, struct cb_switch *sw,
			  GError **error)
{
	struct cb_switch *chain[TOPO_MAX_CASCADE + 1], *s = sw;
	int n = 0;

	while (s && !s->host) {
		if (n == TOPO_MAX_CASCADE + 1) {
			/* too deep, or never reaching a root port at all? */
			for (guint i = 0; s && !s->host && i <= c->t->switches->len; i++)
				s = parent_of(s);
			if (s && !s->host)
				return FAIL(sw->src.line, "switch %s is part of a "
					    "loop of switches plugged into each "
					    "other; one of them must plug into a "
					    "root port", sw->id);
			return too_deep(c, sw, error);
		}
		chain[n++] = s;
		s = parent_of(s);
	}
	/* from the top down: each takes its bridge from the port above */
	while (n--) {
		struct cb_port *up;

		s = chain[n];
		up = s->upstream;
		if (up->kind == CB_PORT_DOWNSTREAM) {
			up->bridge = up->parent_switch->upstream->bridge;
			s->level = up->parent_switch->level + 1;
		} else {
			s->level = 1;
		}
		if (s->level > TOPO_MAX_CASCADE)
			return too_deep(c, s, error);
		s->host = up->bridge->host;
		settle_qos(&s->link, s->host);
		for (int i = 0; i < s->nports; i++)
			s->ports[i]->bridge = up->bridge;
	}
	return true;
}

static bool resolve_all(struct topo_ctx *c, GError **error)
{
	struct topo_obj *o, *t;
	GHashTable *seen;

	if (!c->t->hosts->len)
		return FAIL(1, "no [host NAME] section; every topology needs at "
			    "least one host");
	/* Bridges, root ports: in order so rootport numbers follow the file. */
	cb_foreach(c->objs, struct topo_obj, o) {
		if (o->kind == TK_BRIDGE) {
			struct cb_bridge *b = o->obj;

			t = resolve(c, o, "host", o->ref, TK_HOST, error);
			if (!t)
				return false;
			b->host = t->obj;
			g_ptr_array_add(b->host->bridges, b);
		} else if (o->kind == TK_ROOTPORT) {
			struct cb_port *p = o->obj;

			t = resolve(c, o, "bridge", o->ref, TK_BRIDGE,
				    error);
			if (!t)
				return false;
			p->bridge = t->obj;
			p->number = p->bridge->rootports->len;
			if (p->number >= TOPO_MAX_ROOTPORTS)
				return FAIL(o->sec->line, "bridge %s already has "
					    "%d root ports (the most it can "
					    "take); add another [bridge]",
					    p->bridge->id, TOPO_MAX_ROOTPORTS);
			g_ptr_array_add(p->bridge->rootports, p);
		}
	}
	/* pinned ports first: "the next free port" then never takes one */
	cb_foreach(c->objs, struct topo_obj, o)
		if ((o->kind == TK_SWITCH || o->kind == TK_DEVICE) && pins_port(c, o))
			GET(place(c, o, error));
	cb_foreach(c->objs, struct topo_obj, o)
		if ((o->kind == TK_SWITCH || o->kind == TK_DEVICE) && !pins_port(c, o))
			GET(place(c, o, error));
	cb_foreach(c->objs, struct topo_obj, o)
		if (o->kind == TK_SWITCH) {
			struct cb_switch *sw = o->obj;

			GET(settle_switch(c, sw, error));
			g_ptr_array_add(sw->host->switches, sw);
		}
	cb_foreach(c->objs, struct topo_obj, o) {
		if (o->kind == TK_DEVICE) {
			struct cb_device *d = o->obj;

			d->host = d->port->bridge->host;
			settle_qos(&d->link, d->host);
			g_ptr_array_add(d->host->devices, d);
			if (o->ref2) {
				t = resolve(c, o, "pool", o->ref2, TK_POOL,
					    error);
				if (!t)
					return false;
				d->pool = t->obj;
				g_ptr_array_add(d->pool->devices, d);
			}
		}
	}
	seen = g_hash_table_new(g_direct_hash, g_direct_equal);
	cb_foreach(c->objs, struct topo_obj, o) {
		if (o->kind == TK_WINDOW) {
			struct cb_window *w = o->obj;

			t = resolve(c, o, "host", o->ref, TK_HOST, error);
			if (!t)
				goto fail;
			w->host = t->obj;
			w->index = w->host->windows->len;
			g_ptr_array_add(w->host->windows, w);
			if (!w->host->bridges->len) {
				FAIL(o->sec->line, "window %s is on host %s, "
				     "which has no [bridge]; add a [bridge] "
				     "with host = %s for the window to target",
				     w->id, w->host->id, w->host->id);
				goto fail;
			}
			if (!o->list || !o->list[0]) {
				/* Default: every bridge of the host, in order. */
				struct cb_bridge *b;

				cb_foreach(w->host->bridges, struct cb_bridge, b)
					g_ptr_array_add(w->bridges, b);
				continue;
			}
			g_hash_table_remove_all(seen);
			for (int i = 0; o->list[i]; i++) {
				struct cb_bridge *b;

				t = resolve(c, o, "targets", o->list[i],
					    TK_BRIDGE, error);
				if (!t)
					goto fail;
				b = t->obj;
				if (b->host != w->host) {
					FAIL(topo_key_line(o->sec, "targets"),
					     "targets: bridge %s belongs to "
					     "host %s, window %s to host %s; a "
					     "window targets its own host's "
					     "bridges", b->id, b->host->id,
					     w->id, w->host->id);
					goto fail;
				}
				if (!g_hash_table_add(seen, b)) {
					FAIL(topo_key_line(o->sec, "targets"),
					     "targets: bridge %s is listed "
					     "twice; list each once", b->id);
					goto fail;
				}
				g_ptr_array_add(w->bridges, b);
			}
		}
	}
	/* regions after every window: a region needs its window's host */
	cb_foreach(c->objs, struct topo_obj, o) {
		if (o->kind == TK_REGION) {
			struct cb_region *r = o->obj;

			t = resolve(c, o, "window", o->ref, TK_WINDOW,
				    error);
			if (!t)
				goto fail;
			r->window = t->obj;
			if (!r->granularity)
				r->granularity = r->window->granularity;
			g_ptr_array_add(r->window->host->regions, r);
			if (!o->list || !o->list[0]) {
				FAIL(o->sec->line, "[region %s] needs devices "
				     "= DEVICE... (in interleave order)",
				     r->id);
				goto fail;
			}
			for (int i = 0; o->list[i]; i++) {
				struct cb_device *d;

				t = resolve(c, o, "devices", o->list[i],
					    TK_DEVICE, error);
				if (!t)
					goto fail;
				d = t->obj;
				g_ptr_array_add(r->devices, d);
				/* validate.c refuses a device in two regions */
				if (!d->region)
					d->region = r;
			}
		}
	}
	g_hash_table_unref(seen);
	return true;
fail:
	g_hash_table_unref(seen);
	return false;
}

bool topo_parse_sections(struct topo_ctx *c, GError **error)
{
	struct cfg_section *s;

	cb_foreach(c->cfg->sections, struct cfg_section, s)
		GET(read_section(c, s, error));
	if (!c->t->name) {
		c->t->name = cfg_name_from_file(c->t->file, ".topo");
		c->t->description = g_strdup("");
	}
	GET(check_unknown_keys(c, error));
	return resolve_all(c, error);
}
