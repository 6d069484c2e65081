/* SPDX-License-Identifier: MIT */
#include "run/verify.h"
#include "run/guest_enum.h"
#include "run/guest_view.h"
#include "common/json_get.h"

#include <string.h>

static bool serial_listed(JsonArray *memdevs, uint64_t serial)
{
	for (guint i = 0; memdevs && i < json_array_get_length(memdevs); i++)
		if ((uint64_t)json_get_int(json_array_get_object_element(memdevs, i),
				      "serial", -1) == serial)
			return true;
	return false;
}

static JsonObject *find_node(JsonArray *nodes, gint64 node)
{
	for (guint i = 0; nodes && i < json_array_get_length(nodes); i++) {
		JsonObject *n = json_array_get_object_element(nodes, i);

		if (json_get_int(n, "node", -1) == node)
			return n;
	}
	return NULL;
}

/*
 * Switches the kernel has a port for at boot: it adds a switch's port
 * when an endpoint below it probes, so a switch with only empty
 * (hotplug) ports appears once the fabric manager binds something there.
 */
static guint switches_above_devices(const struct cb_host *h)
{
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
	const struct cb_device *d;

	cb_foreach(h->devices, const struct cb_device, d)
		for (int i = 0; i < d->path->nhops; i++)
			if (d->path->hops[i].kind == CB_HOP_SWITCH)
				g_hash_table_add(seen, (char *)d->path->hops[i].id);
	return g_hash_table_size(seen);
}

bool verify_enumeration(struct run_result *r, const struct cb_host *h,
			JsonObject *en)
{
	JsonArray *memdevs = json_get_array(en, "memdevs");
	JsonArray *nodes = json_get_array(en, "nodes");
	JsonArray *ports = json_get_array(en, "ports");
	guint want = topology_host_memdev_count(h);
	guint got = memdevs ? json_array_get_length(memdevs) : 0;
	g_autoptr(GString) missing = g_string_new(NULL);
	g_autofree char *name = NULL;
	bool all = true;
	struct cb_device *d;
	struct cb_region *reg;

	name = g_strdup_printf("enumeration:%s:memdevs", h->id);
	cb_foreach(h->devices, struct cb_device, d)
		if (!serial_listed(memdevs, d->serial))
			g_string_append_printf(missing, " %s(sn 0x%" G_GINT64_MODIFIER "x)",
					       d->id, d->serial);
	all &= result_check(r, name, got == want && !missing->len,
			    "guest sees %u memdevs, topology has %u%s%s", got, want,
			    missing->len ? "; missing:" : "", missing->str);

	if (ports) {
		/* The kernel makes one cxl port per host bridge and per switch. */
		guint want_ports = h->bridges->len + switches_above_devices(h);
		guint got_ports = json_array_get_length(ports);

		g_free(name);
		name = g_strdup_printf("enumeration:%s:ports", h->id);
		all &= result_check(r, name, got_ports == want_ports,
				    "guest sees %u CXL ports (host bridges + switches), "
				    "topology has %u", got_ports, want_ports);
	}

	cb_foreach(h->regions, struct cb_region, reg) {
		JsonObject *gr = guest_enum_region(en, reg);
		gint64 size = json_get_int(gr, "size", -1);

		g_free(name);
		name = g_strdup_printf("enumeration:%s:region:%s", h->id, reg->id);
		if (!gr) {
			all &= result_check(r, name, false,
					    "no guest region interleaves the %u devices of %s in order",
					    reg->devices->len, reg->id);
			continue;
		}
		if (size != (gint64)reg->size) {
			all &= result_check(r, name, false, "%s is %" G_GINT64_FORMAT
					    " MiB in the guest, topology wants %" G_GUINT64_FORMAT " MiB",
					    reg->id, size >> 20, reg->size >> 20);
			continue;
		}
		all &= guest_view_coordinates(r, h, reg, gr);
		if (reg->mode == CB_REGION_RAM) {
			gint64 node = json_get_int(gr, "node", -1);
			JsonObject *gn = find_node(nodes, node);
			gint64 mem = json_get_int(gn, "mem_bytes", 0);

			/* The kernel may hold back a little for memmap: allow 2%. */
			all &= result_check(r, name, gn && mem >= (gint64)(reg->size * 0.98),
					    "%s: %u-way, %" G_GUINT64_FORMAT " MiB, node %" G_GINT64_FORMAT
					    " with %" G_GINT64_FORMAT " MiB online",
					    json_object_get_string_member_with_default(gr, "name", "?"),
					    reg->devices->len, reg->size >> 20, node, mem >> 20);
		} else {
			const char *dax = json_object_get_string_member_with_default(gr, "dax", NULL);

			all &= result_check(r, name, dax != NULL,
					    "%s: %u-way, %" G_GUINT64_FORMAT " MiB, devdax %s",
					    json_object_get_string_member_with_default(gr, "name", "?"),
					    reg->devices->len, reg->size >> 20, dax ? dax : "missing");
		}
	}
	all &= guest_view_numa(r, h, en);
	return all;
}

void verify_fill_nodes(struct res_host *rh, const struct cb_host *h,
		       JsonObject *en)
{
	JsonArray *nodes = json_get_array(en, "nodes");
	JsonArray *memdevs = json_get_array(en, "memdevs");

	rh->memdevs = memdevs ? (int)json_array_get_length(memdevs) : 0;
	for (guint i = 0; nodes && i < json_array_get_length(nodes); i++) {
		JsonObject *gn = json_array_get_object_element(nodes, i);
		gint64 mem = json_get_int(gn, "mem_bytes", 0);
		struct res_node *n;

		if (mem <= 0)
			continue;	/* nodes of regions not onlined (devdax) */
		n = result_host_add_node(rh, (int)json_get_int(gn, "node", -1));
		n->mem_bytes = mem;
		g_free(n->kind);
		n->kind = g_strdup("local");
		g_free(n->path);
		n->path = g_strdup("local DRAM");
	}
	/*
	 * Nodes that carry a region are CXL; name them by the topology. A
	 * devdax region has no node: it gets a dax view after the nodes.
	 */
	struct cb_region *reg;
	cb_foreach(h->regions, struct cb_region, reg) {
		JsonObject *gr = guest_enum_region(en, reg);
		struct res_node *n;

		if (gr && reg->mode == CB_REGION_DEVDAX) {
			const char *dax = json_object_get_string_member_with_default(gr, "dax", NULL);

			if (!dax)
				continue;	/* verify_enumeration reports it */
			n = result_host_add_dax(rh, reg->id, dax);
			n->mem_bytes = json_get_int(gr, "size", reg->size);
			g_free(n->path);
			n->path = g_strdup(reg->path_text);
			continue;
		}
		if (!gr || reg->mode != CB_REGION_RAM)
			continue;
		n = result_host_find_node(rh, (int)json_get_int(gr, "node", -1));
		/*
		 * A node already named by another region would mix two paths
		 * in one row: keep the first (numa:HOST:REGION fails).
		 */
		if (!n || n->region)
			continue;
		g_free(n->kind);
		n->kind = g_strdup("cxl");
		g_free(n->path);
		n->path = g_strdup(reg->path_text);
		g_free(n->region);
		n->region = g_strdup(reg->id);
	}
}
