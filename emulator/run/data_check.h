/* SPDX-License-Identifier: MIT */
/*
 * Does each region hold data? The agent runs cxlbed-verify on the region
 * (its NUMA node, or its dax device) right after it comes online.
 * Enumeration and even bandwidth figures can look fine over memory whose
 * accesses go nowhere: a stock QEMU 10 decodes only one switch level
 * (hw/cxl/cxl-host.c), so memory behind a second level is enumerated,
 * committed and onlined, yet reads back garbage. cxlbed's QEMU carries
 * any depth (qemu_binary.h).
 */
#ifndef CXLBED_DATA_CHECK_H
#define CXLBED_DATA_CHECK_H

#include "qemu/agent.h"
#include "results/result.h"
#include "topology/topology.h"

/* True when QEMU cannot route accesses to every device of the region. */
bool data_check_expect_broken(const struct cb_region *reg);

/* One stderr line per region QEMU cannot carry data for, naming FILE:LINE. */
void data_check_warn(const struct cb_topology *t);

/*
 * Adds "data:HOST:REGION" per region: passes when what the guest reads back
 * matches what is expected (intact, or the known QEMU limit above).
 */
void data_check_regions(struct run_result *r, const struct cb_host *h,
			struct agent *a, JsonObject *enumeration,
			gint64 deadline_us);

#endif
