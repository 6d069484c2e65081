// SPDX-License-Identifier: MIT
/*
 * Flush instructions found in machine code (insn_flush.h), as gcc and
 * gas encode them: each form's registers, scale and displacement, and
 * what must not be taken for one (fences, xsaveopt, fs-based operands).
 */
#include "tap.h"
#include "insn_flush.h"

static bool is(const uint8_t *b, size_t n, int base, int index, int scale,
	       int64_t disp)
{
	struct insn_flush f;

	return insn_flush_decode(b, n, 0x1000, &f) && f.base == base &&
	       f.index == index && f.scale == scale && f.disp == disp;
}

int main(void)
{
	struct insn_flush f;
	/* clflush (%rdi) */
	const uint8_t a[] = { 0x0f, 0xae, 0x3f };
	/* clflushopt 0x40(%rax) */
	const uint8_t c[] = { 0x66, 0x0f, 0xae, 0x78, 0x40 };
	/* clwb (%r8) */
	const uint8_t d[] = { 0x66, 0x41, 0x0f, 0xae, 0x30 };
	/* clflushopt 0x1000(%rax,%r9,8) */
	const uint8_t e[] = { 0x66, 0x42, 0x0f, 0xae, 0xbc, 0xc8, 0x00, 0x10, 0x00, 0x00 };
	/* clflush 0x10(%rip) */
	const uint8_t g[] = { 0x0f, 0xae, 0x3d, 0x10, 0x00, 0x00, 0x00 };
	/* mfence, sfence, xsaveopt (%rax), clflush %fs:(%rax) */
	const uint8_t mf[] = { 0x0f, 0xae, 0xf0 }, sf[] = { 0x0f, 0xae, 0xf8 };
	const uint8_t xs[] = { 0x0f, 0xae, 0x30 }, fs[] = { 0x64, 0x0f, 0xae, 0x38 };

	plan(7);
	ok(is(a, sizeof(a), 7, -1, 1, 0), "clflush (%%rdi)");
	ok(is(c, sizeof(c), 0, -1, 1, 0x40), "clflushopt 0x40(%%rax)");
	ok(is(d, sizeof(d), 8, -1, 1, 0), "clwb (%%r8)");
	ok(is(e, sizeof(e), 0, 9, 8, 0x1000), "clflushopt 0x1000(%%rax,%%r9,8)");
	ok(is(g, sizeof(g), -1, -1, 1, 0x1000 + 7 + 0x10), "clflush 0x10(%%rip)");
	ok(!insn_flush_decode(mf, 3, 0, &f) && !insn_flush_decode(sf, 3, 0, &f) &&
	   !insn_flush_decode(xs, 3, 0, &f) && !insn_flush_decode(fs, 4, 0, &f),
	   "fences, xsaveopt and fs-based operands are not flushes");
	ok(!insn_flush_decode(a, 2, 0, &f), "a truncated one is not either");
	return tap_failed ? 1 : 0;
}
