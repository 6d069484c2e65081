/* SPDX-License-Identifier: MIT */
/*
 * Cross-object rules: what the kernel's CXL region code and QEMU accept
 * (interleave ways, granularity, target order), capacity, pools shared
 * between hosts, serial numbers. Only checks: the values they check
 * (region sizes, pool offsets, serials) are derived first (derive.c).
 */
#include "topology/topology_priv.h"
#include "common/error.h"

#include <string.h>

#define FAIL(line, ...) topo_fail(error, c->cfg->path, (line), __VA_ARGS__)
#define MIB(x) ((unsigned long long)((x) / CB_MIB))
#define GET(call) do { if (!(call)) return false; } while (0)

static struct topo_obj *obj_of(struct topo_ctx *c, const void *p)
{
	struct topo_obj *o = g_hash_table_lookup(c->of_obj, p);

	g_assert(o);
	return o;
}

static int line_of(struct topo_ctx *c, const void *p, const char *key)
{
	return topo_key_line(obj_of(c, p)->sec, key);
}

/* Ways the CXL HDM decoders can do (CXL 3.x 8.2.4.20.7). */
static bool valid_ways(guint n)
{
	static const guint ok[] = { 1, 2, 3, 4, 6, 8, 12, 16 };

	for (size_t i = 0; i < G_N_ELEMENTS(ok); i++)
		if (n == ok[i])
			return true;
	return false;
}

static bool check_region(struct topo_ctx *c, struct cb_region *r,
			 GHashTable *owner, GError **error)
{
	struct cb_window *w = r->window;
	guint ways = r->devices->len, hbways = w->bridges->len;
	int dl = line_of(c, r, "devices");
	struct cb_device *d, *first = g_ptr_array_index(r->devices, 0);

	if (!valid_ways(ways))
		return FAIL(dl, "devices: %u-way interleave is not possible; "
			    "CXL decoders do 1, 2, 3, 4, 6, 8, 12 or 16 ways",
			    ways);
	if (ways % hbways)
		return FAIL(dl, "devices: %u devices cannot spread evenly over "
			    "the %u host bridges window %s targets; use a "
			    "multiple of %u devices", ways, hbways, w->id,
			    hbways);
	if (hbways > 1 && r->granularity != w->granularity)
		return FAIL(line_of(c, r, "granularity"), "granularity: window "
			    "%s interleaves host bridges at %u bytes, so the "
			    "region must use %u too (the kernel refuses "
			    "anything else)", w->id, w->granularity,
			    w->granularity);
	cb_foreach(r->devices, struct cb_device, d) {
		struct cb_region *prev = g_hash_table_lookup(owner, d);
		struct cb_bridge *want = g_ptr_array_index(w->bridges,
							   d_i_ % hbways);
		bool in_window = false;
		struct cb_bridge *b;

		if (prev == r)
			return FAIL(dl, "devices: %s is listed twice; list "
				    "each device once", d->id);
		if (prev)
			return FAIL(dl, "devices: %s is already in region %s "
				    "(line %d); a device belongs to one "
				    "region", d->id, prev->id, prev->src.line);
		g_hash_table_insert(owner, d, r);
		if (d->host != w->host)
			return FAIL(dl, "devices: %s is on host %s but window "
				    "%s belongs to host %s; a region's devices "
				    "sit under its own host", d->id,
				    d->host->id, w->id, w->host->id);
		cb_foreach(w->bridges, struct cb_bridge, b)
			if (b == d->port->bridge)
				in_window = true;
		if (!in_window)
			return FAIL(dl, "devices: %s sits under bridge %s, "
				    "which window %s does not target; add %s "
				    "to the window's targets or pick another "
				    "device", d->id, d->port->bridge->id,
				    w->id, d->port->bridge->id);
		if (d->port->bridge != want)
			return FAIL(dl, "devices: position %u (%s) must be "
				    "under bridge %s: the window interleaves "
				    "%s, so list devices alternating over "
				    "those bridges in that order", d_i_,
				    d->id, want->id,
				    hbways == 2 ? "two bridges" : "its bridges");
		if (d->persistent != first->persistent)
			return FAIL(dl, "devices: %s is %s but %s is %s; a "
				    "region is all volatile or all persistent",
				    d->id, d->persistent ? "persistent" :
				    "volatile", first->id, first->persistent ?
				    "persistent" : "volatile");
	}
	return true;
}

static bool check_windows(struct topo_ctx *c, GError **error)
{
	g_autoptr(GHashTable) needs = g_hash_table_new_full(g_direct_hash,
							    g_direct_equal,
							    NULL, g_free);
	struct cb_window *w;
	struct cb_region *r;

	/* what each window's regions need, summed without wrapping */
	cb_foreach(c->t->regions, struct cb_region, r) {
		uint64_t *need = g_hash_table_lookup(needs, r->window);

		if (!need) {
			need = g_new0(uint64_t, 1);
			g_hash_table_insert(needs, r->window, need);
		}
		*need = *need > UINT64_MAX - r->size ? UINT64_MAX : *need + r->size;
	}
	cb_foreach(c->t->windows, struct cb_window, w) {
		uint64_t *needp = g_hash_table_lookup(needs, w);
		uint64_t need = needp ? *needp : 0;
		uint64_t unit = CB_CAPACITY_UNIT * w->bridges->len;

		if (w->size % unit)
			return FAIL(line_of(c, w, "size"), "size: a window "
				    "across %u host bridges must be a multiple "
				    "of %lluM", w->bridges->len,
				    MIB(unit));
		if (need > w->size)
			return FAIL(line_of(c, w, "size"), "size: window %s is "
				    "%lluM but its regions need "
				    "%lluM; set size = %lluM or more", w->id,
				    MIB(w->size), MIB(need),
				    MIB(need));
	}
	return true;
}

static bool check_pools(struct topo_ctx *c, GError **error)
{
	struct cb_pool *p;

	cb_foreach(c->t->pools, struct cb_pool, p) {
		GHashTable *hosts = g_hash_table_new(g_direct_hash,
						     g_direct_equal);
		struct cb_device *d;
		bool good = true;

		cb_foreach(p->devices, struct cb_device, d) {
			int pl = line_of(c, d, "pool");
			struct cb_device *other = g_hash_table_lookup(hosts,
								      d->host);

			if (other) {
				good = FAIL(pl, "pool: host %s already reaches "
					    "pool %s through %s (line %d); one "
					    "device per host on a pool", d->host->id,
					    p->id, other->id, other->src.line);
				break;
			}
			g_hash_table_insert(hosts, d->host, d);
			if (d->persistent != p->persistent) {
				good = FAIL(line_of(c, d, "type"), "type: %s is "
					    "%s but pool %s (line %d) is %s; "
					    "make them match", d->id,
					    d->persistent ? "persistent" :
					    "volatile", p->id, p->src.line,
					    p->persistent ? "persistent" :
					    "volatile");
				break;
			}
			if (d->pool_offset > p->size ||
			    d->size > p->size - d->pool_offset) {
				good = FAIL(line_of(c, d, "size"), "size: %s "
					    "maps %lluM at "
					    "offset %lluM of "
					    "pool %s, which is only %lluM (line %d); "
					    "shrink the device or grow the pool",
					    d->id, MIB(d->size),
					    MIB(d->pool_offset), p->id,
					    MIB(p->size), p->src.line);
				break;
			}
		}
		g_hash_table_unref(hosts);
		if (!good)
			return false;
	}
	return true;
}

/*
 * Can host @h take an LD of @p? An empty hotplug root port whose bridge
 * has a window of its own with room for one LD. Returns the reason it
 * cannot, or NULL.
 */
static char *ld_host_problem(struct topo_ctx *c, struct cb_pool *p,
			     struct cb_host *h)
{
	g_autoptr(GPtrArray) ports = topology_host_ld_ports(c->t, h);
	struct cb_port *port;

	if (!ports->len)
		return g_strdup_printf("host %s has no empty root port with "
				       "hotplug = on to bind an LD on; add [rootport "
				       "NAME] with hotplug = on under one of its "
				       "bridges (a switch port will not do: QEMU "
				       "10.0.2 cannot remove a device from it)", h->id);
	cb_foreach(ports, struct cb_port, port) {
		g_autoptr(GPtrArray) wins = topology_ld_windows(port);
		struct cb_window *w;

		cb_foreach(wins, struct cb_window, w)
			if (topology_window_room(c->t, w) >= p->ld_size)
				return NULL;
	}
	port = g_ptr_array_index(ports, 0);
	return g_strdup_printf("host %s has no window with room for a %lluM LD "
			       "under bridge %s; add [window NAME] with host = "
			       "%s, targets = %s, size = %lluM (or more)", h->id,
			       MIB(p->ld_size), port->bridge->id, h->id,
			       port->bridge->id, MIB(p->ld_size));
}

/* A lending pool (ld-size) must have hosts that can take its LDs. */
static bool check_lending(struct topo_ctx *c, GError **error)
{
	struct cb_pool *p;

	cb_foreach(c->t->pools, struct cb_pool, p) {
		struct topo_obj *o = obj_of(c, p);
		int hl = topo_key_line(o->sec, "hosts");
		int ll = topo_key_line(o->sec, "ld-size");
		struct cb_host *h;

		if (!p->ld_size)
			continue;
		if (p->devices->len) {
			struct cb_device *d = g_ptr_array_index(p->devices, 0);

			return FAIL(line_of(c, d, "pool"), "pool: pool %s lends "
				    "logical devices (ld-size, line %d), which a "
				    "[device] cannot map as well; use another pool",
				    p->id, ll);
		}
		for (int i = 0; o->list && o->list[i]; i++) {
			h = topology_find_host(c->t, o->list[i]);
			if (!h)
				return FAIL(hl, "hosts: no [host %s] in this file",
					    o->list[i]);
			g_ptr_array_add(p->ld_hosts, h);
		}
		if (!o->list || !o->list[0])
			cb_foreach(c->t->hosts, struct cb_host, h) {
				g_autoptr(GPtrArray) ports =
					topology_host_ld_ports(c->t, h);

				if (ports->len)
					g_ptr_array_add(p->ld_hosts, h);
			}
		if (!p->ld_hosts->len)
			return FAIL(ll, "ld-size: pool %s lends logical devices "
				    "but no host has an empty root port with "
				    "hotplug = on to bind them on; add [rootport "
				    "NAME] with hotplug = on (docs/pooling.md)", p->id);
		cb_foreach(p->ld_hosts, struct cb_host, h) {
			g_autofree char *why = ld_host_problem(c, p, h);

			if (why)
				return FAIL(o->list && o->list[0] ? hl : ll, "%s: %s",
					    o->list && o->list[0] ? "hosts" :
					    "ld-size", why);
		}
	}
	return true;
}

static bool check_serials(struct topo_ctx *c, GError **error)
{
	GHashTable *used = g_hash_table_new(g_int64_hash, g_int64_equal);
	struct cb_device *d;
	bool good = true;

	cb_foreach(c->t->devices, struct cb_device, d) {
		struct cb_device *prev = g_hash_table_lookup(used, &d->serial);

		if (prev) {
			/* derived serials avoid given ones: both were given */
			good = FAIL(line_of(c, d, "serial"), "serial: 0x%"
				    G_GINT64_MODIFIER "x is already the serial "
				    "of %s (line %d); serials must be unique "
				    "(or leave serial out)", d->serial,
				    prev->id, prev->src.line);
			break;
		}
		g_hash_table_insert(used, &d->serial, d);
	}
	/* LD serials are derived around the devices' (derive.c): unique */
	g_hash_table_unref(used);
	return good;
}

bool topo_validate(struct topo_ctx *c, GError **error)
{
	GHashTable *owner = g_hash_table_new(g_direct_hash, g_direct_equal);
	struct cb_region *r;
	bool good = true;

	cb_foreach(c->t->regions, struct cb_region, r)
		if (!(good = check_region(c, r, owner, error)))
			break;
	g_hash_table_unref(owner);
	GET(good);
	GET(check_windows(c, error));
	GET(check_pools(c, error));
	GET(check_lending(c, error));
	return check_serials(c, error);
}
