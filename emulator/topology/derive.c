/* SPDX-License-Identifier: MIT */
/*
 * Values the file leaves out, derived once every reference is resolved
 * and before anything is checked: serial numbers, region sizes, the pool
 * slices of unshared pools, each device's path (path.c). Derivation never
 * fails; validate.c then checks the derived values with the rest.
 */
#include "topology/topology_priv.h"

/*
 * Serials not given: the lowest free ones from TOPO_SERIAL_BASE, in file
 * order, devices first, then the logical devices of lending pools.
 */
static void derive_serials(struct cb_topology *t)
{
	g_autoptr(GHashTable) used = g_hash_table_new(g_int64_hash, g_int64_equal);
	uint64_t next = TOPO_SERIAL_BASE;
	struct cb_device *d;
	struct cb_pool *p;

	cb_foreach(t->devices, struct cb_device, d)
		if (d->serial_given)
			g_hash_table_add(used, &d->serial);
	cb_foreach(t->devices, struct cb_device, d) {
		if (d->serial_given)
			continue;
		while (g_hash_table_contains(used, &next))
			next++;
		d->serial = next++;
	}
	/* then every LD of a lending pool, pool by pool */
	cb_foreach(t->pools, struct cb_pool, p) {
		for (uint64_t i = 0; p->ld_size && i < p->size / p->ld_size; i++) {
			struct cb_ld *ld = g_new0(struct cb_ld, 1);

			ld->id = g_strdup_printf("%s.ld%" G_GUINT64_FORMAT, p->id, i);
			ld->pool = p;
			ld->index = i;
			ld->size = p->ld_size;
			ld->offset = i * p->ld_size;
			while (g_hash_table_contains(used, &next))
				next++;
			ld->serial = next++;
			g_ptr_array_add(p->lds, ld);
			g_ptr_array_add(t->lds, ld);
		}
	}
}

/* A region maps as much of each device as its smallest one has. */
static void derive_region_sizes(struct cb_topology *t)
{
	struct cb_region *r;

	cb_foreach(t->regions, struct cb_region, r) {
		uint64_t per_dev = UINT64_MAX;
		struct cb_device *d;

		cb_foreach(r->devices, struct cb_device, d)
			per_dev = MIN(per_dev, d->size);
		/* capacities are multiples of 256 MiB and ways <= 16: no wrap */
		r->size = r->devices->len ? per_dev * r->devices->len : 0;
	}
}

/* An unshared pool gives each device the next slice, unless the file says. */
static void derive_pool_offsets(struct cb_topology *t)
{
	struct cb_pool *p;

	cb_foreach(t->pools, struct cb_pool, p) {
		uint64_t next = 0;
		struct cb_device *d;

		if (p->shared)
			continue;
		cb_foreach(p->devices, struct cb_device, d) {
			if (!d->pool_offset_given)
				d->pool_offset = next;
			/* saturate: validate.c reports a slice past the pool */
			next = d->pool_offset > UINT64_MAX - d->size ? UINT64_MAX :
			       MAX(next, d->pool_offset + d->size);
		}
	}
}

void topo_derive(struct cb_topology *t)
{
	derive_serials(t);
	derive_region_sizes(t);
	derive_pool_offsets(t);
	topo_derive_paths(t);
}
