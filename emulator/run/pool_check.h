/* SPDX-License-Identifier: MIT */
/*
 * Shared pools: prove that hosts sharing a pool see the same bytes. One
 * host writes a random token through its devdax region, every other
 * host reads it back through its own (agent dax-write / dax-read).
 */
#ifndef CXLBED_POOL_CHECK_H
#define CXLBED_POOL_CHECK_H

#include "qemu/agent.h"
#include "results/result.h"
#include "topology/topology.h"

/* The agent and enumeration of a host, as the runner has them. */
struct pool_host {
	const struct cb_host *h;
	struct agent *agent;
	JsonObject *enumeration;
};

/* Adds a "pool:ID:shared" check per shared pool; hosts not up are failures. */
void pool_check_sharing(struct run_result *r, const struct cb_topology *t,
			const struct pool_host *hosts, guint nhosts,
			gint64 deadline_us);

#endif
