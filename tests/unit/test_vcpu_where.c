/* SPDX-License-Identifier: MIT */
/*
 * Where a silent guest's vCPUs are: QEMU's "info registers -a" text parsed
 * per CPU, instruction pointers named after a System.map's text symbols.
 */
#include "tap.h"
#include "qemu/vcpu_where.h"

#include <glib/gstdio.h>

static const char map[] =
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81b2c4e0 T default_idle\n"
	"ffffffff81b2c4f0 t native_safe_halt\n"
	"ffffffff81200000 T smp_call_function_many_cond\n"
	"ffffffff81b2d000 D some_data\n"
	"ffffffff81c00000 T _etext\n";

/* Two CPUs as QEMU 10 prints them (trimmed to the lines that matter). */
static const char regs[] =
	"CPU#0\n"
	"RAX=0000000000000000 RBX=ffffffff82a0c940 RCX=0000000000000001\n"
	"RIP=ffffffff81b2c4ff RFL=00000246 [---Z-P-] CPL=0 II=0 A20=1 SMM=0 HLT=1\n"
	"ES =0000 0000000000000000 00000000 00000000\n"
	"CPU#1\n"
	"RAX=0000000000000001\n"
	"RIP=ffffffff81200010 RFL=00000202 [-------] CPL=0 II=0 A20=1 SMM=0 HLT=0\n"
	"CPU#2\n"
	"RIP=ffffffffc0401234 RFL=00000202 [-------] CPL=0 II=0 A20=1 SMM=0 HLT=0\n"
	"CPU#3\n"
	"RAX=0000000000000001\n";	/* no RIP line: skipped */

int main(void)
{
	g_autofree char *path = NULL;
	g_autofree char *s = NULL, *bare = NULL, *none = NULL;
	GError *err = NULL;
	struct ksyms *k;
	int fd;

	plan(11);
	fd = g_file_open_tmp("ksyms-XXXXXX", &path, NULL);
	g_assert(fd >= 0 && write(fd, map, sizeof(map) - 1) == (ssize_t)(sizeof(map) - 1));
	close(fd);

	k = ksyms_load(path, &err);
	ok(k != NULL, "a System.map loads (%s)", err ? err->message : "no error");
	if (!k)
		return done_testing();
	{
		g_autofree char *a = ksyms_name(k, 0xffffffff81b2c4ffULL);
		g_autofree char *b = ksyms_name(k, 0xffffffff81000000ULL);
		g_autofree char *c = ksyms_name(k, 0xffffffffc0401234ULL);
		g_autofree char *d = ksyms_name(k, 0xffffffff80000000ULL);

		is_str(a, "native_safe_halt+0xf", "an address inside a function: its last symbol below, with the offset");
		ok(b && g_str_has_suffix(b, "+0x0"), "a function's first byte: offset 0 (%s)", b ? b : "NULL");
		ok(c == NULL, "past _etext (a module's text): no name");
		ok(d == NULL, "below the first text symbol: no name");
	}
	s = vcpu_where_summary(regs, k);
	is_str(s, "vCPU0 native_safe_halt+0xf (halted), vCPU1 smp_call_function_many_cond+0x10, "
		  "vCPU2 0xffffffffc0401234",
	       "every CPU with a RIP, named, halted ones marked, a block without RIP skipped");
	bare = vcpu_where_summary(regs, NULL);
	ok(g_str_has_prefix(bare, "vCPU0 0xffffffff81b2c4ff (halted), vCPU1 0xffffffff81200010"),
	   "without a map: bare addresses (%s)", bare);
	none = vcpu_where_summary("Error: no CPUs\n", k);
	is_str(none, "", "text without CPU blocks: an empty summary");
	{
		static const char two_halted[] =
			"CPU#0\nRIP=ffffffff81cd1e9f RFL=00000246 HLT=1\n"
			"CPU#1\nRIP=ffffffff81cd1e9f RFL=00000246 HLT=1\n";
		int n = -1, h = vcpu_halted_count(regs, &n);

		ok(h == 1 && n == 3, "halted count: 1 of the 3 CPUs with a RIP (%d of %d)", h, n);
		h = vcpu_halted_count(two_halted, &n);
		ok(h == 2 && n == 2, "every vCPU halted: 2 of 2 (%d of %d)", h, n);
	}
	ksyms_free(k);

	g_file_set_contents(path, "not a map\n", -1, NULL);
	k = ksyms_load(path, &err);
	ok(k == NULL && err, "a file without text symbols: an error, not an empty map");
	g_clear_error(&err);
	g_unlink(path);
	return done_testing();
}
