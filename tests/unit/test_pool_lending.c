/* SPDX-License-Identifier: MIT */
/*
 * Pool lending without QEMU: the logical devices a lending pool is carved
 * into, the path of an LD bound on a port (figures worked out by hand from
 * the file), and the fabric manager's ownership map: which port and
 * window a bind takes, what it refuses, what the pool's figures are.
 */
#include "fm/fm_map.h"
#include "tap.h"
#include "topology/topology.h"

#define MIB (1024ull * 1024)

static struct cb_topology *parse(const char *text)
{
	g_autoptr(GError) err = NULL;
	struct cb_topology *t = topology_parse("inline.topo", text, &err);

	if (!t)
		diag("  %s", err->message);
	return t;
}

/* Two hosts; h0 has two LD ports and two windows, h1 one of each. */
static const char *const two_hosts =
	"[pool p0]\nsize = 768M\nld-size = 256M\nread-latency-ns = 200\n"
	"write-latency-ns = 230\nread-gbps = 12\nlink-latency-ns = 7\n"
	"[host h0]\n[host h1]\n"
	"[bridge hb0]\nhost = h0\n[rootport rp0]\nbridge = hb0\nhotplug = on\n"
	"[rootport rp1]\nbridge = hb0\nhotplug = on\n"
	"[rootport rpx]\nbridge = hb0\n[device mem0]\nport = rpx\n"
	"[window w0]\nhost = h0\nsize = 256M\n[region r0]\nwindow = w0\ndevices = mem0\n"
	"[window w0a]\nhost = h0\nsize = 256M\n[window w0b]\nhost = h0\nsize = 512M\n"
	"[bridge hb1]\nhost = h1\n[rootport rp2]\nbridge = hb1\nhotplug = on\n"
	"[window w1]\nhost = h1\nsize = 256M\n";

static void test_lds(const struct cb_topology *t)
{
	const struct cb_pool *p = topology_find_pool(t, "p0");
	const struct cb_ld *l0 = topology_find_ld(t, "p0.ld0");
	const struct cb_ld *l2 = topology_find_ld(t, "p0.ld2");
	const struct cb_device *mem0 = topology_find_device(t, "mem0");

	is_int(p->lds->len, 3, "768M / 256M: three LDs");
	ok(l0 && l2 && l0->offset == 0 && l2->offset == 512 * MIB &&
	   l2->size == 256 * MIB, "p0.ld2 is the slice at 512M");
	ok(l0 && mem0 && l0->serial != mem0->serial && l2->serial == l0->serial + 2,
	   "LD serials follow the devices' (0x%llx, 0x%llx; mem0 0x%llx)",
	   l0 ? (unsigned long long)l0->serial : 0ull,
	   l2 ? (unsigned long long)l2->serial : 0ull,
	   mem0 ? (unsigned long long)mem0->serial : 0ull);
	ok(p->ld_hosts->len == 2, "without hosts =, the pool lends to every "
	   "host with an empty hotplug root port");
}

static void test_ld_path(const struct cb_topology *t)
{
	const struct cb_ld *ld = topology_find_ld(t, "p0.ld1");
	const struct cb_port *rp1 = topology_find_port(t, "rp1");
	struct cb_device *d = topology_ld_device(ld, rp1);
	const struct cb_path *p = cb_device_path(d);
	const struct cb_hop *media = cb_path_find(p, CB_HOP_MEDIA);

	is_str(p->text, "hb0/rp1/p0.ld1", "an LD on rp1: its path text");
	is_int(p->nhops, 3, "bridge, link, media");
	/* bridge 10 (default) + link 7 (the pool's ld link) + media 200 */
	ok(p->latency_ns[CB_READ] == 217 && p->latency_ns[CB_WRITE] == 247,
	   "idle read 217 ns, write 247 ns (got %g, %g)", p->latency_ns[CB_READ],
	   p->latency_ns[CB_WRITE]);
	is_str(media ? media->resource : NULL, "media:pool:p0",
	       "its media is the pool's one timing resource");
	ok(d->serial == ld->serial && d->pool_offset == ld->offset &&
	   d->host == topology_find_host(t, "h0"), "the bound device carries the "
	   "LD's serial and slice, on h0");
	topology_ld_device_free(d);
}

static void test_map(const struct cb_topology *t)
{
	struct fm_map *m = fm_map_new(t);
	const struct cb_host *h0 = topology_find_host(t, "h0");
	const struct cb_host *h1 = topology_find_host(t, "h1");
	struct fm_ld *l0 = fm_map_find(m, "p0.ld0"), *l1 = fm_map_find(m, "p0.ld1");
	struct fm_ld *l2 = fm_map_find(m, "p0.ld2");
	const struct cb_port *port;
	const struct cb_window *w;
	struct fm_totals tot;
	char *why = NULL;
	bool refused;

	ok(fm_map_plan_bind(m, l0, h0, &port, &w, &why) &&
	   !strcmp(port->id, "rp0") && !strcmp(w->id, "w0a"),
	   "p0.ld0 to h0: rp0, window w0a (w0 is full with r0)");
	fm_map_begin_bind(m, l0, h0, port, w, "ram", 1.0);
	fm_map_bound(m, l0);
	refused = !fm_map_plan_bind(m, l0, h1, &port, &w, &why);
	ok(refused && strstr(why, "bound to h0"), "a double bind is refused: %s", why);
	g_clear_pointer(&why, g_free);
	ok(fm_map_plan_bind(m, l1, h0, &port, &w, &why) &&
	   !strcmp(port->id, "rp1") && !strcmp(w->id, "w0b"),
	   "p0.ld1 to h0: the next port, and an empty window (a node of its own)");
	fm_map_begin_bind(m, l1, h0, port, w, "ram", 2.0);
	fm_map_bound(m, l1);
	refused = !fm_map_plan_bind(m, l2, h0, &port, &w, &why);
	ok(refused && strstr(why, "no free hotplug root port"), "h0 is full: %s", why);
	g_clear_pointer(&why, g_free);
	ok(fm_map_newest_of(m, h0, NULL) == l1, "h0's newest LD is p0.ld1");

	tot = fm_map_totals(m, NULL, NULL);
	ok(tot.lent == 512 * MIB && tot.free == 256 * MIB && tot.used == 512 * MIB &&
	   tot.unknown == 2, "use not known yet: lent 512M counted used, free 256M");
	l0->b.used_bytes = 100 * MIB;
	l1->b.used_bytes = 300 * MIB;	/* more than an LD: capped */
	tot = fm_map_totals(m, NULL, h0);
	ok(tot.used == 356 * MIB && tot.stranded == 156 * MIB,
	   "h0 uses 100M + 256M of its 512M: 156M stranded");

	fm_map_begin_release(m, l1);
	refused = !fm_map_plan_bind(m, l1, h1, &port, &w, &why);
	ok(refused, "an LD being released cannot be bound: %s", why);
	g_clear_pointer(&why, g_free);
	fm_map_freed(m, l1, true);
	ok(fm_map_plan_bind(m, l1, h1, &port, &w, &why) && !strcmp(port->id, "rp2"),
	   "released, p0.ld1 can go to h1 (rp2)");
	fm_map_freed(m, l0, false);
	ok(!fm_map_plan_bind(m, l2, h0, &port, &w, &why) || strcmp(port->id, "rp0"),
	   "a port whose device QEMU kept stays taken");
	g_free(why);
	fm_map_free(m);
}

static void test_hosts_key(void)
{
	g_autoptr(cb_topology) t = parse(
		"[pool p0]\nsize = 256M\nld-size = 256M\nhosts = h1\n"
		"[host h0]\n[bridge hb0]\nhost = h0\n[rootport rp0]\nhotplug = on\n"
		"bridge = hb0\n[window w0]\nhost = h0\nsize = 256M\n"
		"[host h1]\n[bridge hb1]\nhost = h1\n[rootport rp1]\nhotplug = on\n"
		"bridge = hb1\n[window w1]\nhost = h1\nsize = 256M\n");
	struct fm_map *m = t ? fm_map_new(t) : NULL;
	const struct cb_port *port;
	const struct cb_window *w;
	char *why = NULL;

	if (!ok(t != NULL, "hosts = h1 loads")) {
		ok(0, "skipped");
		return;
	}
	bool refused = !fm_map_plan_bind(m, fm_map_find(m, "p0.ld0"),
					 topology_find_host(t, "h0"), &port, &w, &why);

	ok(refused && strstr(why, "does not lend to h0"),
	   "the pool lends only to the hosts named: %s", why);
	g_free(why);
	fm_map_free(m);
}

int main(void)
{
	g_autoptr(cb_topology) t = parse(two_hosts);

	plan(4 + 5 + 10 + 2);
	if (!t) {
		for (int i = 0; i < 19; i++)
			ok(0, "topology did not load");
		test_hosts_key();
		return 1;
	}
	test_lds(t);
	test_ld_path(t);
	test_map(t);
	test_hosts_key();
	return tap_failed != 0;
}
