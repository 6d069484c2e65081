// SPDX-License-Identifier: MIT
/* Cache-line flushes in x86-64 machine code (insn_flush.h). */
#include "insn_flush.h"

static const char *const reg_names[16] = {
	"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

const char *insn_flush_reg_name(int r)
{
	return r >= 0 && r < 16 ? reg_names[r] : "";
}

static int64_t little(const uint8_t *p, int bytes)
{
	if (bytes == 1)
		return (int8_t)p[0];
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 |
			 (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

bool insn_flush_decode(const uint8_t *b, size_t n, uint64_t pc,
		       struct insn_flush *f)
{
	size_t i = 0;
	bool opsize = false;
	int rex = 0, mod, reg, rm, dbytes = 0;

	for (; i < n; i++) {
		if (b[i] == 0x66)
			opsize = true;
		else if (b[i] == 0x2e || b[i] == 0x3e || b[i] == 0x26 ||
			 b[i] == 0x36)
			;	/* cs/ds/es/ss: flat in 64-bit mode */
		else
			break;	/* fs, gs, 0x67 and the rest: not ours */
	}
	if (i < n && (b[i] & 0xf0) == 0x40)
		rex = b[i++];
	if (i + 3 > n || b[i] != 0x0f || b[i + 1] != 0xae)
		return false;
	i += 2;
	mod = b[i] >> 6;
	reg = (b[i] >> 3) & 7;
	rm = b[i] & 7;
	i++;
	if (mod == 3 || !(reg == 7 || (reg == 6 && opsize)))
		return false;	/* fences, xsaveopt and the like */
	f->base = -1;
	f->index = -1;
	f->scale = 1;
	f->disp = 0;
	if (rm == 4) {		/* SIB */
		int ss, idx, base;

		if (i >= n)
			return false;
		ss = b[i] >> 6;
		idx = ((b[i] >> 3) & 7) | (rex & 2 ? 8 : 0);
		base = b[i] & 7;
		i++;
		f->scale = 1 << ss;
		if (idx != 4)
			f->index = idx;
		if (base == 5 && mod == 0)
			dbytes = 4;	/* no base, disp32 */
		else
			f->base = base | (rex & 1 ? 8 : 0);
	} else if (rm == 5 && mod == 0) {
		dbytes = 4;		/* RIP-relative */
	} else {
		f->base = rm | (rex & 1 ? 8 : 0);
	}
	if (mod == 1)
		dbytes = 1;
	else if (mod == 2)
		dbytes = 4;
	if (i + dbytes > n)
		return false;
	if (dbytes)
		f->disp = little(b + i, dbytes);
	i += dbytes;
	if (i != n)
		return false;
	if (rm == 5 && mod == 0)
		f->disp += (int64_t)(pc + n);
	return true;
}
