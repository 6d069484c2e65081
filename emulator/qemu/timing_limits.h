/* SPDX-License-Identifier: MIT */
/*
 * What the timing model can take (docs/topology.md, "Limits"): its shared
 * segment holds TM_MAX_HOSTS hosts of at most TM_MAX_VCPUS vCPUs and
 * TM_MAX_RES bandwidth resources for the whole run; a target crosses at
 * most MF_MAX_PATH resources, each named in fewer than MF_NAME bytes.
 * Checked whenever a run would load the plugin (plan and run unless
 * --no-timing or timing = off, table), before anything starts.
 */
#ifndef CXLBED_QEMU_TIMING_LIMITS_H
#define CXLBED_QEMU_TIMING_LIMITS_H

#include "topology/topology.h"

#include <glib.h>
#include <stdbool.h>

/* false with FILE:LINE of the first host or device past a limit. */
bool timing_check_limits(const struct cb_topology *t, GError **error);

#endif
