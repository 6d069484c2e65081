/* SPDX-License-Identifier: MIT */
/*
 * The proximity domains a host's guest is given, and the HMAT figures of
 * each (docs/topology.md, "What the guest sees"). cxlbed writes the SRAT
 * and HMAT itself (acpi_numa.h) rather than letting QEMU derive them from
 * -numa options, because Linux 6.12 takes a CXL node's memory tier from
 * the HMAT entry of the proximity domain its window's address range
 * belongs to, and QEMU can give a window no proximity domain of its own.
 *
 *   PXM 0          the vCPUs and local DRAM
 *   PXM 1..        one per region, in window order then file order: the
 *                  slice of its window from its base up to the next
 *                  region's (the first from the window's base, the last
 *                  to the window's end); HMAT: the region's whole path
 *                  (its slowest device's latency, its configured
 *                  bandwidth, QoS caps and uneven interleaves included).
 *                  A window without regions is one domain, no figures.
 *   then           one ACPI Generic Port per host bridge: the CPU -> host
 *                  bridge figures the kernel adds CDAT to for a region's
 *                  access coordinates.
 *
 * The kernel numbers nodes in SRAT order, so a region's node is its PXM.
 */
#ifndef CXLBED_QEMU_NUMA_LAYOUT_H
#define CXLBED_QEMU_NUMA_LAYOUT_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "qemu/memmap.h"
#include "topology/path.h"

enum numa_pd_kind {
	NUMA_PD_DRAM,		/* PXM 0 */
	NUMA_PD_REGION,		/* a region's slice of its window */
	NUMA_PD_WINDOW,		/* a window no region lives in */
	NUMA_PD_PORT,		/* a host bridge's generic port */
};

struct numa_pd {
	enum numa_pd_kind kind;
	uint32_t pxm;
	const struct cb_region *region;	/* REGION */
	const struct cb_window *window;	/* REGION, WINDOW */
	const struct cb_bridge *bridge;	/* PORT */
	uint32_t uid;			/* PORT: the bridge's ACPI _UID (bus) */
	struct qemu_range range;	/* REGION, WINDOW */
	bool has_figures;
	double latency_ns[2];		/* CPU -> domain, per enum cb_dir */
	double gbps[2];
};

struct numa_layout {
	const struct cb_host *host;
	int ndram;
	struct qemu_range dram[3];
	GArray *pds;			/* struct numa_pd, PXM order */
};

/*
 * @h's layout; @bridge_uid(b, data) gives a bridge's ACPI _UID (QEMU:
 * its PCI bus number); NULL leaves every uid 0.
 */
struct numa_layout *numa_layout_new(const struct cb_host *h,
				    int (*bridge_uid)(const struct cb_bridge *b,
						      void *data),
				    void *data);
void numa_layout_free(struct numa_layout *l);
typedef struct numa_layout numa_layout;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(numa_layout, numa_layout_free)

/* The domain of region @r, or NULL. */
const struct numa_pd *numa_layout_region(const struct numa_layout *l,
					 const struct cb_region *r);

#endif
