/* SPDX-License-Identifier: MIT */
/*
 * PCI numbering of one host's QEMU machine: the bus range each pxb-cxl
 * host bridge takes and the slot of every root and downstream port (QEMU
 * wants chassis/slot pairs unique per machine). Numbers are QEMU's
 * business, not the topology's: they are derived here, when a command
 * line is built, in topology order.
 */
#ifndef CXLBED_QEMU_PCI_NUMBERS_H
#define CXLBED_QEMU_PCI_NUMBERS_H

#include "topology/topology.h"

#include <glib.h>
#include <stdbool.h>

/* pxb-cxl buses start above pcie.0's own; each bridge gets spare buses. */
#define QEMU_FIRST_BUS 16
#define QEMU_BUS_SLACK 8

struct qemu_pci_numbers {
	GHashTable *bus;	/* struct cb_bridge * -> bus_nr */
	GHashTable *slot;	/* struct cb_port * -> slot (chassis 0) */
};

/* Number @h's bridges and ports; fails with FILE:LINE past 256 buses. */
bool qemu_pci_numbers_init(struct qemu_pci_numbers *n, const struct cb_host *h,
			   GError **error);
void qemu_pci_numbers_clear(struct qemu_pci_numbers *n);
int qemu_pci_bus(const struct qemu_pci_numbers *n, const struct cb_bridge *b);
int qemu_pci_slot(const struct qemu_pci_numbers *n, const struct cb_port *p);

/*
 * Can QEMU number every host of @t and map its memory (address_map.h), and
 * are the guest tables' test skews (table_skew.h) well formed? What plan
 * and run check before starting anything.
 */
bool qemu_check_topology(const struct cb_topology *t, GError **error);

#endif
