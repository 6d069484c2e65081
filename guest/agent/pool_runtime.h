/* SPDX-License-Identifier: MIT */
/*
 * The agent as a client of the guest's pool runtime, cxlpoold, on
 * /run/cxlpoold.sock (JSON lines; docs/pooling.md). Every call is a no-op
 * that says "runtime: none" when the daemon does not run.
 */
#ifndef CXLBED_AGENT_POOL_RUNTIME_H
#define CXLBED_AGENT_POOL_RUNTIME_H

#include <json-c/json.h>

#define POOL_RUNTIME_SOCK "/run/cxlpoold.sock"

/* give-back {serial}: the runtime moves its data off the LD; its reply
 * goes into @res under "runtime". Waits until @deadline (monotonic s). */
void pool_runtime_give_back(unsigned long long serial, double deadline,
			    json_object *res);
/* took {serial, node|dax, bytes}: new capacity from a bind (@res: attach's). */
void pool_runtime_took(unsigned long long serial, json_object *res);
/* usage {serial}: "used_bytes" of a devdax LD, as the runtime counts it. */
void pool_runtime_usage(unsigned long long serial, json_object *row);

/* demand.c: guest programs ask for or offer capacity by datagram. */
#define DEMAND_SOCK "/run/cxlbed-demand.sock"
int demand_open(void);			/* fd, or -1 */
void demand_forward(int fd);		/* each datagram -> pool-demand event */

#endif
