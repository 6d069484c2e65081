/* SPDX-License-Identifier: MIT */
/*
 * Firmware tables as bytes (CDAT, SRAT, HMAT): little-endian fields
 * appended and read back, the checksum byte, the file QEMU reads.
 */
#ifndef CXLBED_QEMU_FW_TABLE_H
#define CXLBED_QEMU_FW_TABLE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

static inline void le_put8(GByteArray *b, uint8_t v)
{
	g_byte_array_append(b, &v, 1);
}

static inline void le_put16(GByteArray *b, uint16_t v)
{
	le_put8(b, v & 0xff);
	le_put8(b, v >> 8);
}

static inline void le_put32(GByteArray *b, uint32_t v)
{
	le_put16(b, v & 0xffff);
	le_put16(b, v >> 16);
}

static inline void le_put64(GByteArray *b, uint64_t v)
{
	le_put32(b, v & 0xffffffff);
	le_put32(b, v >> 32);
}

/* Overwrite four bytes in place (a length patched once the table is whole). */
static inline void le_set32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (v >> (8 * i)) & 0xff;
}

static inline uint64_t le_get(const uint8_t *p, int bytes)
{
	uint64_t v = 0;

	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The byte that makes all of @b's bytes sum to 0 (CDAT and ACPI tables). */
static inline uint8_t le_checksum(const GByteArray *b)
{
	uint8_t sum = 0;

	for (guint i = 0; i < b->len; i++)
		sum += b->data[i];
	return (uint8_t)(0x100 - sum);
}

/* Write @bytes to @path; the error names @what. */
bool fw_table_write(GBytes *bytes, const char *what, const char *path,
		    GError **error);

#endif
