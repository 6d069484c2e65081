/* SPDX-License-Identifier: MIT */
/*
 * CRC-32C (Castagnoli, reflected polynomial 0x82f63b78): the checksum of
 * every chunk the protection layer stores. The SSE4.2 crc32 instruction
 * computes it 8 bytes at a time where the CPU has it; else a
 * slicing-by-8 table does.
 */
#ifndef CXLBED_CRC32C_H
#define CXLBED_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Continue @crc (0 to start) over @len bytes. */
uint32_t crc32c(uint32_t crc, const void *buf, size_t len);
/* The table code alone (tests check the instruction against it). */
uint32_t crc32c_table(uint32_t crc, const void *buf, size_t len);

#endif
