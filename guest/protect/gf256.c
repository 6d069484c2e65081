// SPDX-License-Identifier: MIT
#include "gf256.h"

#include <pthread.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define GF_X86 1
#endif

#define GF_POLY 0x11d

static uint8_t exp_t[512];	/* doubled: exp_t[log a + log b] needs no mod */
static uint8_t log_t[256];
static uint8_t mul_t[256][256];
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int use_avx2, use_ssse3;
static int forced_table;	/* 0 auto, 1 byte table, 2 SSSE3 */

static void build(void)
{
	unsigned int x = 1;

	for (int i = 0; i < 255; i++) {
		exp_t[i] = (uint8_t)x;
		log_t[x] = (uint8_t)i;
		x <<= 1;
		if (x & 0x100)
			x ^= GF_POLY;
	}
	for (int i = 255; i < 512; i++)
		exp_t[i] = exp_t[i - 255];
	for (int a = 0; a < 256; a++)
		for (int b = 0; b < 256; b++)
			mul_t[a][b] = (a && b) ? exp_t[log_t[a] + log_t[b]] : 0;
#ifdef GF_X86
	__builtin_cpu_init();
	use_ssse3 = __builtin_cpu_supports("ssse3");
	use_avx2 = __builtin_cpu_supports("avx2");
#endif
}

void gf_init(void)
{
	pthread_once(&once, build);
}

uint8_t gf_mul(uint8_t a, uint8_t b)
{
	return mul_t[a][b];
}

uint8_t gf_inv(uint8_t a)
{
	return exp_t[255 - log_t[a]];
}

uint8_t gf_div(uint8_t a, uint8_t b)
{
	return a ? exp_t[log_t[a] + 255 - log_t[b]] : 0;
}

uint8_t gf_exp(unsigned int e)
{
	return exp_t[e % 255];
}

int gf_force_impl(const char *name)
{
	gf_init();
	if (!name || !strcmp(name, "auto"))
		forced_table = 0;
	else if (!strcmp(name, "table"))
		forced_table = 1;
	else if (!strcmp(name, "ssse3") && use_ssse3)
		forced_table = 2;
	else
		return -1;
	return 0;
}

const char *gf_region_impl(void)
{
	gf_init();
	if (forced_table)
		return forced_table == 1 ? "table" : "ssse3";
	return use_avx2 ? "avx2" : use_ssse3 ? "ssse3" : "table";
}

/* The split tables of constant c: products of every low and high nibble. */
static void nibble_tables(uint8_t c, uint8_t lo[16], uint8_t hi[16])
{
	for (int i = 0; i < 16; i++) {
		lo[i] = mul_t[c][i];
		hi[i] = mul_t[c][i << 4];
	}
}

#ifdef GF_X86
__attribute__((target("ssse3")))
static size_t region_ssse3(uint8_t *dst, const uint8_t *src, uint8_t c,
			   size_t n, int add)
{
	uint8_t lo[16], hi[16];
	__m128i tl, th, mask = _mm_set1_epi8(0x0f);
	size_t i = 0;

	nibble_tables(c, lo, hi);
	tl = _mm_loadu_si128((const __m128i *)lo);
	th = _mm_loadu_si128((const __m128i *)hi);
	for (; i + 16 <= n; i += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(src + i));
		__m128i l = _mm_shuffle_epi8(tl, _mm_and_si128(x, mask));
		__m128i h = _mm_shuffle_epi8(th, _mm_and_si128(_mm_srli_epi64(x, 4), mask));
		__m128i p = _mm_xor_si128(l, h);

		if (add)
			p = _mm_xor_si128(p, _mm_loadu_si128((const __m128i *)(dst + i)));
		_mm_storeu_si128((__m128i *)(dst + i), p);
	}
	return i;
}

__attribute__((target("avx2")))
static size_t region_avx2(uint8_t *dst, const uint8_t *src, uint8_t c,
			  size_t n, int add)
{
	uint8_t lo[16], hi[16];
	__m256i tl, th, mask = _mm256_set1_epi8(0x0f);
	size_t i = 0;

	nibble_tables(c, lo, hi);
	tl = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)lo));
	th = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)hi));
	for (; i + 32 <= n; i += 32) {
		__m256i x = _mm256_loadu_si256((const __m256i *)(src + i));
		__m256i l = _mm256_shuffle_epi8(tl, _mm256_and_si256(x, mask));
		__m256i h = _mm256_shuffle_epi8(th, _mm256_and_si256(
							_mm256_srli_epi64(x, 4), mask));
		__m256i p = _mm256_xor_si256(l, h);

		if (add)
			p = _mm256_xor_si256(p, _mm256_loadu_si256((const __m256i *)(dst + i)));
		_mm256_storeu_si256((__m256i *)(dst + i), p);
	}
	return i;
}
#endif

static void region(uint8_t *dst, const uint8_t *src, uint8_t c, size_t n, int add)
{
	const uint8_t *row;
	size_t i = 0;

	gf_init();
	if (c == 0) {
		if (!add)
			memset(dst, 0, n);
		return;
	}
	if (c == 1) {
		if (!add) {
			memmove(dst, src, n);
			return;
		}
	}
#ifdef GF_X86
	if (!forced_table && use_avx2)
		i = region_avx2(dst, src, c, n, add);
	else if (forced_table != 1 && use_ssse3)
		i = region_ssse3(dst, src, c, n, add);
#endif
	row = mul_t[c];
	if (add)
		for (; i < n; i++)
			dst[i] ^= row[src[i]];
	else
		for (; i < n; i++)
			dst[i] = row[src[i]];
}

void gf_region_mul(uint8_t *dst, const uint8_t *src, uint8_t c, size_t n)
{
	region(dst, src, c, n, 0);
}

void gf_region_mul_add(uint8_t *dst, const uint8_t *src, uint8_t c, size_t n)
{
	region(dst, src, c, n, 1);
}
