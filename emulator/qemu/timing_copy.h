/* SPDX-License-Identifier: MIT */
/*
 * Copy engines and shared regions in a host's timing config
 * (docs/kv-share.md; the plugin's side: emulator/timing/model_copy.h,
 * model_stale.h).
 */
#ifndef CXLBED_TIMING_COPY_H
#define CXLBED_TIMING_COPY_H

#include <glib.h>
#include <stdint.h>

#include "topology/topology.h"

/* `copyres` and `engine` lines for @h's NICs and DMA engine. */
void timing_copy_lines(GString *s, const struct cb_topology *t,
		       const struct cb_host *h);

/* Where region @r starts in the run's shared space (a shared pool's
 * device); UINT64_MAX: not shared. */
uint64_t timing_share_offset(const struct cb_topology *t,
			     const struct cb_region *r);

#endif
