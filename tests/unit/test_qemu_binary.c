/* SPDX-License-Identifier: MIT */
/* Which QEMU a run starts, and what its version says it can do. */
#include "qemu/qemu_binary.h"
#include "tap.h"

#include <limits.h>
#include <glib/gstdio.h>
#include <stdlib.h>

static void test_parse(void)
{
	struct qemu_binary b = { 0 };

	ok(qemu_binary_parse_version(&b, "QEMU emulator version 10.0.13 "
				     "(cxlbed-2651a4abc53d)\nCopyright (c) 2003-2025\n"),
	   "cxlbed's build's --version parses");
	is_str(b.version, "10.0.13", "its version");
	is_str(b.package, "cxlbed-2651a4abc53d", "its package tag");
	ok(b.cxlbed_build, "it is cxlbed's build");

	ok(qemu_binary_parse_version(&b, "QEMU emulator version 10.0.2 "
				     "(Debian 1:10.0.2+ds-2+deb13u1~bpo12+1)\n"),
	   "Debian's --version parses");
	is_str(b.package, "Debian 1:10.0.2+ds-2+deb13u1~bpo12+1", "Debian's package");
	ok(!b.cxlbed_build, "Debian's is not cxlbed's build");

	ok(qemu_binary_parse_version(&b, "QEMU emulator version 10.1.0\n"),
	   "a version without a package parses");
	is_str(b.package, "", "no package");
	ok(!b.cxlbed_build, "and is not cxlbed's build");

	ok(!qemu_binary_parse_version(&b, "qemu-img version 10.0.2\n"),
	   "another program's version is refused");
	ok(!qemu_binary_parse_version(&b, "QEMU emulator version (x)\n"),
	   "a version without digits is refused");
	g_free(b.version);
	g_free(b.package);
}

/* A fake QEMU: a script printing a version, chosen with --qemu. */
static char *fake_qemu(const char *dir, const char *name, const char *version)
{
	char *path = g_build_filename(dir, name, NULL);
	g_autofree char *body = g_strdup_printf("#!/bin/sh\necho 'QEMU emulator "
						"version %s'\n", version);

	g_file_set_contents(path, body, -1, NULL);
	g_chmod(path, 0755);
	return path;
}

static void test_choose(void)
{
	g_autofree char *dir = g_dir_make_tmp("qemu-binary-XXXXXX", NULL);
	g_autofree char *old = fake_qemu(dir, "old", "9.2.0 (Debian 1:9.2.0)");
	g_autofree char *ours = fake_qemu(dir, "ours", "10.0.13 (cxlbed-0123456789ab)");
	g_autofree char *missing = g_build_filename(dir, "missing", NULL);
	g_autoptr(GError) err = NULL;
	const struct qemu_binary *b;
	bool refused;

	g_unsetenv("CXLBED_QEMU");
	refused = !qemu_binary_choose(missing, &err);
	ok(refused && err && strstr(err->message, "--qemu") &&
	   strstr(err->message, "does not run"),
	   "--qemu of a missing file is refused, naming --qemu: %s",
	   err ? err->message : "no error");
	g_clear_error(&err);
	refused = !qemu_binary_choose(old, &err);
	ok(refused && err && strstr(err->message, "9.2.0"),
	   "--qemu of QEMU 9 is refused, naming its version: %s",
	   err ? err->message : "no error");
	g_clear_error(&err);
	ok(g_getenv("CXLBED_QEMU") == NULL, "a refused --qemu is not passed on");

	ok(qemu_binary_choose(ours, &err), "--qemu of a QEMU 10 is taken");
	is_str(qemu_binary_path(), ours, "and is the path runs start");
	is_str(g_getenv("CXLBED_QEMU"), ours, "and is passed on to processes a run starts");
	b = qemu_binary_get(NULL);
	ok(b && b->cxlbed_build, "cxlbed's build is recognised");
	ok(qemu_binary_switch_levels() == INT_MAX, "it carries any switch depth");

	ok(qemu_binary_choose(ours, &err) && qemu_binary_choose(NULL, &err),
	   "no --qemu keeps the choice");
	g_unlink(old);
	g_unlink(ours);
	g_rmdir(dir);
}

int main(void)
{
	plan(21);
	test_parse();
	test_choose();
	return done_testing();
}
