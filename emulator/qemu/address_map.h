/* SPDX-License-Identifier: MIT */
/*
 * Does a host's guest-physical address map fit the machine QEMU builds?
 * q35 under TCG has 40 physical address bits, and on its AMD-flavoured
 * CPU model everything QEMU maps (RAM above 4 GiB, the CXL host-bridge
 * registers, the CXL windows, then a 32 GiB 64-bit PCI hole) must end
 * below the HyperTransport hole at 1012 GiB; past it QEMU moves RAM above
 * 1 TiB and refuses to start ("phys-bits too low").
 */
#ifndef CXLBED_QEMU_ADDRESS_MAP_H
#define CXLBED_QEMU_ADDRESS_MAP_H

#include "topology/topology.h"

#include <glib.h>
#include <stdbool.h>

/* Where QEMU's 64-bit PCI hole may end at the latest (exclusive). */
#define QEMU_AMD_HT_START (1012ull * CB_GIB)
#define QEMU_PCI_HOLE64 (32ull * CB_GIB)

/* false with FILE:LINE (host memory or the window that crosses) if not. */
bool qemu_check_address_map(const struct cb_host *h, GError **error);

#endif
