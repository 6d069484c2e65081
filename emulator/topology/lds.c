/* SPDX-License-Identifier: MIT */
/*
 * Pool lending: where a logical device of a lending pool can be bound
 * (empty hotplug root ports, windows with room) and what it is once bound there
 * (a device whose path path.c derives). The fabric manager
 * (emulator/fm/) decides which LD goes where; validate.c checks that a
 * lending topology leaves it somewhere to put them.
 */
#include "topology/topology_priv.h"

bool topology_port_takes_ld(const struct cb_port *p)
{
	return p->kind == CB_PORT_ROOT && p->hotplug &&
	       p->child_kind == CB_NODE_NONE;
}

GPtrArray *topology_host_ld_ports(const struct cb_topology *t,
				  const struct cb_host *h)
{
	GPtrArray *out = g_ptr_array_new();
	struct cb_port *p;

	cb_foreach(t->ports, struct cb_port, p)
		if (p->bridge && p->bridge->host == h && topology_port_takes_ld(p))
			g_ptr_array_add(out, p);
	return out;
}

GPtrArray *topology_ld_windows(const struct cb_port *p)
{
	GPtrArray *out = g_ptr_array_new();
	struct cb_window *w;

	cb_foreach(p->bridge->host->windows, struct cb_window, w)
		if (w->bridges->len == 1 &&
		    g_ptr_array_index(w->bridges, 0) == p->bridge)
			g_ptr_array_add(out, w);
	return out;
}

uint64_t topology_window_room(const struct cb_topology *t,
			      const struct cb_window *w)
{
	struct cb_region *r;
	uint64_t used = 0;

	cb_foreach(t->regions, struct cb_region, r)
		if (r->window == w)
			used += r->size;
	return used < w->size ? w->size - used : 0;
}

bool topology_pool_lends_to(const struct cb_pool *p, const struct cb_host *h)
{
	struct cb_host *x;

	cb_foreach(p->ld_hosts, struct cb_host, x)
		if (x == h)
			return true;
	return false;
}

bool topology_has_lending(const struct cb_topology *t)
{
	return t->lds->len > 0;
}

struct cb_device *topology_ld_device(const struct cb_ld *ld,
				     const struct cb_port *p)
{
	struct cb_device *d = g_new0(struct cb_device, 1);
	const struct cb_pool *pool = ld->pool;

	d->id = g_strdup(ld->id);
	d->src = pool->src;
	d->host = p->bridge->host;
	d->port = (struct cb_port *)p;
	d->link = pool->ld_link;
	d->link.host_caps_gbps = NULL;
	if (d->link.qos_gbps > 0) {
		/* the cap applies to whichever host the LD is bound to */
		double *cap = g_new(double, 1);

		*cap = d->link.qos_gbps;
		d->link.host_caps_gbps = g_hash_table_new_full(g_str_hash,
							       g_str_equal,
							       g_free, g_free);
		g_hash_table_insert(d->link.host_caps_gbps, g_strdup(d->host->id),
				    cap);
	}
	d->size = ld->size;
	d->serial = ld->serial;
	d->serial_given = true;
	d->perf = pool->perf;
	d->pool = (struct cb_pool *)pool;
	d->pool_offset = ld->offset;
	d->pool_offset_given = true;
	d->path = topo_derive_path(d);
	return d;
}

void topology_ld_device_free(struct cb_device *d)
{
	if (!d)
		return;
	if (d->link.host_caps_gbps)
		g_hash_table_unref(d->link.host_caps_gbps);
	topo_path_free(d->path);
	g_free(d->id);
	g_free(d);
}
