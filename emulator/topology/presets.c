/* SPDX-License-Identifier: MIT */
/*
 * Named media figures (read/write latency ns, read/write GB/s) from
 * published measurements; docs/timing-model.md cites the sources. The path
 * (bridge, links, switches) adds to the latency; figures assume a
 * direct-attached device (~15 ns of hops) unless said.
 */
#include "topology/topology.h"

#include <string.h>

static const struct cb_preset presets[] = {
	{ "ddr5-local", { 100, 100, 100, 70 },
	  "local DDR5, 80-115 ns idle" },
	{ "cxl-asic", { 205, 215, 24, 12 },
	  "CXL ASIC expander x8: ~2.2x local; 36 GB/s at 2:1 read:write" },
	{ "cxl-fpga", { 275, 285, 16, 8 },
	  "CXL FPGA expander: ~2.9x local" },
	{ "pond-182", { 167, 177, 24, 12 },
	  "Pond small pool, direct-attached: 182% of local" },
	{ "pond-222", { 157, 167, 24, 12 },
	  "Pond larger pool behind one switch (50 ns): 222% of local" },
};

const struct cb_preset *topology_presets(int *n)
{
	*n = G_N_ELEMENTS(presets);
	return presets;
}

const struct cb_preset *topology_preset_find(const char *name)
{
	for (guint i = 0; i < G_N_ELEMENTS(presets); i++)
		if (!strcmp(presets[i].name, name))
			return &presets[i];
	return NULL;
}
