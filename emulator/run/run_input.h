/* SPDX-License-Identifier: MIT */
/*
 * What `cxlbed run` checks of its input before anything starts, in one
 * place, so that every caller that promises "as `cxlbed run` would take
 * it" (run, boot, table, each point of a sweep) refuses exactly the same
 * inputs with the same FILE:LINE messages.
 */
#ifndef CXLBED_RUN_INPUT_H
#define CXLBED_RUN_INPUT_H

#include "scenario.h"

/*
 * Load @path (a scenario, or a bare topology with the default workloads)
 * and its topology, and check them against each other: QEMU's numbering
 * and address map, events, faults (with the scenario's own `timing`),
 * packages APT must know. On failure *scn and *topo are NULL.
 */
bool run_input_load(const char *path, struct scenario **scn,
		    struct cb_topology **topo, GError **error);
/*
 * The checks that depend on whether the run loads the timing model
 * (@timing: the scenario's `timing` unless --timing or --no-timing says
 * otherwise): the model's limits with it, faults that need it without.
 */
bool run_input_check_timing(const struct scenario *scn,
			    const struct cb_topology *topo, bool timing,
			    GError **error);

#endif
