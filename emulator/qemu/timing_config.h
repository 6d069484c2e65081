/* SPDX-License-Identifier: MIT */
/*
 * The timing plugin's per-host configuration (docs/timing-model.md),
 * written from the topology: the same latency and bandwidth figures that
 * go into each device's CDAT, plus where QEMU and the guest kernel put the
 * CXL windows and regions in guest-physical address space.
 */
#ifndef CXLBED_TIMING_CONFIG_H
#define CXLBED_TIMING_CONFIG_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "topology/topology.h"

struct timing_config_opts {
	const char *report;	/* plugin's JSON report path; NULL: none */
	const char *shm;	/* shared segment of the run; NULL: none */
	double ns_per_insn;	/* 0: the plugin's default */
	uint64_t skew_ns;	/* 0: the plugin's default */
	int prefetch_lines;	/* 0: default; < 0: prefetcher off */
};

bool timing_config_write(const struct cb_topology *t, const struct cb_host *h,
			 const char *path, GError **error);
bool timing_config_write_opts(const struct cb_topology *t,
			      const struct cb_host *h,
			      const struct timing_config_opts *o,
			      const char *path, GError **error);
/* The text itself (for plan output and tests). */
char *timing_config_text(const struct cb_topology *t, const struct cb_host *h,
			 const struct timing_config_opts *o);

/*
 * Lines to append to a host's config for a device bound at run time (a
 * pool LD, emulator/fm/): its resources, its target and a 1-way region at
 * @base, where the guest kernel put it.
 */
char *timing_config_bound_text(const struct cb_device *d, uint64_t base,
			       uint32_t gran);

/*
 * Guest-physical base of window @w as QEMU 10 (q35, -m without maxmem)
 * places it: the CXL host register block (1 MiB) starts where RAM above
 * 4 GiB ends, and windows follow it back to back from the next 256 MiB
 * boundary, in index order.
 */
uint64_t timing_window_base(const struct cb_host *h, const struct cb_window *w);
/*
 * Base of region @r as the guest kernel (6.12) allocates it when regions
 * are created in topology order: the lowest free 256 MiB-aligned address
 * of the window (seen: a 4-way region at the window base, 0x110000000).
 */
uint64_t timing_region_base(const struct cb_host *h, const struct cb_region *r);

#endif
