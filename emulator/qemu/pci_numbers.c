/* SPDX-License-Identifier: MIT */
#include "qemu/pci_numbers.h"
#include "qemu/address_map.h"
#include "qemu/table_skew.h"
#include "common/error.h"

/* Buses under a port: each bridge-like port opens one secondary bus. */
static int buses_below(const struct cb_port *p)
{
	int n = 1;

	if (p->child_kind == CB_NODE_SWITCH) {
		const struct cb_switch *sw = p->child.sw;

		n++;	/* the upstream port's secondary bus */
		for (int i = 0; i < sw->nports; i++)
			n += buses_below(sw->ports[i]);
	}
	return n;
}

static void number_slots(struct qemu_pci_numbers *n, const struct cb_port *p,
			 int *slot)
{
	g_hash_table_insert(n->slot, (gpointer)p, GINT_TO_POINTER((*slot)++));
	if (p->child_kind == CB_NODE_SWITCH)
		for (int i = 0; i < p->child.sw->nports; i++)
			number_slots(n, p->child.sw->ports[i], slot);
}

bool qemu_pci_numbers_init(struct qemu_pci_numbers *n, const struct cb_host *h,
			   GError **error)
{
	int bus = QEMU_FIRST_BUS, slot = 1;
	struct cb_bridge *b;

	n->bus = g_hash_table_new(NULL, NULL);
	n->slot = g_hash_table_new(NULL, NULL);
	cb_foreach(h->bridges, struct cb_bridge, b) {
		int need = 1;
		struct cb_port *p;

		cb_foreach(b->rootports, struct cb_port, p) {
			need += buses_below(p);
			number_slots(n, p, &slot);
		}
		g_hash_table_insert(n->bus, b, GINT_TO_POINTER(bus));
		bus += need + QEMU_BUS_SLACK;
		if (bus > 255) {
			cxlbed_input_error(error, b->src.file, b->src.line,
					   "host %s needs more than 256 PCI bus "
					   "numbers; use fewer switch ports or "
					   "bridges", h->id);
			qemu_pci_numbers_clear(n);
			return false;
		}
	}
	return true;
}

void qemu_pci_numbers_clear(struct qemu_pci_numbers *n)
{
	g_clear_pointer(&n->bus, g_hash_table_unref);
	g_clear_pointer(&n->slot, g_hash_table_unref);
}

int qemu_pci_bus(const struct qemu_pci_numbers *n, const struct cb_bridge *b)
{
	return GPOINTER_TO_INT(g_hash_table_lookup(n->bus, b));
}

int qemu_pci_slot(const struct qemu_pci_numbers *n, const struct cb_port *p)
{
	return GPOINTER_TO_INT(g_hash_table_lookup(n->slot, p));
}

bool qemu_check_topology(const struct cb_topology *t, GError **error)
{
	struct table_skew skew;
	struct cb_host *h;

	/* The guest tables' test skew, so a bad one starts nothing. */
	if (!table_skew_parse(g_getenv(TABLE_SKEW_ENV), &skew, error))
		return false;

	cb_foreach(t->hosts, struct cb_host, h) {
		struct qemu_pci_numbers n = { 0 };

		if (!qemu_pci_numbers_init(&n, h, error))
			return false;
		qemu_pci_numbers_clear(&n);
		if (!qemu_check_address_map(h, error))
			return false;
	}
	return true;
}
