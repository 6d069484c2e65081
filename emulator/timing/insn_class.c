// SPDX-License-Identifier: MIT
#include "insn_class.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

/*
 * Mnemonics (AT&T, as QEMU's capstone disassembler prints them for x86,
 * size suffix and all: matched as prefixes) whose forms without a memory
 * operand touch no memory and cannot stop a block early.
 */
static const char *const register_only[] = {
	"mov", "add", "sub", "adc", "sbb", "and", "or", "xor", "cmp", "test",
	"inc", "dec", "neg", "not", "lea", "shl", "shr", "sal", "sar", "rol",
	"ror", "rcl", "rcr", "shld", "shrd", "imul", "cmov", "set", "bswap",
	"xchg", "bt", "bsf", "bsr", "tzcnt", "lzcnt", "popcnt", "cqto", "cltq",
	"cwtl", "cltd", "cwtd", "cbtw", "nop", "j", "clc", "stc", "cmc",
};

/* Register names whose writes change how the CPU runs (control, debug,
 * segment registers): such a move may end or fault its block. */
static bool system_register(const char *text)
{
	static const char *const regs[] = { "%cr", "%dr", "%db", "%cs", "%ds",
					    "%es", "%fs", "%gs", "%ss" };

	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (strstr(text, regs[i]))
			return true;
	return false;
}

bool insn_text_may_stop_block(const char *text)
{
	const char *m = text;
	size_t len;

	if (!text)
		return true;
	/* a memory operand, AT&T or Intel */
	if (strchr(text, '(') || strchr(text, '['))
		return true;
	while (isspace((unsigned char)*m))
		m++;
	for (len = 0; m[len] && !isspace((unsigned char)m[len]); len++)
		;
	if (!len)
		return true;
	/* rep, lock and the like prefix memory operations */
	if (!strncmp(m, "rep", 3) || !strncmp(m, "lock", 4))
		return true;
	if (system_register(text))
		return true;
	for (size_t i = 0; i < sizeof(register_only) / sizeof(register_only[0]); i++) {
		size_t n = strlen(register_only[i]);

		if (n <= len && !strncmp(m, register_only[i], n))
			return false;
	}
	return true;
}

bool insn_text_is_nontemporal_store(const char *text)
{
	if (!text)
		return false;
	while (isspace((unsigned char)*text))
		text++;
	if (*text == 'v')	/* the VEX forms */
		text++;
	/* movntdqa is a load (a streaming one, from WC memory) */
	return !strncmp(text, "movnt", 5) && strncmp(text, "movntdqa", 8) &&
	       strchr(text, '(');
}
