/* SPDX-License-Identifier: MIT */
/*
 * Systematic Reed-Solomon erasure code k+m over GF(2^8) (gf256.h): k data
 * chunks are kept as they are, m parity chunks are linear combinations of
 * them, and any k of the k+m chunks give the data back, so any m may be
 * lost. Parity row i, column j is 1 / (x_i + y_j) with x_i = k + i and
 * y_j = j (a Cauchy matrix): every square submatrix of a Cauchy matrix is
 * invertible, so every choice of k surviving rows of [I; C] is too.
 */
#ifndef CXLBED_RS_H
#define CXLBED_RS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RS_MAX_K 32
#define RS_MAX_M 8
#define RS_MAX_N (RS_MAX_K + RS_MAX_M)

struct rs_code {
	int k, m;
	uint8_t parity[RS_MAX_M][RS_MAX_K];	/* C: parity i = sum C[i][j] d_j */
};

/* 0, or -1 when k, m are out of range (1..RS_MAX_K, 0..RS_MAX_M). */
int rs_init(struct rs_code *c, int k, int m);

/* parity[0..m) from data[0..k), each @len bytes. */
void rs_encode(const struct rs_code *c, const uint8_t *const *data,
	       uint8_t *const *parity, size_t len);
/* Parity @i alone (parities are independent: threads may take one each). */
void rs_encode_one(const struct rs_code *c, int i, const uint8_t *const *data,
		   uint8_t *parity, size_t len);

/*
 * A data chunk @j changed from @old to @new: bring every parity chunk up
 * to date without reading the other data chunks (parity_i ^= C[i][j] *
 * (old ^ new)). @delta is scratch of @len bytes.
 */
void rs_update(const struct rs_code *c, int j, const uint8_t *old,
	       const uint8_t *new_, uint8_t *const *parity, uint8_t *delta,
	       size_t len);

/*
 * Rebuild the chunks not @present (index 0..k-1 data, k..k+m-1 parity)
 * in place from the present ones. 0, or -1 when fewer than k are present.
 */
int rs_decode(const struct rs_code *c, uint8_t *const *chunks,
	      const bool *present, size_t len);

/*
 * Rebuild data chunk @want alone into @out from the present chunks
 * (a degraded read: one row of the inverse, no other chunk written).
 * 0, or -1 when fewer than k are present.
 */
int rs_rebuild_one(const struct rs_code *c, int want,
		   const uint8_t *const *chunks, const bool *present,
		   uint8_t *out, size_t len);

#endif
