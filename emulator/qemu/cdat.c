/* SPDX-License-Identifier: MIT */
#include "cdat.h"
#include "error.h"

#include <math.h>
#include <string.h>

/* Append little-endian fields to a byte array. */
static void put8(GByteArray *b, uint8_t v)
{
	g_byte_array_append(b, &v, 1);
}

static void put16(GByteArray *b, uint16_t v)
{
	put8(b, v & 0xff);
	put8(b, v >> 8);
}

static void put32(GByteArray *b, uint32_t v)
{
	put16(b, v & 0xffff);
	put16(b, v >> 16);
}

static void put64(GByteArray *b, uint64_t v)
{
	put32(b, v & 0xffffffff);
	put32(b, v >> 32);
}

static void sub_header(GByteArray *b, uint8_t type, uint16_t len)
{
	put8(b, type);
	put8(b, 0);
	put16(b, len);
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
	put8(b, 0);		/* DSMAS handle */
	put8(b, 0);		/* flags: memory (not a memory-side cache) */
	put8(b, type);
	put8(b, 0);
	put64(b, base);
	put16(b, (uint16_t)((value + base / 2) / base));
	put16(b, 0);
	put16(b, 0);
	put16(b, 0);
}

/* One SSLBIS with a single entry: upstream port <-> every downstream port. */
static void sslbis(GByteArray *b, uint8_t type, uint64_t value, uint64_t base)
{
	while (value / base > 0xfffe)
		base *= 10;
	sub_header(b, CDAT_TYPE_SSLBIS, CDAT_SSLBIS_HEADER_LEN + CDAT_SSLBE_LEN);
	put8(b, type);
	put8(b, 0);
	put8(b, 0);
	put8(b, 0);
	put64(b, base);
	put16(b, CDAT_SSLBIS_US_PORT);
	put16(b, CDAT_SSLBIS_ANY_PORT);
	put16(b, (uint16_t)((value + base / 2) / base));
	put16(b, 0);
}

static GByteArray *table_start(void)
{
	GByteArray *b = g_byte_array_new();

	/* Header; length and checksum patched by table_finish(). */
	put32(b, 0);
	put8(b, CDAT_REVISION);
	put8(b, 0);
	for (int i = 0; i < 6; i++)
		put8(b, 0);
	put32(b, 0);		/* sequence */
	return b;
}

static GBytes *table_finish(GByteArray *b)
{
	uint8_t sum = 0;

	b->data[0] = b->len & 0xff;
	b->data[1] = (b->len >> 8) & 0xff;
	b->data[2] = (b->len >> 16) & 0xff;
	b->data[3] = (b->len >> 24) & 0xff;
	for (guint i = 0; i < b->len; i++)
		sum += b->data[i];
	b->data[5] = (uint8_t)(0x100 - sum);
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
	GByteArray *b = table_start();

	sub_header(b, CDAT_TYPE_DSMAS, CDAT_DSMAS_LEN);
	put8(b, 0);		/* handle */
	put8(b, d->persistent ? CDAT_DSMAS_FLAG_NV : 0);
	put16(b, 0);
	put64(b, 0);		/* DPA base */
	put64(b, d->size);

	/* Latencies in picoseconds (base unit 1000 ps = 1 ns steps). */
	dslbis(b, CDAT_READ_LATENCY,
	       cdat_latency_ns(d->perf.read_latency_ns) * 1000ull, 1000);
	dslbis(b, CDAT_WRITE_LATENCY,
	       cdat_latency_ns(d->perf.write_latency_ns) * 1000ull, 1000);
	/* Bandwidth in MB/s. */
	dslbis(b, CDAT_READ_BANDWIDTH, cdat_bandwidth_mbs(d->perf.read_gbps), 1);
	dslbis(b, CDAT_WRITE_BANDWIDTH, cdat_bandwidth_mbs(d->perf.write_gbps),
	       1);

	sub_header(b, CDAT_TYPE_DSEMTS, CDAT_DSEMTS_LEN);
	put8(b, 0);		/* handle */
	/* EFI type: conventional + EFI_MEMORY_SP (1), or reserved (2). */
	put8(b, d->persistent ? 2 : 1);
	put16(b, 0);
	put64(b, 0);		/* DPA offset */
	put64(b, d->size);

	return table_finish(b);
}

static bool write_bytes(GBytes *bytes, const char *id, const char *path,
			GError **error)
{
	g_autoptr(GError) local = NULL;
	gsize len;
	const void *data = g_bytes_get_data(bytes, &len);

	if (!g_file_set_contents(path, data, len, &local)) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN,
			    "cannot write CDAT for %s: %s", id, local->message);
		return false;
	}
	return true;
}

bool cdat_write_switch(const struct cb_switch *sw, const char *path,
		       GError **error)
{
	g_autoptr(GBytes) bytes = cdat_build_switch(sw);

	return write_bytes(bytes, sw->id, path, error);
}

bool cdat_write(const struct cb_device *d, const char *path, GError **error)
{
	g_autoptr(GBytes) bytes = cdat_build(d);

	return write_bytes(bytes, d->id, path, error);
}
