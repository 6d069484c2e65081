/* SPDX-License-Identifier: MIT */
/*
 * The reader under topology and scenario files: the checked number
 * parsers (decimal, no octal, no overflow, finite), what an input file may
 * be (a regular file, at most CFG_MAX_BYTES, UTF-8 text without NUL or
 * control characters), and names.
 */
#include "tap.h"
#include "common/cfgfile.h"
#include "common/error.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

static char *dir;

static bool uint_is(const char *text, bool hex, uint64_t want)
{
	uint64_t v = ~want;

	return cfg_parse_uint(text, hex, &v) && v == want;
}

static bool size_is(const char *text, uint64_t want)
{
	uint64_t v = ~want;

	return cfg_parse_size(text, &v) && v == want;
}

static void test_numbers(void)
{
	uint64_t u;
	double d;

	ok(uint_is("0", false, 0) && uint_is("18446744073709551615", false,
	   UINT64_MAX), "integers: 0 and 2^64-1");
	ok(!cfg_parse_uint("18446744073709551616", false, &u) &&
	   !cfg_parse_uint("99999999999999999999999", false, &u),
	   "integers: 2^64 and beyond are refused, not wrapped");
	ok(!cfg_parse_uint("010", false, &u) && !cfg_parse_uint("00", false, &u),
	   "integers: a leading 0 is refused (octal to C, ten to people)");
	ok(!cfg_parse_uint("-1", false, &u) && !cfg_parse_uint("+1", false, &u) &&
	   !cfg_parse_uint(" 1", false, &u) && !cfg_parse_uint("", false, &u) &&
	   !cfg_parse_uint("1x", false, &u), "integers: signs, blanks, junk refused");
	ok(!cfg_parse_uint("0x10", false, &u) && uint_is("0x10", true, 16) &&
	   uint_is("0xffffffffffffffff", true, UINT64_MAX) &&
	   !cfg_parse_uint("0x10000000000000000", true, &u) &&
	   !cfg_parse_uint("0x", true, &u),
	   "hexadecimal only where asked for (serials), overflow-checked");
	ok(size_is("256M", 256ull << 20) && size_is("4g", 4ull << 30) &&
	   size_is("1TiB", 1ull << 40) && size_is("4KB", 4096) &&
	   size_is("4096", 4096) && size_is("16777215T", 16777215ull << 40),
	   "sizes: binary units, any case, B or iB");
	ok(!cfg_parse_size("16777216T", &u) && !cfg_parse_size("010G", &u) &&
	   !cfg_parse_size("1.5G", &u) && !cfg_parse_size("G", &u) &&
	   !cfg_parse_size("4X", &u) && !cfg_parse_size("0x10M", &u),
	   "sizes: 2^64 bytes, octal look, fractions and junk refused");
	ok(cfg_parse_real("2.5", &d) && d == 2.5 && cfg_parse_real("0.001", &d) &&
	   cfg_parse_real("150", &d) && d == 150, "reals: decimal with a fraction");
	ok(!cfg_parse_real("nan", &d) && !cfg_parse_real("inf", &d) &&
	   !cfg_parse_real("infinity", &d) && !cfg_parse_real("1e12", &d) &&
	   !cfg_parse_real("-1", &d) && !cfg_parse_real(".5", &d) &&
	   !cfg_parse_real("5.", &d) && !cfg_parse_real("0x10", &d) &&
	   !cfg_parse_real("07.5", &d), "reals: nan, inf, exponents, signs, "
	   "hex and a leading 0 refused");
	{
		GString *big = g_string_new("1");

		for (int i = 0; i < 400; i++)
			g_string_append_c(big, '0');
		ok(!cfg_parse_real(big->str, &d), "reals: 10^400 (infinite as "
		   "a double) refused");
		g_string_free(big, TRUE);
	}
}

/* One key in one section, read through a getter; the error, if any. */
static char *get_error(const char *value, int kind)
{
	g_autofree char *text = g_strdup_printf("[s]\nk = %s\n", value);
	g_autoptr(cfg_file) f = cfg_file_parse("t.cfg", text, -1, NULL);
	struct cfg_section *s = g_ptr_array_index(f->sections, 0);
	g_autoptr(GError) e = NULL;
	uint64_t u;
	double d;

	if (kind == 0)
		cfg_get_uint(f, s, "k", 0, 1, 100, &u, &e);
	else if (kind == 1)
		cfg_get_size(f, s, "k", 0, 256ull << 20, 1ull << 40, &u, &e);
	else
		cfg_get_real(f, s, "k", 0, 0.001, 10000, &d, &e);
	return e ? g_strdup(e->message) : NULL;
}

static void test_getters(void)
{
	g_autofree char *a = get_error("4294967296", 0);
	g_autofree char *b = get_error("8E", 1);
	g_autofree char *c = get_error("1e3", 2);
	g_autofree char *d = get_error("50", 0);

	ok(a && !strcmp(a, "t.cfg:2: k: '4294967296' is out of range; use 1 to 100"),
	   "the message names FILE:LINE, the key and the accepted range");
	ok(b && strstr(b, "t.cfg:2: k: '8E' is not a size; use 256M to 1T"),
	   "sizes say their range in units");
	ok(c && strstr(c, "use 0.001 to 10000"), "reals say their range");
	ok(!d, "a value in range is no error");
}

static char *error_of(const char *path)
{
	g_autofree char *text = NULL;
	g_autoptr(GError) e = NULL;
	gsize len;

	if (cfg_read_text(path, &text, &len, &e))
		return NULL;
	return g_strdup(e->message);
}

static char *parse_error(const char *text, gssize len)
{
	g_autoptr(GError) e = NULL;
	g_autoptr(cfg_file) f = cfg_file_parse("t.cfg", text, len, &e);

	return f ? NULL : g_strdup(e->message);
}

static void test_bytes(void)
{
	g_autofree char *fifo = g_build_filename(dir, "fifo", NULL);
	g_autofree char *big = g_build_filename(dir, "big.topo", NULL);
	g_autofree char *odd = g_build_filename(dir, "caf\xe9\x1b.topo", NULL);
	g_autofree char *e1 = NULL, *e2 = NULL, *e3 = NULL, *e4 = NULL,
			*e5 = NULL, *e6 = NULL, *e7 = NULL, *e8 = NULL,
			*e9 = NULL;
	char *filler = g_malloc(CFG_MAX_BYTES + 1);

	mkfifo(fifo, 0600);
	e1 = error_of(fifo);	/* would wait for a writer, then read forever */
	ok(e1 && g_str_has_suffix(e1, "is a FIFO, not a file; give a topology "
				  "or scenario file") && g_str_has_prefix(e1, fifo),
	   "a FIFO is refused at once, not read");
	e2 = error_of("/dev/zero");
	ok(e2 && !strcmp(e2, "/dev/zero:0: is a character device, not a file; "
			 "give a topology or scenario file"),
	   "/dev/zero is refused, not read forever");
	e3 = error_of(dir);
	ok(e3 && strstr(e3, ":0: is a directory"), "a directory is refused");
	memset(filler, '#', CFG_MAX_BYTES + 1);
	g_file_set_contents(big, filler, CFG_MAX_BYTES + 1, NULL);
	e4 = error_of(big);
	ok(e4 && strstr(e4, ":0: larger than 4 MiB"), "one byte past 4 MiB is refused");
	g_file_set_contents(big, filler, CFG_MAX_BYTES, NULL);
	e5 = error_of(big);
	ok(!e5, "4 MiB exactly is read");
	g_free(filler);
	g_file_set_contents(odd, "[host h0]\n", -1, NULL);
	e6 = error_of(odd);
	ok(e6 && strstr(e6, "caf\\xe9\\x1b.topo:0: the file name is not UTF-8") &&
	   g_utf8_validate(e6, -1, NULL), "a non-UTF-8 path is refused, and "
	   "echoed escaped");
	e7 = parse_error("[a]\nk = 1\nx = \0y\n", 16);
	ok(e7 && !strcmp(e7, "t.cfg:3: a NUL byte (column 5); topology and "
			 "scenario files are text: remove it"),
	   "a NUL byte is an error at its line, not the end of the file");
	e8 = parse_error("[a]\nk = \xc3\xa9t\xc3\n", -1);
	ok(e8 && strstr(e8, "t.cfg:2: byte 0xc3 (column 7) is not UTF-8"),
	   "invalid UTF-8 is an error at its line and column");
	e9 = parse_error("[a]\nk = \x1b]0;x\x07\n", -1);
	ok(e9 && strstr(e9, "t.cfg:2: control character U+001B (column 5)"),
	   "control characters are refused (terminal escapes)");
	ok(!parse_error("[a]\r\nk =\tv\xc3\xa9\r\n", -1),
	   "tabs, CRLF line ends and UTF-8 text are fine");
	g_unlink(fifo);
	g_unlink(big);
	g_unlink(odd);
}

static void test_names(void)
{
	g_autofree char *a = cfg_name_from_file("/x/my topo.v2.topo", ".topo");
	g_autofree char *b = cfg_name_from_file("2hosts.topo", ".topo");
	g_autofree char *c = cfg_name_from_file("/x/run.scn", NULL);
	g_autofree char *p = cxlbed_printable("ok-\xe2\x82\xac \xff\x1b[1m\xc2\x9b");

	ok(cfg_name_ok("h0") && cfg_name_ok("a-b_c") &&
	   !cfg_name_ok("../../x") && !cfg_name_ok("0a") && !cfg_name_ok("a.b") &&
	   !cfg_name_ok("") && !cfg_name_ok("a b"),
	   "names: a letter, then letters, digits, - and _");
	ok(cfg_name_ok("a23456789012345678901234567890123456789012345678901234567890123") &&
	   !cfg_name_ok("a234567890123456789012345678901234567890123456789012345678901234"),
	   "names: 63 characters at most");
	is_str(a, "my_topo_v2", "a name from a file name keeps to the rule");
	is_str(b, "t2hosts", "... and starts with a letter");
	is_str(c, "run", "... less its extension");
	is_str(p, "ok-\xe2\x82\xac \\xff\\x1b[1m\\xc2\\x9b",
	       "printable: UTF-8 kept, bad bytes and control characters escaped");
}

int main(void)
{
	dir = g_dir_make_tmp("cxlbed-cfg-XXXXXX", NULL);
	plan(10 + 4 + 10 + 6);
	test_numbers();
	test_getters();
	test_bytes();
	test_names();
	g_rmdir(dir);
	g_free(dir);
	return done_testing();
}
