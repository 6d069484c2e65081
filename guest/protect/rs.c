// SPDX-License-Identifier: MIT
#include "rs.h"
#include "gf256.h"

#include <string.h>

int rs_init(struct rs_code *c, int k, int m)
{
	if (k < 1 || k > RS_MAX_K || m < 0 || m > RS_MAX_M)
		return -1;
	gf_init();
	memset(c, 0, sizeof(*c));
	c->k = k;
	c->m = m;
	for (int i = 0; i < m; i++)
		for (int j = 0; j < k; j++)
			c->parity[i][j] = gf_inv((uint8_t)((k + i) ^ j));
	return 0;
}

void rs_encode_one(const struct rs_code *c, int i, const uint8_t *const *data,
		   uint8_t *parity, size_t len)
{
	gf_region_mul(parity, data[0], c->parity[i][0], len);
	for (int j = 1; j < c->k; j++)
		gf_region_mul_add(parity, data[j], c->parity[i][j], len);
}

void rs_encode(const struct rs_code *c, const uint8_t *const *data,
	       uint8_t *const *parity, size_t len)
{
	for (int i = 0; i < c->m; i++)
		rs_encode_one(c, i, data, parity[i], len);
}

void rs_update(const struct rs_code *c, int j, const uint8_t *old,
	       const uint8_t *new_, uint8_t *const *parity, uint8_t *delta,
	       size_t len)
{
	for (size_t b = 0; b < len; b++)
		delta[b] = old[b] ^ new_[b];
	for (int i = 0; i < c->m; i++)
		gf_region_mul_add(parity[i], delta, c->parity[i][j], len);
}

/* Row r of the generator [I; C]. */
static void gen_row(const struct rs_code *c, int r, uint8_t *row)
{
	memset(row, 0, (size_t)c->k);
	if (r < c->k)
		row[r] = 1;
	else
		memcpy(row, c->parity[r - c->k], (size_t)c->k);
}

/* Invert k x k matrix @a (row-major) into @inv by Gauss-Jordan; -1 if singular. */
static int invert(uint8_t *a, uint8_t *inv, int k)
{
	memset(inv, 0, (size_t)k * k);
	for (int i = 0; i < k; i++)
		inv[i * k + i] = 1;
	for (int col = 0; col < k; col++) {
		int p = col;
		uint8_t s;

		while (p < k && !a[p * k + col])
			p++;
		if (p == k)
			return -1;
		if (p != col)
			for (int j = 0; j < k; j++) {
				uint8_t t = a[p * k + j];

				a[p * k + j] = a[col * k + j];
				a[col * k + j] = t;
				t = inv[p * k + j];
				inv[p * k + j] = inv[col * k + j];
				inv[col * k + j] = t;
			}
		s = gf_inv(a[col * k + col]);
		for (int j = 0; j < k; j++) {
			a[col * k + j] = gf_mul(a[col * k + j], s);
			inv[col * k + j] = gf_mul(inv[col * k + j], s);
		}
		for (int r = 0; r < k; r++) {
			uint8_t f = a[r * k + col];

			if (r == col || !f)
				continue;
			for (int j = 0; j < k; j++) {
				a[r * k + j] ^= gf_mul(f, a[col * k + j]);
				inv[r * k + j] ^= gf_mul(f, inv[col * k + j]);
			}
		}
	}
	return 0;
}

/*
 * The first k present chunk indices into @rows and the inverse of the
 * generator rows they stand for into @inv: data_j = sum_t inv[j][t] *
 * chunk[rows[t]].
 */
static int survivors(const struct rs_code *c, const bool *present, int *rows,
		     uint8_t *inv)
{
	uint8_t a[RS_MAX_K * RS_MAX_K];
	int k = c->k, n = 0;

	for (int r = 0; r < k + c->m && n < k; r++)
		if (present[r])
			rows[n++] = r;
	if (n < k)
		return -1;
	for (int t = 0; t < k; t++)
		gen_row(c, rows[t], a + t * k);
	return invert(a, inv, k);
}

int rs_rebuild_one(const struct rs_code *c, int want,
		   const uint8_t *const *chunks, const bool *present,
		   uint8_t *out, size_t len)
{
	uint8_t inv[RS_MAX_K * RS_MAX_K];
	int rows[RS_MAX_K], k = c->k;

	if (present[want]) {
		memcpy(out, chunks[want], len);
		return 0;
	}
	if (want >= k || survivors(c, present, rows, inv))
		return -1;
	gf_region_mul(out, chunks[rows[0]], inv[want * k], len);
	for (int t = 1; t < k; t++)
		gf_region_mul_add(out, chunks[rows[t]], inv[want * k + t], len);
	return 0;
}

int rs_decode(const struct rs_code *c, uint8_t *const *chunks,
	      const bool *present, size_t len)
{
	uint8_t inv[RS_MAX_K * RS_MAX_K];
	int rows[RS_MAX_K], k = c->k;
	bool missing_parity = false;

	if (survivors(c, present, rows, inv))
		return -1;
	for (int j = 0; j < k; j++) {
		if (present[j])
			continue;
		gf_region_mul(chunks[j], chunks[rows[0]], inv[j * k], len);
		for (int t = 1; t < k; t++)
			gf_region_mul_add(chunks[j], chunks[rows[t]], inv[j * k + t], len);
	}
	for (int i = 0; i < c->m; i++)
		missing_parity |= !present[k + i];
	if (missing_parity)
		for (int i = 0; i < c->m; i++) {
			if (present[k + i])
				continue;
			gf_region_mul(chunks[k + i], chunks[0], c->parity[i][0], len);
			for (int j = 1; j < k; j++)
				gf_region_mul_add(chunks[k + i], chunks[j],
						  c->parity[i][j], len);
		}
	return 0;
}
