/* SPDX-License-Identifier: MIT */
/*
 * What the guest kernel was told about the fabric's performance, and what
 * it made of it, against the topology's path model (docs/topology.md,
 * "What the guest sees"). Expectations come from the configured figures,
 * never from the tables cxlbed wrote, so a wrong table fails a check.
 */
#ifndef CXLBED_RUN_GUEST_VIEW_H
#define CXLBED_RUN_GUEST_VIEW_H

#include "results/result.h"
#include "topology/topology.h"

/*
 * "coordinates:HOST:REGION": the region's access0 latencies are the host
 * bridge's HMAT figure, the switches' and the devices' CDAT figures and
 * the kernel's own per-link terms, for the slowest device. How a kernel
 * computes those terms differs (docs/kernels.md, "Link latency"): Linux
 * 6.12 adds them in ps to ns figures, later kernels in ns over the link's
 * width. The check expects the run kernel's rule (every rule when it is
 * not known, saying which one the figure follows) and reports the
 * kernel's terms apart from the figures cxlbed wrote.
 */
#include "run/kernel_features.h"
/* The run kernel's rule (default: Linux 6.12's); the runner sets it. */
void guest_view_set_link_rule(struct kernel_link_rule rule);
/* What the run kernel reports as @d's access latency (@dir 0 read, 1
 * write): our CDAT and HMAT figures plus its own link terms. */
long guest_view_kernel_latency(const struct cb_device *d, int dir);
/* Does @got follow a rule the run kernel may have? */
bool guest_view_latency_fits(const struct cb_device *d, int dir, long got);
bool guest_view_coordinates(struct run_result *r, const struct cb_host *h,
			    const struct cb_region *reg, JsonObject *guest_region);

/*
 * "numa:HOST:REGION": in the guest's SRAT the region's addresses form a
 * proximity domain of their own, whose HMAT figures are the region's path
 * (slowest device's latency, configured bandwidth), and a RAM region was
 * onlined into a node no other region shares. "tiers:HOST": the kernel's
 * memory tiers hold DRAM on top and each CXL node where its HMAT figures
 * put it (Linux 6.12's abstract distance).
 */
bool guest_view_numa(struct run_result *r, const struct cb_host *h,
		     JsonObject *enumeration);

/*
 * Linux 6.12's memory tier for a node with these figures (latency ns,
 * bandwidth MB/s, per enum cb_dir), DRAM's being @dram_*: its abstract
 * distance / 128. DRAM itself is tier 4.
 */
int guest_view_tier(const unsigned int lat[2], const unsigned int mbs[2],
		    const unsigned int dram_lat[2], const unsigned int dram_mbs[2]);

#endif
