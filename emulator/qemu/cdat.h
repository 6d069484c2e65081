/* SPDX-License-Identifier: MIT */
/*
 * CDAT (Coherent Device Attribute Table) for one Type-3 device, as the file
 * QEMU's cxl-type3 cdat= option serves over DOE. The guest kernel reads it
 * (drivers/cxl/core/cdat.c) for the device's latency and bandwidth, which
 * end up in the memdev's QoS class and the region's access coordinates.
 *
 * Layout (little endian): a 16-byte header (length, revision 1, checksum
 * making all bytes sum to 0, sequence), then 24-byte structures:
 *   DSMAS   the device's DPA range (handle 0; non-volatile flag if pmem)
 *   DSLBIS  x4: read latency, write latency (ps units), read bandwidth,
 *           write bandwidth (MB/s units), each for handle 0
 *   DSEMTS  the EFI memory type of the range
 *
 * A switch's table (cxl-upstream cdat=) holds four SSLBIS structures, one
 * per data type, each with one entry "upstream port <-> any downstream
 * port": the switch's traversal latency and its bandwidth (that of the
 * link above it).
 */
#ifndef CXLBED_QEMU_CDAT_H
#define CXLBED_QEMU_CDAT_H

#include "topology/topology.h"

#include <glib.h>
#include <stdbool.h>

#define CDAT_HEADER_LEN 16
#define CDAT_REVISION 1
#define CDAT_TYPE_DSMAS 0
#define CDAT_TYPE_DSLBIS 1
#define CDAT_TYPE_DSEMTS 4
#define CDAT_TYPE_SSLBIS 5
#define CDAT_SSLBIS_HEADER_LEN 16
#define CDAT_SSLBE_LEN 8
#define CDAT_SSLBIS_US_PORT 0x100
#define CDAT_SSLBIS_ANY_PORT 0xffff
#define CDAT_DSMAS_LEN 24
#define CDAT_DSLBIS_LEN 24
#define CDAT_DSEMTS_LEN 24
#define CDAT_DSMAS_FLAG_NV 0x04
/* DSLBIS data types (the ACPI HMAT ones). */
#define CDAT_READ_LATENCY 1
#define CDAT_WRITE_LATENCY 2
#define CDAT_READ_BANDWIDTH 4
#define CDAT_WRITE_BANDWIDTH 5

GBytes *cdat_build(const struct cb_device *d);
/* With @skew_ns added to both latencies (table_skew.h: tests only). */
GBytes *cdat_build_skewed(const struct cb_device *d, double skew_ns);
bool cdat_write(const struct cb_device *d, const char *path, double skew_ns,
		GError **error);
GBytes *cdat_build_switch(const struct cb_switch *sw);
bool cdat_write_switch(const struct cb_switch *sw, const char *path,
		       GError **error);

/* What the guest kernel will derive: latency in ns, bandwidth in MB/s. */
unsigned int cdat_latency_ns(double ns);
unsigned int cdat_bandwidth_mbs(double gbps);

#endif
