/* SPDX-License-Identifier: MIT */
/*
 * The configured read bandwidth a region's path can carry: what a stream
 * that saturates it should reach (the `path GB/s` column of `cxlbed
 * table`). An interleave spreads traffic evenly over its devices, so a
 * resource that k of the region's w devices sit behind carries k/w of it
 * and limits the region to its own bandwidth x w/k. The resources are the
 * same ones the timing model charges (emulator/qemu/timing_config.c).
 */
#include "topology.h"

struct use {
	double gbps;	/* the resource's read bandwidth; <= 0 unlimited */
	int devices;	/* how many of the region's devices cross it */
};

static void count(GHashTable *uses, const void *key, double gbps)
{
	struct use *u = g_hash_table_lookup(uses, key);

	if (!u) {
		u = g_new0(struct use, 1);
		u->gbps = gbps;
		g_hash_table_insert(uses, (void *)key, u);
	}
	u->devices++;
}

/* A host's QoS cap on a link, or 0. */
static double cap_of(const struct cb_link *l, const char *host)
{
	const double *cap = l->host_caps_gbps && host ?
		g_hash_table_lookup(l->host_caps_gbps, host) : NULL;

	return cap ? *cap : 0;
}

double topology_region_read_gbps(const struct cb_region *reg)
{
	g_autoptr(GHashTable) uses = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	/* caps are per host and per link: keyed apart from the links */
	g_autoptr(GHashTable) caps = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	const char *host = reg->window && reg->window->host ? reg->window->host->id : NULL;
	const struct cb_device *d;
	GHashTableIter it;
	struct use *u;
	double limit = -1;
	guint ways = reg->devices->len;

	cb_foreach(reg->devices, const struct cb_device, d) {
		const struct cb_port *port = d->port;

		/* a pool's media is one resource whichever host's device it is */
		count(uses, d->pool ? (const void *)d->pool : (const void *)d,
		      d->perf.read_gbps);
		count(uses, &d->link, d->link.gbps);
		if (cap_of(&d->link, host) > 0)
			count(caps, &d->link, cap_of(&d->link, host));
		while (port->kind == CB_PORT_DOWNSTREAM && port->parent_switch) {
			const struct cb_switch *sw = port->parent_switch;

			count(uses, &sw->link, sw->link.gbps);
			if (cap_of(&sw->link, host) > 0)
				count(caps, &sw->link, cap_of(&sw->link, host));
			port = sw->upstream;
		}
		count(uses, port->bridge, port->bridge->gbps);
	}
	for (int pass = 0; pass < 2; pass++) {
		g_hash_table_iter_init(&it, pass ? caps : uses);
		while (g_hash_table_iter_next(&it, NULL, (void **)&u)) {
			double l;

			if (u->gbps <= 0)
				continue;
			l = u->gbps * ways / u->devices;
			if (limit < 0 || l < limit)
				limit = l;
		}
	}
	return limit;
}
