/* SPDX-License-Identifier: MIT */
/*
 * A lane's copy (rt_cpu_copy): non-temporal stores for the aligned body,
 * plain copies for the ends. Every byte must arrive, whatever the
 * alignment of either side and the length, and nothing past the end may
 * be written.
 */
#include <stdint.h>
#include <string.h>

#include "backend.h"
#include "tap.h"

#define MAX 8192

int main(void)
{
	static const size_t lens[] = { 0, 1, 15, 255, 256, 257, 1000, 4096, 8000 };
	static const size_t offs[] = { 0, 1, 7, 15 };
	static unsigned char src[MAX + 64], dst[MAX + 64];
	size_t nl = sizeof(lens) / sizeof(lens[0]);
	size_t no = sizeof(offs) / sizeof(offs[0]);

	plan((int)(nl * no * no));
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)(i * 131 + 7);
	for (size_t l = 0; l < nl; l++)
		for (size_t a = 0; a < no; a++)
			for (size_t b = 0; b < no; b++) {
				size_t n = lens[l], d = offs[a], s = offs[b];
				bool intact = true;

				memset(dst, 0xee, sizeof(dst));
				rt_cpu_copy(NULL, 0, dst + d, src + s, n);
				for (size_t i = 0; i < d; i++)
					intact &= dst[i] == 0xee;
				for (size_t i = d + n; i < sizeof(dst); i++)
					intact &= dst[i] == 0xee;
				ok(!memcmp(dst + d, src + s, n) && intact,
				   "%zu bytes, destination +%zu, source +%zu: "
				   "copied, nothing around them touched", n, d, s);
			}
	return done_testing();
}
