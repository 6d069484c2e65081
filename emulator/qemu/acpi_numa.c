// SPDX-License-Identifier: MIT
#include "qemu/acpi_numa.h"
#include "common/error.h"
#include "qemu/fw_table.h"

#include <math.h>
#include <string.h>

unsigned int hmat_latency_ns(double ns)
{
	return ns < 1 ? 1 : (unsigned int)lround(ns);
}

unsigned int hmat_bandwidth_mbs(double gbps)
{
	long steps = lround(gbps * 1000.0 / HMAT_BANDWIDTH_BASE_MBS);

	return (unsigned int)(steps < 1 ? 1 : steps) * HMAT_BANDWIDTH_BASE_MBS;
}

/* The standard header; length and checksum patched by finish(). */
static GByteArray *start(const char *sig, uint8_t revision)
{
	GByteArray *b = g_byte_array_new();

	g_byte_array_append(b, (const guint8 *)sig, 4);
	le_put32(b, 0);			/* length */
	le_put8(b, revision);
	le_put8(b, 0);			/* checksum */
	g_byte_array_append(b, (const guint8 *)"CXLBED", 6);
	g_byte_array_append(b, (const guint8 *)"CXLBNUMA", 8);
	le_put32(b, 1);			/* OEM revision */
	g_byte_array_append(b, (const guint8 *)"CXLB", 4);
	le_put32(b, 1);			/* creator revision */
	return b;
}

static GBytes *finish(GByteArray *b)
{
	le_set32(b->data + 4, b->len);
	b->data[9] = le_checksum(b);
	return g_byte_array_free_to_bytes(b);
}

static void srat_cpu(GByteArray *b, uint32_t apic_id)
{
	if (apic_id < 255) {
		le_put8(b, SRAT_TYPE_APIC);
		le_put8(b, 16);
		le_put8(b, 0);		/* proximity domain [7:0] */
		le_put8(b, apic_id);
		le_put32(b, 1);		/* enabled */
		le_put8(b, 0);		/* local SAPIC EID */
		le_put8(b, 0);		/* proximity domain [31:8] */
		le_put16(b, 0);
		le_put32(b, 0);		/* clock domain */
	} else {
		le_put8(b, SRAT_TYPE_X2APIC);
		le_put8(b, 24);
		le_put16(b, 0);
		le_put32(b, 0);		/* proximity domain */
		le_put32(b, apic_id);
		le_put32(b, 1);		/* enabled */
		le_put32(b, 0);		/* clock domain */
		le_put32(b, 0);
	}
}

static void srat_memory(GByteArray *b, uint32_t pxm, struct qemu_range r,
			uint32_t flags)
{
	le_put8(b, SRAT_TYPE_MEMORY);
	le_put8(b, 40);
	le_put32(b, pxm);
	le_put16(b, 0);
	le_put64(b, r.base);
	le_put64(b, r.size);
	le_put32(b, 0);
	le_put32(b, flags);
	le_put64(b, 0);
}

static void srat_generic_port(GByteArray *b, uint32_t pxm, uint32_t uid)
{
	le_put8(b, SRAT_TYPE_GENERIC_PORT);
	le_put8(b, 32);
	le_put8(b, 0);
	le_put8(b, 0);			/* device handle type: ACPI */
	le_put32(b, pxm);
	g_byte_array_append(b, (const guint8 *)"ACPI0016", 8);	/* CXL host bridge */
	le_put32(b, uid);
	le_put32(b, 0);
	le_put32(b, 1);			/* enabled */
	le_put32(b, 0);
}

/*
 * vCPU APIC IDs: QEMU numbers -smp N as one socket of N cores, one thread
 * each, so the IDs are 0 .. N-1.
 */
GBytes *acpi_srat_build(const struct numa_layout *l)
{
	GByteArray *b = start("SRAT", 3);

	le_put32(b, 1);			/* reserved (legacy "table revision") */
	le_put64(b, 0);
	for (int cpu = 0; cpu < l->host->cpus; cpu++)
		srat_cpu(b, (uint32_t)cpu);
	for (int i = 0; i < l->ndram; i++)
		srat_memory(b, 0, l->dram[i], SRAT_MEM_ENABLED);
	for (guint i = 0; i < l->pds->len; i++) {
		const struct numa_pd *pd = &g_array_index(l->pds, struct numa_pd, i);

		if (pd->kind == NUMA_PD_REGION || pd->kind == NUMA_PD_WINDOW)
			srat_memory(b, pd->pxm, pd->range,
				    SRAT_MEM_ENABLED | SRAT_MEM_HOTPLUGGABLE);
		else if (pd->kind == NUMA_PD_PORT)
			srat_generic_port(b, pd->pxm, pd->uid);
	}
	return finish(b);
}

static double skewed_latency(const struct numa_pd *pd, int dir,
			     const struct table_skew *skew)
{
	double ns = pd->latency_ns[dir];

	if (skew && pd->kind == NUMA_PD_PORT)
		ns += skew->port_ns;
	if (skew && pd->kind == NUMA_PD_REGION)
		ns += skew->node_ns;
	return ns;
}

static void hmat_sllbi(GByteArray *b, const GArray *targets, uint8_t type,
		       const struct table_skew *skew)
{
	bool latency = type == HMAT_READ_LATENCY || type == HMAT_WRITE_LATENCY;
	int dir = type == HMAT_READ_LATENCY || type == HMAT_READ_BANDWIDTH ?
		CB_READ : CB_WRITE;

	le_put16(b, HMAT_TYPE_SLLBI);
	le_put16(b, 0);
	le_put32(b, 32 + 4 + 4 * targets->len + 2 * targets->len);
	le_put8(b, 0);			/* flags: memory hierarchy */
	le_put8(b, type);
	le_put8(b, 0);			/* minimum transfer size */
	le_put8(b, 0);
	le_put32(b, 1);			/* initiators */
	le_put32(b, targets->len);
	le_put32(b, 0);
	le_put64(b, latency ? HMAT_LATENCY_BASE_PS : HMAT_BANDWIDTH_BASE_MBS);
	le_put32(b, 0);			/* the initiator: PXM 0 */
	for (guint i = 0; i < targets->len; i++)
		le_put32(b, g_array_index(targets, const struct numa_pd *, i)->pxm);
	for (guint i = 0; i < targets->len; i++) {
		const struct numa_pd *pd = g_array_index(targets, const struct numa_pd *, i);
		unsigned int v = latency ?
			hmat_latency_ns(skewed_latency(pd, dir, skew)) :
			hmat_bandwidth_mbs(pd->gbps[dir]) / HMAT_BANDWIDTH_BASE_MBS;

		le_put16(b, (uint16_t)MIN(v, 0xfffeu));
	}
}

GBytes *acpi_hmat_build(const struct numa_layout *l,
			const struct table_skew *skew)
{
	static const uint8_t types[] = { HMAT_READ_LATENCY, HMAT_WRITE_LATENCY,
					 HMAT_READ_BANDWIDTH, HMAT_WRITE_BANDWIDTH };
	GByteArray *b = start("HMAT", 2);
	g_autoptr(GArray) targets = g_array_new(FALSE, FALSE,
						sizeof(const struct numa_pd *));

	le_put32(b, 0);
	for (guint i = 0; i < l->pds->len; i++) {
		const struct numa_pd *pd = &g_array_index(l->pds, struct numa_pd, i);

		if (!pd->has_figures)
			continue;
		g_array_append_val(targets, pd);
		/*
		 * Memory domains only: Linux 6.12 refuses the whole HMAT when
		 * one names a domain SRAT gives no memory target.
		 */
		if (pd->kind == NUMA_PD_PORT)
			continue;
		le_put16(b, HMAT_TYPE_MPDA);
		le_put16(b, 0);
		le_put32(b, 40);
		le_put16(b, HMAT_MPDA_INITIATOR_VALID);
		le_put16(b, 0);
		le_put32(b, 0);		/* attached initiator: PXM 0 */
		le_put32(b, pd->pxm);
		le_put32(b, 0);
		le_put64(b, 0);
		le_put64(b, 0);
	}
	for (guint i = 0; i < G_N_ELEMENTS(types); i++)
		hmat_sllbi(b, targets, types[i], skew);
	return finish(b);
}

/* Reading tables back. */

static bool bad(GError **error, const char *what)
{
	g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN, "%s", what);
	return false;
}

static const uint8_t *table(GBytes *t, const char *sig, gsize *len,
			    GError **error)
{
	const uint8_t *p = t ? g_bytes_get_data(t, len) : NULL;
	uint8_t sum = 0;

	if (!p || *len < ACPI_HEADER_LEN || memcmp(p, sig, 4) ||
	    le_get(p + 4, 4) != *len) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN,
			    "no well-formed %s table", sig);
		return NULL;
	}
	for (gsize i = 0; i < *len; i++)
		sum += p[i];
	if (sum) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN,
			    "%s checksum is wrong", sig);
		return NULL;
	}
	return p;
}

static bool parse_srat(GBytes *t, struct acpi_numa_view *v, GError **error)
{
	gsize len, off = ACPI_HEADER_LEN + 12;
	const uint8_t *p = table(t, "SRAT", &len, error);

	if (!p)
		return false;
	while (off + 2 <= len) {
		const uint8_t *s = p + off;
		uint8_t type = s[0], slen = s[1];

		if (slen < 2 || off + slen > len)
			return bad(error, "SRAT: a structure overruns the table");
		if ((type == SRAT_TYPE_APIC && slen == 16 && (le_get(s + 4, 4) & 1)) ||
		    (type == SRAT_TYPE_X2APIC && slen == 24 && (le_get(s + 12, 4) & 1)))
			v->cpus++;
		if (type == SRAT_TYPE_MEMORY && slen == 40) {
			struct acpi_mem_affinity m = {
				.pxm = (uint32_t)le_get(s + 2, 4),
				.base = le_get(s + 8, 8),
				.size = le_get(s + 16, 8),
				.flags = (uint32_t)le_get(s + 28, 4),
			};

			if (m.flags & SRAT_MEM_ENABLED)
				g_array_append_val(v->mem, m);
		}
		if (type == SRAT_TYPE_GENERIC_PORT && slen == 32 && s[3] == 0) {
			struct acpi_generic_port g = {
				.pxm = (uint32_t)le_get(s + 4, 4),
				.uid = (uint32_t)le_get(s + 16, 4),
			};

			memcpy(g.hid, s + 8, 8);
			g_array_append_val(v->ports, g);
		}
		off += slen;
	}
	return true;
}

static struct acpi_hmat_figures *figures_for(struct acpi_numa_view *v,
					     uint32_t pxm)
{
	struct acpi_hmat_figures f = { .pxm = pxm };
	const struct acpi_hmat_figures *have = acpi_numa_view_figures(v, pxm);

	if (have)
		return (struct acpi_hmat_figures *)have;
	g_array_append_val(v->figures, f);
	return &g_array_index(v->figures, struct acpi_hmat_figures,
			      v->figures->len - 1);
}

/* One SLLBI: record initiator PXM 0's entries, normalised as Linux does. */
static bool parse_sllbi(const uint8_t *s, gsize slen, struct acpi_numa_view *v,
			GError **error)
{
	uint8_t type = s[9];
	uint32_t ni = (uint32_t)le_get(s + 12, 4), nt = (uint32_t)le_get(s + 16, 4);
	uint64_t base = le_get(s + 24, 8);
	const uint8_t *inits = s + 32, *targs = inits + 4 * ni,
		      *entries = targs + 4 * nt;
	int dir = type == HMAT_READ_LATENCY || type == HMAT_READ_BANDWIDTH ?
		CB_READ : CB_WRITE;
	bool latency = type == HMAT_READ_LATENCY || type == HMAT_WRITE_LATENCY;

	if (32 + 4 * (gsize)ni + 4 * (gsize)nt + 2 * (gsize)ni * nt > slen)
		return bad(error, "HMAT: a locality structure overruns itself");
	if ((s[8] & 0xf) != 0 || (!latency && type != HMAT_READ_BANDWIDTH &&
				  type != HMAT_WRITE_BANDWIDTH))
		return true;	/* memory-side caches, access (r+w) types */
	for (uint32_t i = 0; i < ni; i++) {
		if (le_get(inits + 4 * i, 4) != 0)
			continue;
		for (uint32_t t = 0; t < nt; t++) {
			struct acpi_hmat_figures *f =
				figures_for(v, (uint32_t)le_get(targs + 4 * t, 4));
			uint64_t e = le_get(entries + 2 * ((gsize)i * nt + t), 2);
			uint64_t value = e == 0xffff ? 0 : e * base;

			if (latency)
				f->latency_ns[dir] = (unsigned int)((value + 999) / 1000);
			else
				f->mbs[dir] = (unsigned int)value;
		}
	}
	return true;
}

static bool parse_hmat(GBytes *t, struct acpi_numa_view *v, GError **error)
{
	gsize len, off = ACPI_HEADER_LEN + 4;
	const uint8_t *p = table(t, "HMAT", &len, error);

	if (!p)
		return false;
	if (p[8] != 2)
		return bad(error, "HMAT: revision is not 2 (latencies in ps)");
	while (off + 8 <= len) {
		const uint8_t *s = p + off;
		uint32_t slen = (uint32_t)le_get(s + 4, 4);

		if (slen < 8 || off + slen > len)
			return bad(error, "HMAT: a structure overruns the table");
		if (le_get(s, 2) == HMAT_TYPE_SLLBI && slen >= 32 &&
		    !parse_sllbi(s, slen, v, error))
			return false;
		off += slen;
	}
	return true;
}

bool acpi_numa_parse(GBytes *srat, GBytes *hmat, struct acpi_numa_view *v,
		     GError **error)
{
	*v = (struct acpi_numa_view){
		.mem = g_array_new(FALSE, TRUE, sizeof(struct acpi_mem_affinity)),
		.ports = g_array_new(FALSE, TRUE, sizeof(struct acpi_generic_port)),
		.figures = g_array_new(FALSE, TRUE, sizeof(struct acpi_hmat_figures)),
	};
	return parse_srat(srat, v, error) && parse_hmat(hmat, v, error);
}

void acpi_numa_view_clear(struct acpi_numa_view *v)
{
	if (v->mem)
		g_array_unref(v->mem);
	if (v->ports)
		g_array_unref(v->ports);
	if (v->figures)
		g_array_unref(v->figures);
	*v = (struct acpi_numa_view){ 0 };
}

int64_t acpi_numa_view_pxm(const struct acpi_numa_view *v, uint64_t base,
			   uint64_t size)
{
	for (guint i = 0; v->mem && i < v->mem->len; i++) {
		const struct acpi_mem_affinity *m =
			&g_array_index(v->mem, struct acpi_mem_affinity, i);

		if (m->base <= base && base + size <= m->base + m->size)
			return m->pxm;
	}
	return -1;
}

const struct acpi_hmat_figures *acpi_numa_view_figures(const struct acpi_numa_view *v,
						       uint32_t pxm)
{
	for (guint i = 0; v->figures && i < v->figures->len; i++)
		if (g_array_index(v->figures, struct acpi_hmat_figures, i).pxm == pxm)
			return &g_array_index(v->figures, struct acpi_hmat_figures, i);
	return NULL;
}
