// SPDX-License-Identifier: MIT
#include "run/guest_view.h"
#include "run/guest_enum.h"
#include "common/json_get.h"
#include "run/verify.h"
#include "run/kernel_features.h"

#include "qemu/acpi_numa.h"
#include "qemu/cdat.h"
#include "qemu/memmap.h"
#include "topology/path.h"

#include <string.h>

static const char *const dir_name[] = { "read", "write" };

/*
 * How the guest kernel adds each link's latency (docs/kernels.md, "Link
 * latency"). The kernel's flit time (cxl_pci_get_latency): flit bytes x
 * 10^6 / (link rate in Mb/s / 8), integer arithmetic, picoseconds; 68-byte
 * flits up to 32 GT/s, 256-byte flits at 64 GT/s. Linux 6.12 takes the
 * rate from the link speed alone and adds the picoseconds to the
 * nanosecond figures from CDAT and HMAT. "cxl: Account for link width in
 * latency calculation" multiplies the rate by the link's width, and
 * "cxl/port: Convert PCIe link latency to nanoseconds" rounds the term up
 * to ns before adding it (Debian's 6.12.117 and 7.3.4 carry both; the
 * run's kernel says which it has: guest_kernel.h).
 */
static struct kernel_link_rule link_rule = { KT_NO, KT_NO };	/* Linux 6.12 */

void guest_view_set_link_rule(struct kernel_link_rule rule)
{
	link_rule = rule;
}

static long link_term(const struct cb_link *l, bool ns, bool width)
{
	long mbps = l->speed_gts < 3 ? 2500 : (long)(l->speed_gts + 0.5) * 1000;
	long flit = l->speed_gts >= 64 ? 256 : 68;
	long bw = mbps * (width && l->width > 0 ? l->width : 1) / 8;
	long ps;

	if (l->speed_gts <= 0)
		return 0;
	ps = flit * 1000000 / bw;
	return ns ? (ps + 999) / 1000 : ps;
}

#define MAX_LINKS 16

/* One device's access latency as the kernel sums it, part by part. */
struct coord_sum {
	unsigned int bridge, switches, media;	/* HMAT and CDAT figures, ns */
	const struct cb_link *link[MAX_LINKS];	/* the links, top down */
	int links;
	double configured;			/* the path model's idle latency */
};

static unsigned int tables_ns(const struct coord_sum *s)
{
	return s->bridge + s->switches + s->media;
}

/* The kernel's link terms, summed as it adds them, under @ns and @width. */
static long links_term(const struct coord_sum *s, bool ns, bool width)
{
	long sum = 0;

	for (int i = 0; i < s->links; i++)
		sum += link_term(s->link[i], ns, width);
	return sum;
}

/* What a kernel of that rule reports. */
static long kernel_ns_as(const struct coord_sum *s, bool ns, bool width)
{
	return tables_ns(s) + links_term(s, ns, width);
}

static struct coord_sum device_sum(const struct cb_device *d, int dir)
{
	const struct cb_path *p = cb_device_path(d);
	struct coord_sum s = { .configured = p->latency_ns[dir] };

	for (int i = 0; i < p->nhops; i++) {
		const struct cb_hop *hop = &p->hops[i];

		switch (hop->kind) {
		case CB_HOP_BRIDGE:
			s.bridge = hmat_latency_ns(hop->latency_ns[dir]);
			break;
		case CB_HOP_SWITCH:
			s.switches += cdat_latency_ns(hop->latency_ns[dir]);
			break;
		case CB_HOP_LINK:
			if (s.links < MAX_LINKS)
				s.link[s.links++] = hop->link;
			break;
		case CB_HOP_MEDIA:
			s.media = cdat_latency_ns(hop->latency_ns[dir]);
			break;
		}
	}
	return s;
}

/* The rules a figure may follow: the run kernel's, or every one when a
 * part of it is unknown. */
struct rule_choice {
	bool ns, width;
	const char *words;
};

static const struct rule_choice rules[] = {
	{ false, false, "ps added as ns, from the link speed (Linux 6.12)" },
	{ true, true, "ns rounded up, over the link's width (\"cxl/port: Convert PCIe "
	  "link latency to nanoseconds\" and \"cxl: Account for link width\")" },
	{ true, false, "ns rounded up, from the link speed" },
	{ false, true, "ps added as ns, over the link's width" },
};

static bool rule_fits(const struct rule_choice *c)
{
	return (link_rule.ns == KT_UNKNOWN || (link_rule.ns == KT_YES) == c->ns) &&
	       (link_rule.width == KT_UNKNOWN || (link_rule.width == KT_YES) == c->width);
}

/* The run kernel's rule (the first that fits when it is not known). */
static const struct rule_choice *run_rule(void)
{
	for (guint i = 0; i < G_N_ELEMENTS(rules); i++)
		if (rule_fits(&rules[i]))
			return &rules[i];
	return &rules[0];
}

long guest_view_kernel_latency(const struct cb_device *d, int dir)
{
	struct coord_sum s = device_sum(d, dir);
	const struct rule_choice *c = run_rule();

	return kernel_ns_as(&s, c->ns, c->width);
}

bool guest_view_latency_fits(const struct cb_device *d, int dir, long got)
{
	struct coord_sum s = device_sum(d, dir);

	for (guint i = 0; i < G_N_ELEMENTS(rules); i++)
		if (rule_fits(&rules[i]) && kernel_ns_as(&s, rules[i].ns, rules[i].width) == got)
			return true;
	return false;
}

/* The slowest of @reg's devices as a kernel of rule @c sums them: it
 * reports an interleave as its slowest target. */
static struct coord_sum worst_of(const struct cb_region *reg, int dir,
				 const struct rule_choice *c)
{
	struct coord_sum worst = { 0 };
	const struct cb_device *d;

	cb_foreach(reg->devices, const struct cb_device, d) {
		struct coord_sum s = device_sum(d, dir);

		if (d_i_ == 0 || kernel_ns_as(&s, c->ns, c->width) >
				 kernel_ns_as(&worst, c->ns, c->width))
			worst = s;
	}
	return worst;
}

bool guest_view_coordinates(struct run_result *r, const struct cb_host *h,
			    const struct cb_region *reg, JsonObject *gr)
{
	g_autofree char *name = g_strdup_printf("coordinates:%s:%s", h->id, reg->id);
	JsonObject *acc = json_get_object(gr, "access0");
	g_autoptr(GString) detail = g_string_new(NULL);
	bool pass = acc != NULL;

	if (!acc)
		return result_check(r, name, false,
				    "the guest kernel computed no access coordinates for %s",
				    reg->id);
	for (int dir = CB_READ; dir <= CB_WRITE; dir++) {
		g_autofree char *key = g_strdup_printf("%s_latency", dir_name[dir]);
		gint64 got = json_get_int(acc, key, -1);
		const struct rule_choice *c = run_rule(), *matched = NULL;
		struct coord_sum worst;
		long want, links_ns;

		/* an unknown rule: the one the guest's figure follows, if any */
		for (guint i = 0; i < G_N_ELEMENTS(rules) && !matched; i++) {
			struct coord_sum w = worst_of(reg, dir, &rules[i]);

			if (rule_fits(&rules[i]) &&
			    kernel_ns_as(&w, rules[i].ns, rules[i].width) == got)
				matched = &rules[i];
		}
		if (matched)
			c = matched;
		worst = worst_of(reg, dir, c);
		want = kernel_ns_as(&worst, c->ns, c->width);
		links_ns = links_term(&worst, true, c->width);
		pass &= matched != NULL;
		g_string_append_printf(detail,
			"%sguest %s latency %" G_GINT64_FORMAT " ns, expected %ld: "
			"cxlbed's HMAT/CDAT figures %u (bridge %u + switches %u + "
			"device %u) + the kernel's %d link term(s) of %ld ns in all, "
			"which this kernel adds as %ld (%s)%s; configured path %.0f ns",
			dir ? "; " : "", dir_name[dir], got, want,
			tables_ns(&worst), worst.bridge, worst.switches, worst.media,
			worst.links, links_ns, links_term(&worst, c->ns, c->width), c->words,
			link_rule.ns == KT_UNKNOWN || link_rule.width == KT_UNKNOWN ?
			" [the kernel's rule was not known: the figure decides]" : "",
			worst.configured);
	}
	g_string_append_printf(detail, "; read bandwidth %" G_GINT64_FORMAT " MB/s "
			       "(the kernel's own sum over CDAT)",
			       json_get_int(acc, "read_bandwidth", -1));
	return result_check(r, name, pass, "%s", detail->str);
}

/* Hex (the agent's copy of a firmware table) to bytes; NULL if malformed. */
static GBytes *hex_bytes(const char *hex)
{
	gsize n = hex ? strlen(hex) : 0;
	GByteArray *b;

	if (!n || n % 2)
		return NULL;
	b = g_byte_array_sized_new(n / 2);
	for (gsize i = 0; i < n; i += 2) {
		int hi = g_ascii_xdigit_value(hex[i]), lo = g_ascii_xdigit_value(hex[i + 1]);
		guint8 v = (guint8)(hi << 4 | lo);

		if (hi < 0 || lo < 0) {
			g_byte_array_unref(b);
			return NULL;
		}
		g_byte_array_append(b, &v, 1);
	}
	return g_byte_array_free_to_bytes(b);
}

/* The region's figures as HMAT should carry them (kernel units). */
static void region_figures(const struct cb_region *reg, unsigned int lat[2],
			   unsigned int mbs[2])
{
	for (int dir = CB_READ; dir <= CB_WRITE; dir++) {
		lat[dir] = hmat_latency_ns(topology_region_max_latency_ns(reg, dir));
		mbs[dir] = hmat_bandwidth_mbs(topology_region_gbps(reg, dir));
	}
}

static void dram_figures(const struct cb_host *h, unsigned int lat[2],
			 unsigned int mbs[2])
{
	lat[CB_READ] = hmat_latency_ns(h->local.read_latency_ns);
	lat[CB_WRITE] = hmat_latency_ns(h->local.write_latency_ns);
	mbs[CB_READ] = hmat_bandwidth_mbs(h->local.read_gbps);
	mbs[CB_WRITE] = hmat_bandwidth_mbs(h->local.write_gbps);
}

/* Linux 6.12 (mm/memory-tiers.c): DRAM sits at 4.5 chunks of 128. */
#define MEMTIER_CHUNK_BITS 7
#define MEMTIER_ADISTANCE_DRAM ((4L << MEMTIER_CHUNK_BITS) + (1L << (MEMTIER_CHUNK_BITS - 1)))

int guest_view_tier(const unsigned int lat[2], const unsigned int mbs[2],
		    const unsigned int dram_lat[2], const unsigned int dram_mbs[2])
{
	/* mt_perf_to_adistance(), in its order of operations. */
	long adist = MEMTIER_ADISTANCE_DRAM * ((long)lat[0] + lat[1]) /
		((long)dram_lat[0] + dram_lat[1]) *
		((long)dram_mbs[0] + dram_mbs[1]) / ((long)mbs[0] + mbs[1]);

	return (int)(adist >> MEMTIER_CHUNK_BITS);
}

static bool check_region_numa(struct run_result *r, const struct cb_host *h,
			      const struct cb_region *reg, JsonObject *en,
			      const struct acpi_numa_view *v)
{
	g_autofree char *name = g_strdup_printf("numa:%s:%s", h->id, reg->id);
	JsonObject *gr = guest_enum_region(en, reg);
	uint64_t base = qemu_region_base(h, reg);
	int64_t pxm = acpi_numa_view_pxm(v, base, reg->size);
	const struct acpi_hmat_figures *f = pxm >= 0 ? acpi_numa_view_figures(v, (uint32_t)pxm) : NULL;
	gint64 start = json_get_int(gr, "start", -1), node = json_get_int(gr, "node", -1);
	unsigned int lat[2], mbs[2];
	const struct cb_region *o;

	region_figures(reg, lat, mbs);
	if (!gr)
		return result_check(r, name, false, "the guest has no region %s", reg->id);
	if (start != (gint64)base)
		return result_check(r, name, false, "the guest placed %s at 0x%" G_GINT64_MODIFIER
				    "x, not at 0x%" G_GINT64_MODIFIER "x where the SRAT "
				    "gives it its proximity domain", reg->id, start, base);
	if (pxm <= 0)
		return result_check(r, name, false, "the guest's SRAT gives %s's addresses "
				    "[0x%" G_GINT64_MODIFIER "x, +%" G_GUINT64_FORMAT " MiB) %s",
				    reg->id, base, reg->size >> 20,
				    pxm ? "no single proximity domain" : "DRAM's proximity domain");
	cb_foreach(h->regions, const struct cb_region, o)
		if (o != reg && acpi_numa_view_pxm(v, qemu_region_base(h, o), o->size) == pxm)
			return result_check(r, name, false, "%s shares PXM %" G_GINT64_FORMAT
					    " with %s", reg->id, pxm, o->id);
	if (!f || f->latency_ns[0] != lat[0] || f->latency_ns[1] != lat[1] ||
	    f->mbs[0] != mbs[0] || f->mbs[1] != mbs[1])
		return result_check(r, name, false, "the guest's HMAT gives %s's PXM %" G_GINT64_FORMAT
				    " %u/%u ns, %u/%u MB/s (read/write); its path is "
				    "%u/%u ns, %u/%u MB/s", reg->id, pxm,
				    f ? f->latency_ns[0] : 0, f ? f->latency_ns[1] : 0,
				    f ? f->mbs[0] : 0, f ? f->mbs[1] : 0,
				    lat[0], lat[1], mbs[0], mbs[1]);
	if (reg->mode == CB_REGION_RAM) {
		cb_foreach(h->regions, const struct cb_region, o) {
			JsonObject *go = guest_enum_region(en, o);

			if (o != reg && o->mode == CB_REGION_RAM && go &&
			    json_get_int(go, "node", -2) == node)
				return result_check(r, name, false, "%s and %s were both "
						    "onlined into node %" G_GINT64_FORMAT,
						    reg->id, o->id, node);
		}
	}
	{
		g_autofree char *where = reg->mode == CB_REGION_RAM ?
			g_strdup_printf("its own node %" G_GINT64_FORMAT, node) :
			g_strdup("devdax");

		return result_check(r, name, true, "%s: PXM %" G_GINT64_FORMAT " [0x%"
				    G_GINT64_MODIFIER "x, +%" G_GUINT64_FORMAT " MiB), %s; "
				    "HMAT %u/%u ns, %u/%u MB/s (read/write) = its path",
				    reg->id, pxm, base, reg->size >> 20, where,
				    lat[0], lat[1], mbs[0], mbs[1]);
	}
}

/* node -> tier from the agent's "tiers"; -1 when the node is in none. */
static int tier_of(JsonArray *tiers, gint64 node)
{
	for (guint i = 0; tiers && i < json_array_get_length(tiers); i++) {
		JsonObject *t = json_array_get_object_element(tiers, i);
		JsonArray *nodes = json_get_array(t, "nodes");

		for (guint j = 0; nodes && j < json_array_get_length(nodes); j++)
			if (json_array_get_int_element(nodes, j) == node)
				return (int)json_get_int(t, "tier", -1);
	}
	return -1;
}

/* Fastest configured path first: the order tiers should follow. */
static gint by_latency(gconstpointer a, gconstpointer b)
{
	const struct cb_region *p = *(const struct cb_region *const *)a;
	const struct cb_region *q = *(const struct cb_region *const *)b;
	double lp = topology_region_max_latency_ns(p, CB_READ);
	double lq = topology_region_max_latency_ns(q, CB_READ);

	return lp < lq ? -1 : lp > lq;
}

static bool check_tiers(struct run_result *r, const struct cb_host *h, JsonObject *en)
{
	g_autofree char *name = g_strdup_printf("tiers:%s", h->id);
	JsonArray *tiers = json_get_array(en, "tiers");
	JsonArray *nodes = json_get_array(en, "nodes");
	g_autoptr(GString) detail = g_string_new(NULL);
	g_autoptr(GPtrArray) ram = g_ptr_array_new();
	unsigned int dlat[2], dmbs[2];
	int dram_tier = -1, want_dram = (int)(MEMTIER_ADISTANCE_DRAM >> MEMTIER_CHUNK_BITS);
	bool pass = tiers && json_array_get_length(tiers) > 0;
	const struct cb_region *reg;

	dram_figures(h, dlat, dmbs);
	/* DRAM: the nodes with vCPUs. */
	for (guint i = 0; nodes && i < json_array_get_length(nodes); i++) {
		JsonObject *n = json_array_get_object_element(nodes, i);
		const char *cpus = json_get_string(n, "cpus");
		gint64 id = json_get_int(n, "node", -1);
		int t;

		if (!cpus || !*cpus)
			continue;
		t = tier_of(tiers, id);
		pass &= t == want_dram;
		dram_tier = MAX(dram_tier, t);
		g_string_append_printf(detail, "%sDRAM node %" G_GINT64_FORMAT
				       " in memory_tier%d", detail->len ? ", " : "", id, t);
	}
	pass &= dram_tier >= 0;
	cb_foreach(h->regions, const struct cb_region, reg)
		if (reg->mode == CB_REGION_RAM && guest_enum_region(en, reg))
			g_ptr_array_add(ram, (gpointer)reg);
	g_ptr_array_sort(ram, by_latency);
	for (guint i = 0; i < ram->len; i++) {
		unsigned int lat[2], mbs[2];
		gint64 node;
		int want, got;

		reg = g_ptr_array_index(ram, i);
		node = json_get_int(guest_enum_region(en, reg), "node", -1);
		region_figures(reg, lat, mbs);
		want = guest_view_tier(lat, mbs, dlat, dmbs);
		got = tier_of(tiers, node);
		pass &= got == want && got > dram_tier;
		g_string_append_printf(detail, "; %s (node %" G_GINT64_FORMAT ", %u/%u ns, "
				       "%u/%u MB/s) in memory_tier%d%s", reg->id, node,
				       lat[0], lat[1], mbs[0], mbs[1], got,
				       got == want ? "" : " where its figures put it in ");
		if (got != want)
			g_string_append_printf(detail, "memory_tier%d", want);
	}
	if (!tiers || !json_array_get_length(tiers))
		g_string_append(detail, "; the guest reports no memory tiers");
	return result_check(r, name, pass, "%s", detail->str);
}

bool guest_view_numa(struct run_result *r, const struct cb_host *h, JsonObject *en)
{
	JsonObject *acpi = json_get_object(en, "acpi");
	g_autoptr(GBytes) srat = hex_bytes(json_get_string(acpi, "srat"));
	g_autoptr(GBytes) hmat = hex_bytes(json_get_string(acpi, "hmat"));
	g_autoptr(GError) err = NULL;
	struct acpi_numa_view v;
	const struct cb_region *reg;
	bool all = true;

	if (!acpi_numa_parse(srat, hmat, &v, &err)) {
		g_autofree char *name = g_strdup_printf("numa:%s", h->id);

		all = result_check(r, name, false, "the guest's firmware tables: %s",
				   err->message);
	} else {
		cb_foreach(h->regions, const struct cb_region, reg)
			all &= check_region_numa(r, h, reg, en, &v);
	}
	acpi_numa_view_clear(&v);
	return check_tiers(r, h, en) && all;
}
