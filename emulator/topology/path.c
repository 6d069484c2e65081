/* SPDX-License-Identifier: MIT */
/*
 * Deriving each device's path (path.h) and reading regions off them. This
 * file holds the only walk up a device's ports in the project.
 */
#include "topology/topology_priv.h"

#include <string.h>

static struct cb_hop *hop_add(GArray *hops, enum cb_hop_kind kind,
			      const char *id, struct cb_src src)
{
	struct cb_hop h = { .kind = kind, .id = id, .src = src };

	g_array_append_val(hops, h);
	return &g_array_index(hops, struct cb_hop, hops->len - 1);
}

static void link_hop(GArray *hops, const char *below, struct cb_src src,
		     const struct cb_link *l, const struct cb_host *host)
{
	struct cb_hop *h = hop_add(hops, CB_HOP_LINK, below, src);
	const double *cap = l->host_caps_gbps ?
		g_hash_table_lookup(l->host_caps_gbps, host->id) : NULL;

	h->latency_ns[CB_READ] = h->latency_ns[CB_WRITE] = l->latency_ns;
	h->gbps[CB_READ] = h->gbps[CB_WRITE] = l->gbps;
	h->link = l;
	h->resource = g_strdup_printf("link:%s", below);
	if (cap && *cap > 0) {
		h->cap_gbps = *cap;
		h->cap_resource = g_strdup_printf("cap:link:%s:%s", below, host->id);
	}
}

/* Walk from @d up to its bridge, then lay the hops out top down. */
struct cb_path *topo_derive_path(const struct cb_device *d)
{
	struct cb_path *p = g_new0(struct cb_path, 1);
	GArray *up = g_array_new(FALSE, TRUE, sizeof(struct cb_hop));
	GPtrArray *names = g_ptr_array_new();
	const struct cb_port *port = d->port;
	const struct cb_bridge *b = port->bridge;
	struct cb_hop *h;
	GString *text = g_string_new(NULL);

	p->device = d;
	h = hop_add(up, CB_HOP_MEDIA, d->id, d->src);
	h->latency_ns[CB_READ] = d->perf.read_latency_ns;
	h->latency_ns[CB_WRITE] = d->perf.write_latency_ns;
	h->gbps[CB_READ] = d->perf.read_gbps;
	h->gbps[CB_WRITE] = d->perf.write_gbps;
	h->resource = d->pool ? g_strdup_printf("media:pool:%s", d->pool->id) :
				g_strdup_printf("media:%s", d->id);
	link_hop(up, d->id, d->src, &d->link, d->host);
	g_ptr_array_add(names, d->id);
	while (port->kind == CB_PORT_DOWNSTREAM) {
		const struct cb_switch *sw = port->parent_switch;

		h = hop_add(up, CB_HOP_SWITCH, sw->id, sw->src);
		h->latency_ns[CB_READ] = h->latency_ns[CB_WRITE] = sw->latency_ns;
		link_hop(up, sw->id, sw->src, &sw->link, d->host);
		g_ptr_array_add(names, sw->id);
		p->switch_levels++;
		port = sw->upstream;
	}
	g_ptr_array_add(names, port->id);
	g_ptr_array_add(names, b->id);
	h = hop_add(up, CB_HOP_BRIDGE, b->id, b->src);
	h->latency_ns[CB_READ] = h->latency_ns[CB_WRITE] = b->latency_ns;
	h->gbps[CB_READ] = h->gbps[CB_WRITE] = b->gbps;
	h->resource = g_strdup_printf("bridge:%s", b->id);

	p->nhops = up->len;
	p->hops = g_new0(struct cb_hop, up->len);
	for (guint i = 0; i < up->len; i++) {
		p->hops[i] = g_array_index(up, struct cb_hop, up->len - 1 - i);
		if (p->hops[i].kind != CB_HOP_MEDIA)
			p->hops_ns += p->hops[i].latency_ns[CB_READ];
	}
	for (int dir = 0; dir < 2; dir++)
		p->latency_ns[dir] = d->perf.read_latency_ns * (dir == CB_READ) +
				     d->perf.write_latency_ns * (dir == CB_WRITE) +
				     p->hops_ns;
	for (guint i = names->len; i > 0; i--)
		g_string_append_printf(text, "%s%s", (char *)g_ptr_array_index(names, i - 1),
				       i > 1 ? "/" : "");
	p->text = g_string_free(text, FALSE);
	g_ptr_array_unref(names);
	g_array_unref(up);
	return p;
}

void topo_path_free(struct cb_path *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->nhops; i++) {
		g_free(p->hops[i].resource);
		g_free(p->hops[i].cap_resource);
	}
	g_free(p->hops);
	g_free(p->text);
	g_free(p);
}

/* "hb0/rp0/sw0/{mem0,mem1}": the devices' common prefix, then the rest. */
static char *region_path_text(const struct cb_region *reg)
{
	const struct cb_device *d, *first;
	g_autoptr(GString) leaves = g_string_new(NULL);
	gsize prefix;

	if (!reg->devices->len)
		return g_strdup("");
	first = g_ptr_array_index(reg->devices, 0);
	if (reg->devices->len == 1)
		return g_strdup(first->path->text);
	prefix = strlen(first->path->text);
	cb_foreach(reg->devices, const struct cb_device, d) {
		gsize i = 0;

		while (i < prefix && d->path->text[i] == first->path->text[i])
			i++;
		prefix = i;
	}
	while (prefix > 0 && first->path->text[prefix - 1] != '/')
		prefix--;
	cb_foreach(reg->devices, const struct cb_device, d)
		g_string_append_printf(leaves, "%s%s", leaves->len ? "," : "",
				       d->path->text + prefix);
	return g_strdup_printf("%.*s{%s}", (int)prefix, first->path->text,
			       leaves->str);
}

void topo_derive_paths(struct cb_topology *t)
{
	struct cb_device *d;
	struct cb_region *r;

	cb_foreach(t->devices, struct cb_device, d)
		d->path = topo_derive_path(d);
	cb_foreach(t->regions, struct cb_region, r)
		r->path_text = region_path_text(r);
}

const char *topology_device_path(const struct cb_device *d)
{
	return d->path->text;
}

int topology_device_switch_levels(const struct cb_device *d)
{
	return d->path->switch_levels;
}

const struct cb_hop *cb_path_find(const struct cb_path *p, enum cb_hop_kind kind)
{
	for (int i = 0; i < p->nhops; i++)
		if (p->hops[i].kind == kind)
			return &p->hops[i];
	return NULL;
}

/* How many of a region's devices cross one bandwidth limit, and its rate. */
struct use {
	double gbps;
	int devices;
};

static void count_use(GHashTable *uses, const char *name, double gbps)
{
	struct use *u = g_hash_table_lookup(uses, name);

	if (!u) {
		u = g_new0(struct use, 1);
		u->gbps = gbps;
		g_hash_table_insert(uses, (char *)name, u);
	}
	u->devices++;
}

double topology_region_gbps(const struct cb_region *reg, enum cb_dir dir)
{
	g_autoptr(GHashTable) uses = g_hash_table_new_full(g_str_hash, g_str_equal,
							   NULL, g_free);
	const struct cb_device *d;
	GHashTableIter it;
	struct use *u;
	double limit = -1;
	guint ways = reg->devices->len;

	cb_foreach(reg->devices, const struct cb_device, d)
		for (int i = 0; i < d->path->nhops; i++) {
			const struct cb_hop *h = &d->path->hops[i];

			if (h->resource)
				count_use(uses, h->resource, h->gbps[dir]);
			if (h->cap_resource)
				count_use(uses, h->cap_resource, h->cap_gbps);
		}
	g_hash_table_iter_init(&it, uses);
	while (g_hash_table_iter_next(&it, NULL, (void **)&u)) {
		double l;

		if (u->gbps <= 0)
			continue;
		l = u->gbps * ways / u->devices;
		if (limit < 0 || l < limit)
			limit = l;
	}
	return limit;
}

double topology_region_latency_ns(const struct cb_region *reg, enum cb_dir dir)
{
	const struct cb_device *d;
	double sum = 0;

	cb_foreach(reg->devices, const struct cb_device, d)
		sum += d->path->latency_ns[dir];
	return reg->devices->len ? sum / reg->devices->len : -1;
}

double topology_region_max_latency_ns(const struct cb_region *reg,
				      enum cb_dir dir)
{
	const struct cb_device *d;
	double most = -1;

	cb_foreach(reg->devices, const struct cb_device, d)
		most = MAX(most, d->path->latency_ns[dir]);
	return most;
}
