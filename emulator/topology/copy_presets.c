// SPDX-License-Identifier: MIT
/*
 * Named copy engines a host may have ([host] nics, dma-engine): an RDMA
 * NIC's achievable bandwidth and per-transfer latency, and a DMA engine's.
 * Round figures in the range the sources in docs/kv-share.md report; a
 * topology that knows its parts sets its own with the -gbps and
 * -latency-ns keys.
 */
#include "topology/topology.h"

#include <string.h>

static const struct cb_copy_preset copy_presets[] = {
	{ "rdma-100g", 11.5, 3000, 16,
	  "100 Gb/s RoCE/InfiniBand: 12.5 GB/s line rate less headers" },
	{ "rdma-200g", 23.0, 2500, 16,
	  "200 Gb/s RoCE/InfiniBand HDR: 25 GB/s line rate less headers" },
	{ "dma", 30.0, 1500, 32,
	  "an on-chip DMA engine (a data streaming accelerator)" },
};

const struct cb_copy_preset *topology_copy_preset_find(const char *name)
{
	for (guint i = 0; i < G_N_ELEMENTS(copy_presets); i++)
		if (!strcmp(copy_presets[i].name, name))
			return &copy_presets[i];
	return NULL;
}
