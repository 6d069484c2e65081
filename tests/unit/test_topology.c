/* SPDX-License-Identifier: MIT */
/*
 * Topology parser and validator: every bad-input class in tests/data/bad
 * fails with CXLBED_ERROR_INPUT at the marked FILE:LINE, and the shipped
 * topologies build the expected graph.
 *
 * A bad file marks the line the error must name with "<-- error" and the
 * text the message must contain with a "# expect: TEXT" line.
 */
#include "tap.h"
#include "topology.h"
#include "error.h"

#include <glib.h>

static GPtrArray *bad_files(void)
{
	const char *dir = SRCDIR "/tests/data/bad";
	GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
	GDir *d = g_dir_open(dir, 0, NULL);
	const char *name;

	while (d && (name = g_dir_read_name(d)))
		if (g_str_has_suffix(name, ".topo"))
			g_ptr_array_add(out, g_build_filename(dir, name, NULL));
	if (d)
		g_dir_close(d);
	g_ptr_array_sort(out, (GCompareFunc)g_strcmp0);
	return out;
}

/* Line number of the "<-- error" marker and the "# expect:" text. */
static bool read_marks(const char *path, int *line, char **expect)
{
	g_autofree char *text = NULL;
	g_auto(GStrv) lines = NULL;

	*line = 0;
	*expect = NULL;
	if (!g_file_get_contents(path, &text, NULL, NULL))
		return false;
	lines = g_strsplit(text, "\n", -1);
	for (int i = 0; lines[i]; i++) {
		if (strstr(lines[i], "<-- error"))
			*line = i + 1;
		if (g_str_has_prefix(lines[i], "# expect: "))
			*expect = g_strdup(lines[i] + 10);
	}
	return *line && *expect;
}

static void check_bad(const char *path)
{
	g_autofree char *base = g_path_get_basename(path);
	g_autofree char *expect = NULL, *prefix = NULL;
	g_autoptr(GError) err = NULL;
	struct cb_topology *t;
	int line;

	if (!read_marks(path, &line, &expect)) {
		ok(0, "%s: has a '<-- error' mark and a '# expect:' line", base);
		return;
	}
	t = topology_load(path, &err);
	prefix = g_strdup_printf("%s:%d: ", path, line);
	if (!ok(!t && err && err->domain == CXLBED_ERROR &&
		err->code == CXLBED_ERROR_INPUT &&
		g_str_has_prefix(err->message, prefix) &&
		strstr(err->message, expect),
		"%s: input error (exit 2) at line %d: %s", base, line, expect))
		diag("  got: %s", err ? err->message : "(loaded fine)");
	topology_free(t);
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
	g_autofree char *path = NULL;

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
	g_autofree char *path = NULL;

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
	g_autoptr(GPtrArray) bad = bad_files();

	plan(bad->len + 11 + 3 + 3 + 2 + 4 + 4);
	for (guint i = 0; i < bad->len; i++)
		check_bad(g_ptr_array_index(bad, i));
	test_default();
	test_cascade();
	test_shared_pool();
	test_shipped();
	test_inline();
	test_presets();
	return done_testing();
}
