/* SPDX-License-Identifier: MIT */
#include "qemu/cdat.h"
#include "common/error.h"
#include "qemu/fw_table.h"

#include <math.h>
#include <string.h>

static void sub_header(GByteArray *b, uint8_t type, uint16_t len)
{
	le_put8(b, type);
	le_put8(b, 0);
	le_put16(b, len);
}

unsigned int cdat_latency_ns(double ns)
{
	return ns < 1 ? 1 : (unsigned int)lround(ns);
}

unsigned int cdat_bandwidth_mbs(double gbps)
{
	double mbs = gbps * 1000.0;

	return mbs < 1 ? 1 : (unsigned int)lround(mbs);
}

/*
 * value = entry x base. Entries are 16 bits and 0xffff means "unknown", so
 * grow the base unit by tens until the entry fits.
 */
static void dslbis(GByteArray *b, uint8_t type, uint64_t value, uint64_t base)
{
	while (value / base > 0xfffe)
		base *= 10;
	sub_header(b, CDAT_TYPE_DSLBIS, CDAT_DSLBIS_LEN);
	le_put8(b, 0);		/* DSMAS handle */
	le_put8(b, 0);		/* flags: memory (not a memory-side cache) */
	le_put8(b, type);
	le_put8(b, 0);
	le_put64(b, base);
	le_put16(b, (uint16_t)((value + base / 2) / base));
	le_put16(b, 0);
	le_put16(b, 0);
	le_put16(b, 0);
}

/* One SSLBIS with a single entry: upstream port <-> every downstream port. */
static void sslbis(GByteArray *b, uint8_t type, uint64_t value, uint64_t base)
{
	while (value / base > 0xfffe)
		base *= 10;
	sub_header(b, CDAT_TYPE_SSLBIS, CDAT_SSLBIS_HEADER_LEN + CDAT_SSLBE_LEN);
	le_put8(b, type);
	le_put8(b, 0);
	le_put8(b, 0);
	le_put8(b, 0);
	le_put64(b, base);
	le_put16(b, CDAT_SSLBIS_US_PORT);
	le_put16(b, CDAT_SSLBIS_ANY_PORT);
	le_put16(b, (uint16_t)((value + base / 2) / base));
	le_put16(b, 0);
}

static GByteArray *table_start(void)
{
	GByteArray *b = g_byte_array_new();

	/* Header; length and checksum patched by table_finish(). */
	le_put32(b, 0);
	le_put8(b, CDAT_REVISION);
	le_put8(b, 0);
	for (int i = 0; i < 6; i++)
		le_put8(b, 0);
	le_put32(b, 0);		/* sequence */
	return b;
}

static GBytes *table_finish(GByteArray *b)
{
	le_set32(b->data, b->len);
	b->data[5] = le_checksum(b);
	return g_byte_array_free_to_bytes(b);
}

GBytes *cdat_build_switch(const struct cb_switch *sw)
{
	GByteArray *b = table_start();
	uint64_t lat = cdat_latency_ns(sw->latency_ns) * 1000ull;
	uint64_t bw = cdat_bandwidth_mbs(sw->link.gbps);

	sslbis(b, CDAT_READ_LATENCY, lat, 1000);
	sslbis(b, CDAT_WRITE_LATENCY, lat, 1000);
	sslbis(b, CDAT_READ_BANDWIDTH, bw, 1);
	sslbis(b, CDAT_WRITE_BANDWIDTH, bw, 1);
	return table_finish(b);
}

GBytes *cdat_build(const struct cb_device *d)
{
	return cdat_build_skewed(d, 0);
}

GBytes *cdat_build_skewed(const struct cb_device *d, double skew_ns)
{
	GByteArray *b = table_start();

	sub_header(b, CDAT_TYPE_DSMAS, CDAT_DSMAS_LEN);
	le_put8(b, 0);		/* handle */
	le_put8(b, d->persistent ? CDAT_DSMAS_FLAG_NV : 0);
	le_put16(b, 0);
	le_put64(b, 0);		/* DPA base */
	le_put64(b, d->size);

	/* Latencies in picoseconds (base unit 1000 ps = 1 ns steps). */
	dslbis(b, CDAT_READ_LATENCY,
	       cdat_latency_ns(d->perf.read_latency_ns + skew_ns) * 1000ull, 1000);
	dslbis(b, CDAT_WRITE_LATENCY,
	       cdat_latency_ns(d->perf.write_latency_ns + skew_ns) * 1000ull, 1000);
	/* Bandwidth in MB/s. */
	dslbis(b, CDAT_READ_BANDWIDTH, cdat_bandwidth_mbs(d->perf.read_gbps), 1);
	dslbis(b, CDAT_WRITE_BANDWIDTH, cdat_bandwidth_mbs(d->perf.write_gbps),
	       1);

	sub_header(b, CDAT_TYPE_DSEMTS, CDAT_DSEMTS_LEN);
	le_put8(b, 0);		/* handle */
	/* EFI type: conventional + EFI_MEMORY_SP (1), or reserved (2). */
	le_put8(b, d->persistent ? 2 : 1);
	le_put16(b, 0);
	le_put64(b, 0);		/* DPA offset */
	le_put64(b, d->size);

	return table_finish(b);
}

bool cdat_write_switch(const struct cb_switch *sw, const char *path,
		       GError **error)
{
	g_autoptr(GBytes) bytes = cdat_build_switch(sw);

	return fw_table_write(bytes, "the CDAT of a switch", path, error);
}

bool cdat_write(const struct cb_device *d, const char *path, double skew_ns,
		GError **error)
{
	g_autoptr(GBytes) bytes = cdat_build_skewed(d, skew_ns);

	return fw_table_write(bytes, "the CDAT of a device", path, error);
}
