/* SPDX-License-Identifier: MIT */
/*
 * Compare what a guest enumerated (the agent's `enumerate` result) with
 * what the topology says it should see, and turn the guest's NUMA nodes
 * into result rows with their fabric path.
 */
#ifndef CXLBED_VERIFY_H
#define CXLBED_VERIFY_H

#include "results/result.h"
#include "topology/topology.h"

/* Adds checks "enumeration:HOST:*" to r; returns true when all pass. */
bool verify_enumeration(struct run_result *r, const struct cb_host *h,
			JsonObject *enumeration);

/* Fill rh->nodes (every node with memory) and rh->memdevs. */
void verify_fill_nodes(struct res_host *rh, const struct cb_host *h,
		       JsonObject *enumeration);

#endif
