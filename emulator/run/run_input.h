/* SPDX-License-Identifier: MIT */
/*
 * What `cxlbed run` checks of its input before anything starts, in one
 * place: `cxlbed plan` of a scenario and a sweep's points check the same,
 * so that what one accepts the others run, and what one refuses the
 * others refuse at the same FILE:LINE. A false return is an input error
 * (exit 2), @error's message starting FILE:LINE.
 */
#ifndef CXLBED_RUN_INPUT_H
#define CXLBED_RUN_INPUT_H

#include "scenario.h"
#include "topology.h"

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
