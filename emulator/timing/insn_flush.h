/* SPDX-License-Identifier: MIT */
/*
 * Cache-line flushes in x86-64 machine code: clflush (0f ae /7),
 * clflushopt (66 0f ae /7) and clwb (66 0f ae /6), each with a memory
 * operand. QEMU runs them as no-ops that touch no memory, so the plugin
 * finds them in the instruction bytes at translation and computes their
 * address from the registers when they run (plugin_share.c): a host that
 * shares a pool without coherence must flush (model_stale.h).
 */
#ifndef CXLBED_INSN_FLUSH_H
#define CXLBED_INSN_FLUSH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The address: base + index * scale + disp (registers by x86 number,
 * 0 rax .. 15 r15; -1 none). RIP-relative operands have no base and the
 * next instruction's address folded into disp by the caller's @pc. */
struct insn_flush {
	int base, index;
	int scale;
	int64_t disp;
};

/*
 * Is the instruction @b (@n bytes, at @pc) a flush? Fills *@f. Operands
 * with a segment override (fs, gs) or a 32-bit address size are not
 * recognised (false): their address would be something else.
 */
bool insn_flush_decode(const uint8_t *b, size_t n, uint64_t pc,
		       struct insn_flush *f);

/* x86-64 register @r's name as QEMU's register list spells it. */
const char *insn_flush_reg_name(int r);

#endif
