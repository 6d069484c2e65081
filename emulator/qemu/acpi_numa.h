/* SPDX-License-Identifier: MIT */
/*
 * SRAT and HMAT for one host, as files QEMU serves with -acpitable (ACPI
 * 6.5; the layout in numa_layout.h). QEMU emits neither itself: cxlbed
 * passes it no -numa option.
 *
 * SRAT (revision 3): a Processor Local APIC (or x2APIC) Affinity per vCPU
 *   in PXM 0; a Memory Affinity per DRAM range (PXM 0) and per region or
 *   window domain (enabled, hot-pluggable: the memory arrives when the
 *   guest creates the region); a Generic Port Affinity per host bridge
 *   (ACPI handle: HID ACPI0016, UID = the bridge's _UID).
 * HMAT (revision 2): a Memory Proximity Domain Attributes structure per
 *   memory domain with figures (attached initiator: PXM 0), then one
 *   System Locality Latency and Bandwidth Information structure per data
 *   type (read/write latency, read/write bandwidth) from initiator PXM 0
 *   to every domain with figures. Latency entries are ns with a base unit
 *   of 1000 ps, bandwidth entries MB/s with a base unit of 10 MB/s.
 *
 * The parser reads such tables back (the guest's /sys/firmware/acpi/tables
 * copies), so a run can check what the guest's firmware says.
 */
#ifndef CXLBED_QEMU_ACPI_NUMA_H
#define CXLBED_QEMU_ACPI_NUMA_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "qemu/numa_layout.h"
#include "qemu/table_skew.h"

#define ACPI_HEADER_LEN 36
#define SRAT_TYPE_APIC 0
#define SRAT_TYPE_MEMORY 1
#define SRAT_TYPE_X2APIC 2
#define SRAT_TYPE_GENERIC_PORT 6
#define SRAT_MEM_ENABLED 0x1
#define SRAT_MEM_HOTPLUGGABLE 0x2
#define HMAT_TYPE_MPDA 0
#define HMAT_TYPE_SLLBI 1
#define HMAT_MPDA_INITIATOR_VALID 0x1
/* SLLBI data types (the CDAT ones too). */
#define HMAT_READ_LATENCY 1
#define HMAT_WRITE_LATENCY 2
#define HMAT_READ_BANDWIDTH 4
#define HMAT_WRITE_BANDWIDTH 5
#define HMAT_LATENCY_BASE_PS 1000
#define HMAT_BANDWIDTH_BASE_MBS 10

/* What the guest kernel reads back: whole ns; MB/s in steps of 10. */
unsigned int hmat_latency_ns(double ns);
unsigned int hmat_bandwidth_mbs(double gbps);

GBytes *acpi_srat_build(const struct numa_layout *l);
/* @skew (NULL: none) adds its port_ns and node_ns latencies. */
GBytes *acpi_hmat_build(const struct numa_layout *l,
			const struct table_skew *skew);

struct acpi_mem_affinity {
	uint32_t pxm;
	uint64_t base, size;
	uint32_t flags;
};

struct acpi_generic_port {
	uint32_t pxm;
	char hid[9];
	uint32_t uid;
};

/* Initiator PXM 0 to one target, as the kernel normalises it (0: none). */
struct acpi_hmat_figures {
	uint32_t pxm;
	unsigned int latency_ns[2];	/* per enum cb_dir */
	unsigned int mbs[2];
};

struct acpi_numa_view {
	int cpus;		/* enabled processor affinities */
	GArray *mem;		/* struct acpi_mem_affinity, table order */
	GArray *ports;		/* struct acpi_generic_port */
	GArray *figures;	/* struct acpi_hmat_figures */
};

/* Parse an SRAT and an HMAT; fails on a bad signature, length or checksum. */
bool acpi_numa_parse(GBytes *srat, GBytes *hmat, struct acpi_numa_view *v,
		     GError **error);
void acpi_numa_view_clear(struct acpi_numa_view *v);
/* The PXM whose one memory affinity holds all of [base, base + size), or -1. */
int64_t acpi_numa_view_pxm(const struct acpi_numa_view *v, uint64_t base,
			   uint64_t size);
/* Initiator PXM 0 -> @pxm, or NULL when HMAT has nothing for it. */
const struct acpi_hmat_figures *acpi_numa_view_figures(const struct acpi_numa_view *v,
						       uint32_t pxm);

#endif
