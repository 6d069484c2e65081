/* SPDX-License-Identifier: MIT */
#include "run/run_input.h"
#include "run/guest_layer.h"
#include "qemu/pci_numbers.h"
#include "qemu/timing_limits.h"

bool run_input_load(const char *path, struct scenario **scn,
		    struct cb_topology **topo, GError **error)
{
	*topo = NULL;
	*scn = scenario_load(path, error);
	if (*scn)
		*topo = topology_load((*scn)->topology_path, error);
	if (*scn && *topo && (!run_input_check_common(*scn, *topo, error) ||
			      !scenario_check_faults(*scn, *topo, (*scn)->timing, error)))
		g_clear_pointer(topo, topology_free);
	if (!*topo)
		g_clear_pointer(scn, scenario_free);
	return *scn != NULL;
}

bool run_input_check(const struct scenario *s, const struct cb_topology *t,
		     bool timing, GError **error)
{
	return run_input_check_common(s, t, error) &&
	       run_input_check_timing(s, t, timing, error);
}

bool run_input_check_common(const struct scenario *s, const struct cb_topology *t,
			    GError **error)
{
	/* packages APT does not know: refused before anything is fetched */
	return qemu_check_topology(t, error) && scenario_check_events(s, t, error) &&
	       guest_layer_check_packages(s->packages, &s->packages_src, error);
}

bool run_input_check_timing(const struct scenario *s, const struct cb_topology *t,
			    bool timing, GError **error)
{
	return scenario_check_faults(s, t, timing, error) &&
	       (!timing || timing_check_limits(t, error));
}
