/* SPDX-License-Identifier: MIT */
/*
 * Arithmetic in GF(2^8), the field Reed-Solomon coding works in (rs.h).
 * Bytes are polynomials over GF(2) reduced modulo x^8+x^4+x^3+x^2+1
 * (0x11d), whose root 2 generates the multiplicative group: addition is
 * XOR, multiplication goes through log/exp tables, and a full 256 x 256
 * product table serves the scalar region loops.
 *
 * Region operations (the bulk of encoding and decoding) multiply a whole
 * buffer by one constant. On x86 with SSSE3 they use the split-table
 * method: c*x = LO[x & 15] ^ HI[x >> 4], two 16-entry tables per
 * constant, looked up 16 (AVX2: 32) bytes at a time with PSHUFB; else one
 * 256-byte table row per byte.
 */
#ifndef CXLBED_GF256_H
#define CXLBED_GF256_H

#include <stddef.h>
#include <stdint.h>

/* Build the tables (idempotent, thread safe; every call below needs it). */
void gf_init(void);

uint8_t gf_mul(uint8_t a, uint8_t b);
/* a / b, b != 0 */
uint8_t gf_div(uint8_t a, uint8_t b);
/* 1 / a, a != 0 */
uint8_t gf_inv(uint8_t a);
/* 2^e */
uint8_t gf_exp(unsigned int e);

/* dst[i] = c * src[i] */
void gf_region_mul(uint8_t *dst, const uint8_t *src, uint8_t c, size_t n);
/* dst[i] ^= c * src[i] */
void gf_region_mul_add(uint8_t *dst, const uint8_t *src, uint8_t c, size_t n);

/* Which region code runs: "avx2", "ssse3" or "table". */
const char *gf_region_impl(void);
/* Use "table", "ssse3" or "auto" (tests compare them); -1 if not here. */
int gf_force_impl(const char *name);

#endif
