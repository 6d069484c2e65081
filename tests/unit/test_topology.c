/* SPDX-License-Identifier: MIT */
/*
 * Topology parser and validator: every bad-input class in tests/data/bad
 * fails with CXLBED_ERROR_INPUT at the marked FILE:LINE (bad_files.h), and
 * the shipped topologies build the expected graph. Checks run in the order
 * `cxlbed plan` runs them: load, QEMU's numbering and address map, then
 * for files named timing-* the timing model's limits (as with --timing).
 */
#include <math.h>

#include "tap.h"
#include "bad_files.h"
#include "topology/topology.h"
#include "qemu/pci_numbers.h"
#include "qemu/timing_limits.h"

#include <glib.h>

/* What `cxlbed plan` checks, in its order; timing-* files as with --timing. */
static bool plan_checks(const char *path, GError **error)
{
	g_autofree char *base = g_path_get_basename(path);
	g_autoptr(cb_topology) t = topology_load(path, error);

	return t && qemu_check_topology(t, error) &&
	       (!g_str_has_prefix(base, "timing-") || timing_check_limits(t, error));
}

static struct cb_topology *load_shipped(const char *name)
{
	g_autofree char *path = g_strdup_printf(SRCDIR "/topologies/%s.topo",
						name);
	g_autoptr(GError) err = NULL;
	struct cb_topology *t = topology_load(path, &err);

	if (!ok(t != NULL, "topologies/%s.topo loads", name))
		diag("  %s", err->message);
	return t;
}

static struct cb_topology *parse(const char *text)
{
	g_autoptr(GError) err = NULL;
	struct cb_topology *t = topology_parse("inline.topo", text, &err);

	if (!t)
		diag("  %s", err->message);
	return t;
}

static void test_default(void)
{
	g_autoptr(cb_topology) t = load_shipped("default");
	struct cb_host *h;
	struct cb_device *d;
	struct cb_region *r;
	const char *path;

	if (!t) {
		for (int i = 0; i < 11; i++)
			skip("default.topo did not load");
		return;
	}
	h = topology_find_host(t, "h0");
	is_str(t->name, "default", "default: name from [topology]");
	is_int(t->hosts->len, 1, "default: one host");
	is_int(topology_host_memdev_count(h), 4, "default: four memdevs");
	r = topology_find_region(t, "r0");
	is_int(r->devices->len, 4, "default: region r0 is 4-way");
	is_int(r->size, 1024 * CB_MIB, "default: region r0 is 1 GiB");
	is_int(topology_host_cxl_ram_bytes(h), 1024 * CB_MIB,
	       "default: 1 GiB of CXL RAM on h0");
	d = topology_find_device(t, "mem2");
	path = topology_device_path(d);
	is_str(path, "hb0/rp0/sw0/mem2", "default: mem2's path");
	is_int(topology_device_switch_levels(d), 1, "default: one switch level");
	is_int(d->serial, 0x1002, "default: serials assigned in file order");
	ok(topology_device_region(t, d) == r, "default: mem2 is in r0");
	ok(d->link.gbps > 62.9 && d->link.gbps < 63.1 &&
	   d->perf.read_latency_ns == 150,
	   "default: device defaults (x16 @ 32 GT/s = 63 GB/s, 150 ns)");
}

static void test_cascade(void)
{
	g_autoptr(cb_topology) t = load_shipped("cascade");
	struct cb_device *d;
	const char *path;

	if (!t) {
		skip("cascade.topo did not load");
		skip("cascade.topo did not load");
		return;
	}
	d = topology_find_device(t, "mem1");
	path = topology_device_path(d);
	is_str(path, "hb0/rp0/sw0/sw1/mem1", "cascade: mem1 is two switches down");
	is_int(topology_device_switch_levels(d), 2, "cascade: level 2");
}

static void test_shared_pool(void)
{
	g_autoptr(cb_topology) t = load_shipped("shared-pool");
	struct cb_pool *p;
	struct cb_device *a, *b;

	if (!t) {
		skip("shared-pool.topo did not load");
		return;
	}
	p = topology_find_pool(t, "p0");
	a = g_ptr_array_index(p->devices, 0);
	b = g_ptr_array_index(p->devices, 1);
	ok(p->devices->len == 2 && a->host != b->host && a->pool == p &&
	   a->pool_offset == 0 && b->pool_offset == 0 && p->shared,
	   "shared-pool: two hosts map the same pool bytes");
}

static void test_shipped(void)
{
	const char *names[] = { "direct", "interleave2-rp" };

	for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
		topology_free(load_shipped(names[i]));
}

static void test_inline(void)
{
	g_autoptr(cb_topology) t = parse(
		"[host h0]\n[bridge hb0]\n[rootport rp0]\n"
		"[switch sw0]\nport = rp0\nports = 3\n"
		"[device a]\nport = sw0.p2\nserial = 0x1000\n"
		"[device b]\nport = sw0\n"
		"[pool p0]\nsize = 1G\nshared = off\n"
		"[device c]\nport = sw0\npool = p0\nsize = 512M\n");
	struct cb_device *a, *b, *c;

	if (!t) {
		ok(0, "inline topology loads");
		for (int i = 0; i < 3; i++)
			skip("inline topology did not load");
		return;
	}
	ok(1, "inline topology loads (one host/bridge taken by default)");
	a = topology_find_device(t, "a");
	b = topology_find_device(t, "b");
	c = topology_find_device(t, "c");
	ok(a->port->number == 2 && b->port->number == 0 &&
	   c->port->number == 1,
	   "explicit sw0.p2 is kept, 'sw0' takes the next free port");
	ok(b->serial == 0x1001 && c->serial == 0x1002,
	   "auto serials skip the explicit one");
	ok(c->pool_offset == 0 && c->pool->size == CB_GIB,
	   "pool slice carved at offset 0");
}

/*
 * The derived path model (path.h), checked against figures worked out by
 * hand from the files, not against any other code's arithmetic.
 */
static void test_paths(void)
{
	g_autoptr(cb_topology) t = load_shipped("default");
	g_autoptr(cb_topology) q = load_shipped("contention-qos");
	g_autoptr(cb_topology) u = parse(
		"[host h0]\n[bridge hb0]\n[rootport rp0]\n[rootport rp1]\n"
		"[device fast]\nport = rp0\nread-gbps = 21.4\n"
		"[device slow]\nport = rp1\nread-gbps = 9.1\n"
		"read-latency-ns = 250\nlink-latency-ns = 7\n"
		"[window w0]\nhost = h0\n"
		"[region r0]\nwindow = w0\ndevices = fast slow\n");
	const struct cb_path *p;
	const struct cb_region *r;
	const struct cb_device *d;

	if (!t || !q || !u) {
		for (int i = 0; i < 8; i++)
			skip("a topology for the path tests did not load");
		return;
	}
	p = cb_device_path(topology_find_device(t, "mem2"));
	ok(p->nhops == 5 && p->hops[0].kind == CB_HOP_BRIDGE &&
	   p->hops[1].kind == CB_HOP_LINK && !strcmp(p->hops[1].id, "sw0") &&
	   p->hops[2].kind == CB_HOP_SWITCH && p->hops[3].kind == CB_HOP_LINK &&
	   !strcmp(p->hops[3].id, "mem2") && p->hops[4].kind == CB_HOP_MEDIA,
	   "default mem2: bridge, sw0's link, sw0, mem2's link, media (top down)");
	/* 10 bridge + 5 + 50 switch + 5 = 70; media 150 read, 160 write */
	ok(p->hops_ns == 70 && p->latency_ns[CB_READ] == 220 &&
	   p->latency_ns[CB_WRITE] == 230 && p->switch_levels == 1,
	   "default mem2: hops 70 ns, idle read 220 ns, write 230 ns");
	ok(!strcmp(p->hops[0].resource, "bridge:hb0") &&
	   !strcmp(p->hops[1].resource, "link:sw0") && !p->hops[2].resource &&
	   !strcmp(p->hops[4].resource, "media:mem2"),
	   "default mem2: resources named as every host crossing them names them");
	/* [switch sw0] is at line 17 of default.topo */
	ok(p->hops[2].src.line == 17 && p->hops[1].src.line == 17,
	   "hops remember the section their figures came from (line %d)",
	   p->hops[2].src.line);
	r = topology_find_region(t, "r0");
	/* four devices' links (63 GB/s each) share sw0's one 63 GB/s link */
	ok(topology_region_gbps(r, CB_READ) > 63.0 &&
	   topology_region_gbps(r, CB_READ) < 63.1 &&
	   !strcmp(r->path_text, "hb0/rp0/sw0/{mem0,mem1,mem2,mem3}"),
	   "default r0: 63.0 GB/s (sw0's link), path %s", r->path_text);
	d = topology_find_device(q, "pool0-h0");
	p = cb_device_path(d);
	ok(p->hops[3].cap_gbps == 0.5 &&
	   !g_strcmp0(p->hops[3].cap_resource, "cap:link:pool0-h0:h0") &&
	   !strcmp(p->hops[4].resource, "media:pool:p0"),
	   "contention-qos: h0's cap on its device link, the pool's media shared");
	ok(fabs(topology_region_gbps(topology_find_region(q, "r0"), CB_READ) - 0.5) < 1e-9,
	   "contention-qos: h0's region is held to its 0.5 GB/s cap");
	r = topology_find_region(u, "r0");
	/* 2-way over 21.4 and 9.1: the slow one carries half, so 2 x 9.1 */
	ok(fabs(topology_region_gbps(r, CB_READ) - 18.2) < 1e-9 &&
	   topology_region_max_latency_ns(r, CB_READ) == 250 + 7 + 10 &&
	   topology_region_latency_ns(r, CB_READ) == (150 + 5 + 10 + 250 + 7 + 10) / 2.0,
	   "unequal 2-way: 18.2 GB/s, slowest 267 ns, mean %.1f ns",
	   topology_region_latency_ns(r, CB_READ));
}

static void string_free(gpointer s)
{
	g_string_free(s, TRUE);
}

/* Sections of @text in reverse order. */
static char *reversed_sections(const char *text)
{
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	g_autoptr(GPtrArray) secs = g_ptr_array_new_with_free_func(string_free);
	GString *out = g_string_new(NULL);

	for (int i = 0; lines[i]; i++) {
		if (lines[i][0] == '[' || !secs->len)
			g_ptr_array_add(secs, g_string_new(NULL));
		g_string_append_printf(g_ptr_array_index(secs, secs->len - 1),
				       "%s\n", lines[i]);
	}
	for (guint i = secs->len; i-- > 0;)
		g_string_append(out, ((GString *)g_ptr_array_index(secs, i))->str);
	return g_string_free(out, FALSE);
}

/* Issue 8: a [region] before its [window] crashed; order must not matter. */
static void test_order(void)
{
	g_autofree char *text = NULL, *rev = NULL;
	g_autoptr(cb_topology) t = NULL, u = NULL;
	const struct cb_device *d;
	bool same = true;

	g_file_get_contents(SRCDIR "/topologies/default.topo", &text, NULL, NULL);
	t = parse(text);
	rev = reversed_sections(text);
	u = parse(rev);
	if (!ok(t && u, "default.topo loads with its sections reversed")) {
		skip("reversed default.topo did not load");
		skip("reversed default.topo did not load");
		return;
	}
	cb_foreach(t->devices, const struct cb_device, d) {
		const struct cb_device *e = topology_find_device(u, d->id);

		same &= e && !strcmp(topology_device_path(d), topology_device_path(e)) &&
			e->region && !strcmp(e->region->id, d->region->id);
	}
	ok(same && topology_find_region(u, "r0")->window->host ==
	   topology_find_host(u, "h0"), "... with the same paths and regions");
	g_clear_pointer(&u, topology_free);
	u = parse("[device a]\nport = sw0\n[device b]\nport = sw0.p0\n"
		  "[switch sw0]\nport = rp0\n[rootport rp0]\n[bridge hb0]\n"
		  "[host h0]\n");
	ok(u && topology_find_device(u, "b")->port->number == 0 &&
	   topology_find_device(u, "a")->port->number == 1,
	   "a pinned port (sw0.p0) is kept whatever comes first in the file");
}

/* Presets give a device's (a host's DRAM) figures; keys beside override. */
static void test_presets(void)
{
	g_autoptr(cb_topology) t = parse(
		"[host h0]\ndram-preset = ddr5-local\ndram-read-latency-ns = 85\n"
		"[bridge hb0]\n[rootport rp0]\n[rootport rp1]\n[rootport rp2]\n"
		"[device asic]\nport = rp0\npreset = cxl-asic\n"
		"[device fpga]\nport = rp1\npreset = cxl-fpga\nread-gbps = 10\n"
		"[device plain]\nport = rp2\nread-latency-ns = 200\n");
	const struct cb_device *a, *f, *p;
	const struct cb_host *h;

	if (!t) {
		for (int i = 0; i < 4; i++)
			skip("preset topology did not load");
		return;
	}
	a = topology_find_device(t, "asic");
	f = topology_find_device(t, "fpga");
	p = topology_find_device(t, "plain");
	h = topology_find_host(t, "h0");
	ok(a->perf.read_latency_ns == 205 && a->perf.write_latency_ns == 215 &&
	   a->perf.read_gbps == 24 && a->perf.write_gbps == 12,
	   "preset = cxl-asic: 205/215 ns, 24/12 GB/s");
	ok(f->perf.read_latency_ns == 275 && f->perf.read_gbps == 10 &&
	   f->perf.write_gbps == 8, "a key beside the preset overrides that figure only");
	ok(p->perf.read_latency_ns == 200 && p->perf.write_latency_ns == 160 &&
	   p->perf.read_gbps == 20, "no preset: the documented device defaults");
	ok(h->local.read_latency_ns == 85 && h->local.write_latency_ns == 100 &&
	   h->local.read_gbps == 100, "dram-preset = ddr5-local, read latency overridden");
}

int main(void)
{
	g_autoptr(GPtrArray) bad = bad_files(".topo");

	plan(bad->len + 11 + 3 + 3 + 2 + 4 + 4 + 10 + 3);
	for (guint i = 0; i < bad->len; i++)
		check_bad_file(g_ptr_array_index(bad, i), plan_checks);
	test_default();
	test_cascade();
	test_shared_pool();
	test_shipped();
	test_inline();
	test_presets();
	test_paths();
	test_order();
	return done_testing();
}
