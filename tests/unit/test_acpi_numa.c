/* SPDX-License-Identifier: MIT */
/*
 * cxlbed's SRAT and HMAT: built from a topology, parsed back the way the
 * guest kernel reads them (structure layout, checksum, HMAT revision 2
 * units), and the tier Linux 6.12 derives from such figures.
 */
#include "tap.h"
#include "qemu/acpi_numa.h"
#include "qemu/cdat.h"
#include "qemu/memmap.h"
#include "qemu/numa_layout.h"
#include "qemu/table_skew.h"
#include "run/guest_view.h"
#include "topology/topology.h"

#include <glib.h>

/*
 * One window with two RAM regions (an uneven 2-way interleave over 9.1
 * and 21.4 GB/s devices, and a single device under a 5 GB/s QoS cap),
 * and a second window nothing lives in.
 */
static const char two_regions[] =
	"[host h0]\ncpus = 2\nmemory = 4G\n"
	"[bridge hb0]\n"
	"[rootport rp0]\n[rootport rp1]\n[rootport rp2]\n"
	"[device m0]\nport = rp0\nread-gbps = 9.1\nwrite-gbps = 9.1\n"
	"[device m1]\nport = rp1\nread-gbps = 21.4\nwrite-gbps = 21.4\n"
	"read-latency-ns = 300\n"
	"[device m2]\nport = rp2\nqos-gbps = 5\n"
	"[window w0]\nsize = 4G\n[window w1]\nsize = 1G\n"
	"[region r0]\nwindow = w0\ndevices = m0 m1\n"
	"[region r1]\nwindow = w0\ndevices = m2\n";

static int bus16(const struct cb_bridge *b, void *data)
{
	(void)b;
	(void)data;
	return 16;
}

static const struct acpi_mem_affinity *mem_of(const struct acpi_numa_view *v,
					      uint32_t pxm, int nth)
{
	for (guint i = 0; i < v->mem->len; i++) {
		const struct acpi_mem_affinity *m =
			&g_array_index(v->mem, struct acpi_mem_affinity, i);

		if (m->pxm == pxm && nth-- == 0)
			return m;
	}
	return NULL;
}

static void test_layout_and_tables(void)
{
	g_autoptr(GError) err = NULL;
	g_autoptr(cb_topology) t = topology_parse("two.topo", two_regions, &err);
	struct cb_host *h = t ? g_ptr_array_index(t->hosts, 0) : NULL;
	g_autoptr(numa_layout) l = NULL;
	g_autoptr(GBytes) srat = NULL, hmat = NULL;
	struct acpi_numa_view v;
	const struct cb_region *r0, *r1;
	const struct acpi_hmat_figures *f;
	const struct acpi_mem_affinity *m;
	uint64_t wbase;

	if (!ok(t != NULL, "two RAM regions in one window load%s%s",
		err ? ": " : "", err ? err->message : "")) {
		for (int i = 0; i < 13; i++)
			skip("no topology");
		return;
	}
	r0 = topology_find_region(t, "r0");
	r1 = topology_find_region(t, "r1");
	wbase = qemu_window_base(h, r0->window);
	l = numa_layout_new(h, bus16, NULL);
	srat = acpi_srat_build(l);
	hmat = acpi_hmat_build(l, NULL);
	ok(acpi_numa_parse(srat, hmat, &v, &err), "SRAT and HMAT parse back%s%s",
	   err ? ": " : "", err ? err->message : "");
	ok(v.cpus == 2, "a processor affinity per vCPU, PXM 0 (%d)", v.cpus);
	m = mem_of(&v, 0, 2);
	ok(mem_of(&v, 0, 0) && mem_of(&v, 0, 0)->base == 0 && m &&
	   m->base == 4ull << 30 && m->size == 2ull << 30 && !mem_of(&v, 0, 3),
	   "DRAM in PXM 0: below 640 KiB, up to 2 GiB, and 2 GiB above 4 GiB");
	ok(acpi_numa_view_pxm(&v, qemu_region_base(h, r0), r0->size) == 1 &&
	   acpi_numa_view_pxm(&v, qemu_region_base(h, r1), r1->size) == 2,
	   "each region's addresses are a proximity domain of their own (1, 2)");
	ok(mem_of(&v, 1, 0) && mem_of(&v, 1, 0)->base == wbase &&
	   mem_of(&v, 2, 0) && mem_of(&v, 2, 0)->base + mem_of(&v, 2, 0)->size ==
	   wbase + r0->window->size &&
	   mem_of(&v, 1, 0)->base + mem_of(&v, 1, 0)->size == mem_of(&v, 2, 0)->base &&
	   (mem_of(&v, 2, 0)->flags & SRAT_MEM_HOTPLUGGABLE),
	   "the two domains tile the window, hot-pluggable");
	m = mem_of(&v, 3, 0);
	ok(m && m->size == 1ull << 30 && !acpi_numa_view_figures(&v, 3),
	   "the empty window is one domain without HMAT figures");
	ok(v.ports->len == 1 &&
	   g_array_index(v.ports, struct acpi_generic_port, 0).pxm == 4 &&
	   g_array_index(v.ports, struct acpi_generic_port, 0).uid == 16 &&
	   !strcmp(g_array_index(v.ports, struct acpi_generic_port, 0).hid, "ACPI0016"),
	   "a generic port for hb0: ACPI0016, UID = its bus, PXM 4");
	f = acpi_numa_view_figures(&v, 1);
	ok(f && f->latency_ns[CB_READ] ==
	   hmat_latency_ns(topology_region_max_latency_ns(r0, CB_READ)) &&
	   f->latency_ns[CB_READ] > 300 && f->mbs[CB_READ] == 18200 &&
	   f->mbs[CB_WRITE] == 18200,
	   "r0: its slowest device's path latency (%u ns), 2 x 9.1 GB/s for the "
	   "uneven interleave (%u MB/s)", f ? f->latency_ns[CB_READ] : 0,
	   f ? f->mbs[CB_READ] : 0);
	f = acpi_numa_view_figures(&v, 2);
	ok(f && f->mbs[CB_READ] == 5000 && f->mbs[CB_WRITE] == 5000,
	   "r1: the QoS cap, 5000 MB/s (%u)", f ? f->mbs[CB_READ] : 0);
	f = acpi_numa_view_figures(&v, 4);
	ok(f && f->latency_ns[CB_READ] == 10 && f->mbs[CB_READ] == 64000,
	   "generic port: the bridge's 10 ns and 64 GB/s");
	f = acpi_numa_view_figures(&v, 0);
	ok(f && f->latency_ns[CB_READ] == 90 && f->mbs[CB_READ] == 40000 &&
	   f->mbs[CB_WRITE] == 30000, "DRAM: 90 ns, 40/30 GB/s");
	acpi_numa_view_clear(&v);
	{
		struct table_skew skew = { .node_ns = 300, .port_ns = 7 };
		g_autoptr(GBytes) skewed = acpi_hmat_build(l, &skew);

		acpi_numa_parse(srat, skewed, &v, NULL);
		ok(acpi_numa_view_figures(&v, 1) && acpi_numa_view_figures(&v, 4) &&
		   acpi_numa_view_figures(&v, 1)->latency_ns[CB_WRITE] ==
		   hmat_latency_ns(topology_region_max_latency_ns(r0, CB_WRITE)) + 300 &&
		   acpi_numa_view_figures(&v, 4)->latency_ns[CB_READ] == 17 &&
		   acpi_numa_view_figures(&v, 0)->latency_ns[CB_READ] == 90,
		   "a skew moves the region and port latencies only");
		acpi_numa_view_clear(&v);
	}
	{
		GByteArray *b = g_byte_array_new();
		gsize n;
		const guint8 *d = g_bytes_get_data(hmat, &n);
		g_autoptr(GBytes) bad = NULL;

		g_byte_array_append(b, d, n);
		b->data[n - 1] ^= 1;
		bad = g_byte_array_free_to_bytes(b);
		ok(!acpi_numa_parse(srat, bad, &v, NULL),
		   "a table whose checksum no longer holds is refused");
		acpi_numa_view_clear(&v);
	}
}

static void test_skew_parse(void)
{
	struct table_skew s;
	g_autoptr(GError) err = NULL;

	ok(table_skew_parse("cdat=7,node=-20", &s, NULL) && s.cdat_ns == 7 &&
	   s.node_ns == -20 && s.port_ns == 0, "skew: cdat=7,node=-20");
	ok(table_skew_parse(NULL, &s, NULL) && !s.cdat_ns && !s.port_ns && !s.node_ns,
	   "skew: unset is none");
	ok(!table_skew_parse("hmat=3", &s, &err) && err &&
	   strstr(err->message, TABLE_SKEW_ENV), "skew: an unknown part is refused, naming the variable");
}

/*
 * Tiers seen in the guest (Linux 6.12, memory_tierN/nodelist) for the
 * HMAT figures of shipped topologies, DRAM being 90/90 ns, 40000/30000 MB/s.
 */
static void test_tier(void)
{
	const unsigned int dl[2] = { 90, 90 }, dm[2] = { 40000, 30000 };
	const unsigned int def_l[2] = { 220, 230 }, def_m[2] = { 63020, 63020 };
	const unsigned int dir_l[2] = { 165, 175 }, dir_m[2] = { 20000, 18000 };
	const unsigned int fpga_l[2] = { 290, 300 }, fpga_m[2] = { 16000, 8000 };

	ok(guest_view_tier(dl, dm, dl, dm) == 4, "DRAM's own figures: memory_tier4");
	ok(guest_view_tier(def_l, def_m, dl, dm) == 6, "default.topo's region: memory_tier6");
	ok(guest_view_tier(dir_l, dir_m, dl, dm) == 15, "direct.topo's region: memory_tier15");
	ok(guest_view_tier(fpga_l, fpga_m, dl, dm) == 43, "fpga-loaded.topo's region: memory_tier43");
}

static void test_dram_ranges(void)
{
	struct cb_host h = { .memory = 1ull << 30 };
	struct qemu_range r[3];
	int n = qemu_dram_ranges(&h, r);

	ok(n == 2 && r[0].base == 0 && r[0].size == 640 * 1024 &&
	   r[1].base == 1 << 20 && r[1].size == (1ull << 30) - (1 << 20),
	   "1 GiB of DRAM: below 640 KiB and from 1 MiB, nothing above 4 GiB");
}

int main(void)
{
	plan(22);
	test_layout_and_tables();
	test_skew_parse();
	test_tier();
	test_dram_ranges();
	return done_testing();
}
