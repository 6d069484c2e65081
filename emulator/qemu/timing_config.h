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
 * Guest-physical bases of a window and of a region, as the model decodes
 * them: qemu_window_base() and qemu_region_base() (memmap.h), which the
 * SRAT that names each region's proximity domain reads too.
 */
uint64_t timing_window_base(const struct cb_host *h, const struct cb_window *w);
uint64_t timing_region_base(const struct cb_host *h, const struct cb_region *r);

/* RUN/timing-HOST.cfg, the host's plugin config (rewritten by the FM). */
char *timing_config_path(const char *dir, const struct cb_host *h);

#endif
