// SPDX-License-Identifier: MIT
/* GF(2^8) arithmetic, Reed-Solomon k+m and CRC-32C (guest/protect). */
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"
#include "gf256.h"
#include "rs.h"
#include "tap.h"

static uint64_t rng = 0x243F6A8885A308D3ull;

static uint8_t rnd8(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint8_t)rng;
}

static void fill(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = rnd8();
}

static int field_laws(void)
{
	int bad = 0;

	for (int a = 1; a < 256; a++) {
		if (gf_mul((uint8_t)a, gf_inv((uint8_t)a)) != 1)
			bad++;
		for (int b = 1; b < 256; b++)
			if (gf_div(gf_mul((uint8_t)a, (uint8_t)b), (uint8_t)b) != a ||
			    gf_mul((uint8_t)a, (uint8_t)b) != gf_mul((uint8_t)b, (uint8_t)a))
				bad++;
	}
	/* distributive over XOR on a sample */
	for (int t = 0; t < 10000; t++) {
		uint8_t a = rnd8(), b = rnd8(), c = rnd8();

		if (gf_mul(a, b ^ c) != (gf_mul(a, b) ^ gf_mul(a, c)))
			bad++;
	}
	return bad;
}

/* Region code @impl against the byte table, every constant, odd tails. */
static int region_agrees(const char *impl)
{
	static const size_t lens[] = { 0, 1, 15, 16, 17, 31, 33, 64, 100, 4103 };
	uint8_t src[4200], a[4200], b[4200];
	int bad = 0;

	for (unsigned int li = 0; li < sizeof(lens) / sizeof(lens[0]); li++)
		for (int c = 0; c < 256; c++) {
			size_t n = lens[li];

			fill(src, n);
			fill(a, n);
			memcpy(b, a, n);
			gf_force_impl(impl);
			gf_region_mul_add(a, src, (uint8_t)c, n);
			gf_force_impl("table");
			gf_region_mul_add(b, src, (uint8_t)c, n);
			bad += memcmp(a, b, n) != 0;
			gf_force_impl(impl);
			gf_region_mul(a, src, (uint8_t)c, n);
			for (size_t i = 0; i < n; i++)
				bad += a[i] != gf_mul((uint8_t)c, src[i]);
		}
	gf_force_impl("auto");
	return bad;
}

/* Every erasure pattern of up to m chunks (or a random sample of them). */
static int erasures(int k, int m, size_t len, int *patterns)
{
	struct rs_code c;
	int n = k + m, bad = 0;
	uint8_t *orig[RS_MAX_N], *work[RS_MAX_N];
	uint8_t *one = malloc(len + 1);

	rs_init(&c, k, m);
	for (int i = 0; i < n; i++) {
		orig[i] = malloc(len + 1);
		work[i] = malloc(len + 1);
	}
	for (int i = 0; i < k; i++)
		fill(orig[i], len);
	rs_encode(&c, (const uint8_t *const *)orig, &orig[k], len);
	*patterns = 0;
	for (uint32_t mask = 0; mask < (1u << n); mask++) {
		bool present[RS_MAX_N];
		int lost = __builtin_popcount(mask);

		if (lost > m + 1 || (n > 12 && (rnd8() & 7)))
			continue;
		for (int i = 0; i < n; i++) {
			present[i] = !(mask & (1u << i));
			memcpy(work[i], orig[i], len);
			if (!present[i])
				memset(work[i], 0xA5, len);
		}
		if (lost > m) {
			bad += rs_decode(&c, work, present, len) != -1;
			continue;
		}
		(*patterns)++;
		for (int j = 0; j < k; j++) {
			if (rs_rebuild_one(&c, j, (const uint8_t *const *)work, present,
					   one, len) || memcmp(one, orig[j], len))
				bad++;
		}
		if (rs_decode(&c, work, present, len))
			bad++;
		for (int i = 0; i < n; i++)
			bad += memcmp(work[i], orig[i], len) != 0;
	}
	for (int i = 0; i < n; i++) {
		free(orig[i]);
		free(work[i]);
	}
	free(one);
	return bad;
}

static int update_matches_encode(int k, int m, size_t len)
{
	struct rs_code c;
	uint8_t *d[RS_MAX_K], *p[RS_MAX_M], *q[RS_MAX_M], *old = malloc(len), *delta = malloc(len);
	int bad = 0;

	rs_init(&c, k, m);
	for (int i = 0; i < k; i++) {
		d[i] = malloc(len);
		fill(d[i], len);
	}
	for (int i = 0; i < m; i++) {
		p[i] = malloc(len);
		q[i] = malloc(len);
	}
	rs_encode(&c, (const uint8_t *const *)d, p, len);
	for (int t = 0; t < 8; t++) {
		int j = rnd8() % k;

		memcpy(old, d[j], len);
		fill(d[j], len);
		rs_update(&c, j, old, d[j], p, delta, len);
	}
	rs_encode(&c, (const uint8_t *const *)d, q, len);
	for (int i = 0; i < m; i++)
		bad += memcmp(p[i], q[i], len) != 0;
	for (int i = 0; i < k; i++)
		free(d[i]);
	for (int i = 0; i < m; i++) {
		free(p[i]);
		free(q[i]);
	}
	free(old);
	free(delta);
	return bad;
}

int main(void)
{
	static const int km[][2] = { { 1, 1 }, { 2, 1 }, { 4, 2 }, { 3, 3 }, { 6, 3 },
				     { 8, 4 }, { 10, 4 }, { 1, 7 } };
	static const size_t lens[] = { 1, 64, 4096 + 5 };
	struct rs_code c;
	uint8_t buf[4099];
	int np = (int)(sizeof(km) / sizeof(km[0]));

	/* every length for the first three codes, the long one for the rest */
	plan(4 + 3 * 3 + (np - 3) + 5);
	gf_init();
	diag("region code: %s", gf_region_impl());
	is_int(field_laws(), 0, "GF(2^8): a*b = b*a, (a*b)/b = a, a*inv(a) = 1, distributive");
	is_int(region_agrees("auto"), 0, "region multiply: %s code = byte table for every "
	       "constant and length", gf_region_impl());
	if (gf_force_impl("ssse3") == 0)
		is_int(region_agrees("ssse3"), 0, "region multiply: ssse3 code = byte table");
	else
		skip("no SSSE3 on this CPU");
	gf_force_impl("auto");
	ok(rs_init(&c, 0, 1) == -1 && rs_init(&c, RS_MAX_K + 1, 1) == -1 &&
	   rs_init(&c, 4, RS_MAX_M + 1) == -1, "rs_init refuses k, m out of range");
	for (int i = 0; i < np; i++)
		for (int l = 0; l < 3; l++) {
			int pats = 0, bad;

			if (l < 2 && i > 2)
				continue;
			bad = erasures(km[i][0], km[i][1], lens[l], &pats);
			ok(bad == 0 && pats > 0, "rs%d+%d, %zu bytes: any <= %d erasures decode "
			   "(%d patterns), %d fail", km[i][0], km[i][1], lens[l], km[i][1], pats,
			   km[i][1] + 1);
		}
	is_int(update_matches_encode(4, 2, 4096), 0, "rs_update (parity delta) = a fresh encode");
	is_int(update_matches_encode(10, 4, 333), 0, "rs_update for 10+4, odd length");
	is_int(crc32c(0, "123456789", 9), 0xE3069283u, "CRC-32C check value of \"123456789\"");
	fill(buf, sizeof(buf));
	is_int(crc32c(0, buf, sizeof(buf)), crc32c_table(0, buf, sizeof(buf)),
	       "CRC-32C: instruction = table (%zu bytes)", sizeof(buf));
	is_int(crc32c(crc32c(0, buf, 100), buf + 100, 3999), crc32c(0, buf, 4099),
	       "CRC-32C continues across calls");
	return tap_failed != 0;
}
