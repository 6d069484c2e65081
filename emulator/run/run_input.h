/* SPDX-License-Identifier: MIT */
/*
 * What `cxlbed run` checks of its input before anything starts, in one
 * place: run, boot, table, `cxlbed plan` of a scenario and each point of
 * a sweep check the same, so that what one accepts the others run, and
 * what one refuses the others refuse at the same FILE:LINE. A false
 * return is an input error (exit 2), @error's message starting FILE:LINE.
 */
#ifndef CXLBED_RUN_INPUT_H
#define CXLBED_RUN_INPUT_H

#include "run/scenario.h"
#include "topology/topology.h"

/*
 * Load @path (a scenario, or a bare topology with the default workloads)
 * and its topology, and check what does not depend on the options:
 * run_input_check_common, and the faults with the scenario's own
 * `timing`. The model's limits wait for run_input_check_timing, once the
 * options say whether the model runs. On failure *scn and *topo are NULL.
 */
bool run_input_load(const char *path, struct scenario **scn,
		    struct cb_topology **topo, GError **error);
/*
 * All of it, in run's order, for a run with the timing model (@timing:
 * the scenario's `timing =` unless --timing or --no-timing said otherwise)
 * or without: run_input_check_common, then run_input_check_timing.
 */
bool run_input_check(const struct scenario *s, const struct cb_topology *t,
		     bool timing, GError **error);
/* The topology as QEMU will number it, the scenario's events against it,
 * the Debian packages it names. */
bool run_input_check_common(const struct scenario *s, const struct cb_topology *t,
			    GError **error);
/* What depends on the model: the fault schedule against the topology
 * (targets, hosts, offsets and sizes; fault_schedule.h) and, with it, the
 * model's limits. */
bool run_input_check_timing(const struct scenario *s, const struct cb_topology *t,
			    bool timing, GError **error);

#endif
