/* SPDX-License-Identifier: MIT */
#include "run_input.h"
#include "guest_layer.h"
#include "pci_numbers.h"
#include "timing_limits.h"

bool run_input_load(const char *path, struct scenario **scn,
		    struct cb_topology **topo, GError **error)
{
	*topo = NULL;
	*scn = scenario_load(path, error);
	if (*scn)
		*topo = topology_load((*scn)->topology_path, error);
	if (*scn && *topo && (!qemu_check_topology(*topo, error) ||
			      !scenario_check_events(*scn, *topo, error) ||
			      !scenario_check_faults(*scn, *topo, (*scn)->timing, error) ||
			      /* packages APT does not know: refused before anything is fetched */
			      !guest_layer_check_packages((*scn)->packages,
							  &(*scn)->packages_src, error)))
		g_clear_pointer(topo, topology_free);
	if (!*topo)
		g_clear_pointer(scn, scenario_free);
	return *scn != NULL;
}

bool run_input_check_timing(const struct scenario *scn,
			    const struct cb_topology *topo, bool timing,
			    GError **error)
{
	if (!timing && scn->faults && !scenario_check_faults(scn, topo, false, error))
		return false;
	return !timing || timing_check_limits(topo, error);
}
