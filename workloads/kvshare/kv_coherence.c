// SPDX-License-Identifier: MIT
/* Writer's write-back and reader's invalidate, line by line. */
#include "kv_coherence.h"

#define LINE 64

static void flush_lines(const void *p, uint64_t bytes)
{
	const char *c = (const char *)((uintptr_t)p & ~(uintptr_t)(LINE - 1));
	const char *end = (const char *)p + bytes;

	for (; c < end; c += LINE)
		__asm__ __volatile__("clflushopt %0" :: "m"(*c) : "memory");
}

void kv_write_back(const void *p, uint64_t bytes)
{
	flush_lines(p, bytes);
	/* the lines reach memory before the store that publishes them */
	__asm__ __volatile__("sfence" ::: "memory");
}

void kv_invalidate(const void *p, uint64_t bytes)
{
	flush_lines(p, bytes);
	/* no load after this may be served from before it */
	__asm__ __volatile__("mfence" ::: "memory");
}
