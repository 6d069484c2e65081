// SPDX-License-Identifier: MIT
/*
 * The instruction classes behind the plugin's instruction counting
 * (insn_class.h): what may stop a block early ends a counted run, the
 * rest is counted with the run it belongs to. Texts as QEMU's
 * disassembler prints them for x86 (seen in a booting guest).
 */
#include "tap.h"
#include "insn_class.h"

static const char *const stops[] = {
	"movl %eax, (%esp)",		/* a store */
	"addq (%rax), %rbx",		/* a load: membench's read loop */
	"movsbl (%edi), %edx",
	"mov rdx, qword ptr [rax]",	/* Intel syntax */
	"pushl %ebp", "popq %rbx", "calll 0xe8cbb", "retq",	/* the stack */
	"inb $0x71, %al", "outb %al, $0x70",	/* port I/O */
	"syscall", "hlt", "cpuid", "divq %rcx", "idivl %ecx",
	"rep stosq %rax, %es:(%rdi)", "lock cmpxchgq %rcx, (%rdx)",
	"movl %ecx, %cr0", "movl %ecx, %ds", "movw %dx, %ss",
	"lgdtw %cs:0x6178", "nopl 0x0(%rax,%rax,1)",	/* an operand in parens */
	"", NULL,
};

static const char *const runs_on[] = {
	"addq $0x8, %rax", "cmpq %rax, %rdx", "jne 0x401700", "jmpl *%edx",
	"movl $0x10, %ecx", "movl %eax, %ecx", "movsbl %dl, %edx",
	"xorw %dx, %dx", "testb %dl, %dl", "leal 8(%esp), %ecx",
	"andl $0x1fffffff, %ecx", "cmovneq %rax, %rbx", "sete %al",
	"imulq %rcx, %rax", "shlq $6, %rcx", "cltq", "nop",
};

/* Non-temporal stores, which the model writes past the caches, and
 * look-alikes that are not. */
static const char *const nt_stores[] = {
	"movntiq %rax, (%rdi)", "movntdq %xmm0, (%rdx)",
	"movntps %xmm1, 0x10(%rax)", "vmovntdq %ymm0, (%rdi)",
};
static const char *const not_nt[] = {
	"movntdqa (%rsi), %xmm0",	/* a streaming load */
	"movdqa %xmm0, (%rdx)", "movq %rax, (%rdi)", "movnt", NULL,
};

int main(void)
{
	size_t ns = sizeof(stops) / sizeof(stops[0]);
	size_t nr = sizeof(runs_on) / sizeof(runs_on[0]);
	size_t nn = sizeof(nt_stores) / sizeof(nt_stores[0]);
	size_t no = sizeof(not_nt) / sizeof(not_nt[0]);

	plan((int)(ns + nr + nn + no));
	for (size_t i = 0; i < nn; i++)
		ok(insn_text_is_nontemporal_store(nt_stores[i]),
		   "non-temporal store: %s", nt_stores[i]);
	for (size_t i = 0; i < no; i++)
		ok(!insn_text_is_nontemporal_store(not_nt[i]),
		   "not a non-temporal store: %s", not_nt[i] ? not_nt[i] : "(no text)");
	for (size_t i = 0; i < ns; i++)
		ok(insn_text_may_stop_block(stops[i]), "may stop a block: %s",
		   stops[i] ? stops[i] : "(no text)");
	for (size_t i = 0; i < nr; i++) {
		/* lea names memory in parens but only computes an address:
		 * counted as a stop, which costs an add, never a wrong count */
		if (runs_on[i][0] == 'l' && runs_on[i][1] == 'e') {
			ok(insn_text_may_stop_block(runs_on[i]),
			   "lea, with its operand in parens, ends a run too (harmless): %s",
			   runs_on[i]);
			continue;
		}
		ok(!insn_text_may_stop_block(runs_on[i]), "register only: %s",
		   runs_on[i]);
	}
	return done_testing();
}
