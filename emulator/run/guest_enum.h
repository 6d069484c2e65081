/* SPDX-License-Identifier: MIT */
/* What a guest enumerated (the agent's `enumerate` result), looked up. */
#ifndef CXLBED_GUEST_ENUM_H
#define CXLBED_GUEST_ENUM_H

#include "topology/topology.h"

#include <json-glib/json-glib.h>

/* The guest's region that is this topology region (its targets are the
 * region's devices, in order); NULL when the guest has none. */
JsonObject *guest_enum_region(JsonObject *enumeration, const struct cb_region *reg);

#endif
