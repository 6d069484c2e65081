/* SPDX-License-Identifier: MIT */
/*
 * Deliberately wrong guest tables, for the tests that prove the checks
 * catch a wrong table. CXLBED_TEST_TABLE_SKEW="cdat=NS,port=NS,node=NS"
 * adds NS to every device's CDAT latencies, to every host bridge's generic
 * port latency in HMAT, or to every region's proximity-domain latency in
 * HMAT. Unset: the tables say what the topology says.
 */
#ifndef CXLBED_QEMU_TABLE_SKEW_H
#define CXLBED_QEMU_TABLE_SKEW_H

#include <glib.h>
#include <stdbool.h>

#define TABLE_SKEW_ENV "CXLBED_TEST_TABLE_SKEW"

struct table_skew {
	double cdat_ns;		/* device DSLBIS read and write latency */
	double port_ns;		/* HMAT: CPU -> each host bridge's generic port */
	double node_ns;		/* HMAT: CPU -> each region's proximity domain */
};

/* Parse @text (NULL or empty: no skew). */
bool table_skew_parse(const char *text, struct table_skew *s, GError **error);

#endif
