/* SPDX-License-Identifier: MIT */
/*
 * Which guest instructions may end their translation block early, as a
 * load or store can (a page fault; an access to MMIO, which is what CXL
 * memory is under TCG: seen, a block stopping right after it). The plugin
 * counts instructions with one inline add per run of instructions that
 * ends at such an instruction, instead of one per instruction: the same
 * counts wherever a block stops, fewer adds (timing_plugin.c).
 */
#ifndef CXLBED_INSN_CLASS_H
#define CXLBED_INSN_CLASS_H

#include <stdbool.h>

/*
 * From the instruction's disassembly (QEMU's, AT&T syntax for x86): true
 * unless it surely neither touches memory nor changes how the CPU runs:
 * any memory operand, any mnemonic not known to be register-only (push,
 * call, in, out, syscall, ...), rep and lock prefixes, moves to control,
 * debug and segment registers. NULL (no disassembly) is true.
 */
bool insn_text_may_stop_block(const char *text);

/*
 * A non-temporal store (movnti, movntdq, vmovntps, ...: AT&T, as QEMU's
 * disassembler prints them): its line goes to memory, not into a cache.
 */
bool insn_text_is_nontemporal_store(const char *text);

#endif
