/* SPDX-License-Identifier: MIT */
/* The fabric graph: loading, lookup, walking and freeing. */
#include "topology/topology_priv.h"
#include "common/error.h"

#include <string.h>

static void link_clear(struct cb_link *l)
{
	if (l->host_caps_gbps)
		g_hash_table_unref(l->host_caps_gbps);
}

static void host_free(gpointer p)
{
	struct cb_host *h = p;

	g_free(h->id);
	g_ptr_array_unref(h->bridges);
	g_ptr_array_unref(h->windows);
	g_ptr_array_unref(h->regions);
	g_ptr_array_unref(h->devices);
	g_ptr_array_unref(h->switches);
	if (h->nics)
		g_ptr_array_unref(h->nics);
	g_free(h);
}

static void bridge_free(gpointer p)
{
	struct cb_bridge *b = p;

	g_free(b->id);
	g_ptr_array_unref(b->rootports);
	g_free(b);
}

static void port_free(gpointer p)
{
	struct cb_port *port = p;

	g_free(port->id);
	g_free(port);
}

static void switch_free(gpointer p)
{
	struct cb_switch *s = p;

	g_free(s->id);
	g_free(s->ports);	/* the ports themselves live in t->ports */
	link_clear(&s->link);
	g_free(s);
}

static void device_free(gpointer p)
{
	struct cb_device *d = p;

	g_free(d->id);
	link_clear(&d->link);
	topo_path_free(d->path);
	g_free(d);
}

static void window_free(gpointer p)
{
	struct cb_window *w = p;

	g_free(w->id);
	g_ptr_array_unref(w->bridges);
	g_free(w);
}

static void region_free(gpointer p)
{
	struct cb_region *r = p;

	g_free(r->id);
	g_free(r->path_text);
	g_ptr_array_unref(r->devices);
	g_free(r);
}

static void pool_free(gpointer p)
{
	struct cb_pool *pool = p;

	g_free(pool->id);
	g_free(pool->file);
	g_ptr_array_unref(pool->devices);
	g_ptr_array_unref(pool->lds);
	g_ptr_array_unref(pool->ld_hosts);
	link_clear(&pool->ld_link);
	g_free(pool);
}

static void ld_free(gpointer p)
{
	struct cb_ld *ld = p;

	g_free(ld->id);
	g_free(ld);
}

void topology_free(struct cb_topology *t)
{
	if (!t)
		return;
	g_ptr_array_unref(t->hosts);
	g_ptr_array_unref(t->bridges);
	g_ptr_array_unref(t->ports);
	g_ptr_array_unref(t->switches);
	g_ptr_array_unref(t->devices);
	g_ptr_array_unref(t->windows);
	g_ptr_array_unref(t->regions);
	g_ptr_array_unref(t->pools);
	g_ptr_array_unref(t->lds);
	cb_kernel_spec_free(t->kernel);
	g_free(t->name);
	g_free(t->description);
	g_free(t->file);
	g_free(t);
}

static struct cb_topology *topology_new(const char *path)
{
	struct cb_topology *t = g_new0(struct cb_topology, 1);

	t->file = g_strdup(path);
	t->hosts = g_ptr_array_new_with_free_func(host_free);
	t->bridges = g_ptr_array_new_with_free_func(bridge_free);
	t->ports = g_ptr_array_new_with_free_func(port_free);
	t->switches = g_ptr_array_new_with_free_func(switch_free);
	t->devices = g_ptr_array_new_with_free_func(device_free);
	t->windows = g_ptr_array_new_with_free_func(window_free);
	t->regions = g_ptr_array_new_with_free_func(region_free);
	t->pools = g_ptr_array_new_with_free_func(pool_free);
	t->lds = g_ptr_array_new_with_free_func(ld_free);
	return t;
}

struct cb_topology *topology_parse(const char *path, const char *text,
				   GError **error)
{
	return topology_parse_len(path, text, -1, error);
}

struct cb_topology *topology_parse_len(const char *path, const char *text,
				       gssize len, GError **error)
{
	g_autoptr(cfg_file) cfg = cfg_file_parse(path, text, len, error);
	struct topo_ctx c = { 0 };
	bool good;

	if (!cfg)
		return NULL;
	c.t = topology_new(path);
	c.cfg = cfg;
	c.ids = g_hash_table_new(g_str_hash, g_str_equal);
	c.of_obj = g_hash_table_new(g_direct_hash, g_direct_equal);
	c.objs = g_ptr_array_new_with_free_func(topo_obj_free);
	good = topo_parse_sections(&c, error);
	if (good) {
		topo_derive(c.t);
		good = topo_validate(&c, error);
	}
	g_hash_table_unref(c.ids);
	g_hash_table_unref(c.of_obj);
	g_ptr_array_unref(c.objs);
	if (!good) {
		topology_free(c.t);
		return NULL;
	}
	return c.t;
}

struct cb_topology *topology_load(const char *path, GError **error)
{
	g_autofree char *text = NULL;
	gsize len;

	if (!cfg_read_text(path, &text, &len, error))
		return NULL;
	return topology_parse_len(path, text, len, error);
}

#define FIND_BY_ID(arr, type, id) \
	do { \
		type *x_; \
		cb_foreach((arr), type, x_) \
			if (!strcmp(x_->id, (id))) \
				return x_; \
		return NULL; \
	} while (0)

struct cb_host *topology_find_host(const struct cb_topology *t, const char *id)
{
	FIND_BY_ID(t->hosts, struct cb_host, id);
}

struct cb_device *topology_find_device(const struct cb_topology *t,
				       const char *id)
{
	FIND_BY_ID(t->devices, struct cb_device, id);
}

struct cb_bridge *topology_find_bridge(const struct cb_topology *t,
				       const char *id)
{
	FIND_BY_ID(t->bridges, struct cb_bridge, id);
}

struct cb_port *topology_find_port(const struct cb_topology *t, const char *id)
{
	FIND_BY_ID(t->ports, struct cb_port, id);
}

struct cb_switch *topology_find_switch(const struct cb_topology *t,
				       const char *id)
{
	FIND_BY_ID(t->switches, struct cb_switch, id);
}

struct cb_window *topology_find_window(const struct cb_topology *t,
				       const char *id)
{
	FIND_BY_ID(t->windows, struct cb_window, id);
}

struct cb_region *topology_find_region(const struct cb_topology *t,
				       const char *id)
{
	FIND_BY_ID(t->regions, struct cb_region, id);
}

struct cb_pool *topology_find_pool(const struct cb_topology *t, const char *id)
{
	FIND_BY_ID(t->pools, struct cb_pool, id);
}

struct cb_ld *topology_find_ld(const struct cb_topology *t, const char *id)
{
	FIND_BY_ID(t->lds, struct cb_ld, id);
}

struct cb_region *topology_device_region(const struct cb_topology *t,
					 const struct cb_device *d)
{
	(void)t;
	return d->region;
}

struct cb_bridge *topology_device_bridge(const struct cb_device *d)
{
	return d->port ? d->port->bridge : NULL;
}

guint topology_host_memdev_count(const struct cb_host *h)
{
	return h->devices->len;
}

uint64_t topology_host_cxl_ram_bytes(const struct cb_host *h)
{
	struct cb_region *r;
	uint64_t sum = 0;

	cb_foreach(h->regions, struct cb_region, r) {
		struct cb_device *d = g_ptr_array_index(r->devices, 0);

		/* Persistent regions become pmem, not system RAM. */
		if (r->mode == CB_REGION_RAM && !d->persistent)
			sum += r->size;
	}
	return sum;
}

int topo_key_line(const struct cfg_section *sec, const char *key)
{
	struct cfg_entry *e = cfg_section_find(sec, key);

	return e ? e->line : sec->line;
}

const char *topo_kind_name(enum topo_kind k)
{
	static const char *const names[] = {
		[TK_HOST] = "host", [TK_BRIDGE] = "bridge",
		[TK_ROOTPORT] = "rootport", [TK_SWITCH] = "switch",
		[TK_DEVICE] = "device", [TK_WINDOW] = "window",
		[TK_REGION] = "region", [TK_POOL] = "pool",
	};
	return names[k];
}

double topo_link_derived_gbps(int width, double speed_gts)
{
	/* 128b/130b from 8 GT/s (PCIe 3+); 8b/10b below. 1 GT/s/lane = 1 Gb/s. */
	double eff = speed_gts >= 8 ? 128.0 / 130.0 : 0.8;

	return width * speed_gts * eff / 8.0;
}

bool topo_fail(GError **error, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	g_autofree char *msg = NULL;

	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	cxlbed_input_error(error, file, line, "%s", msg);
	return false;
}
