/* SPDX-License-Identifier: MIT */
/*
 * Which QEMU a run starts, and what that QEMU can do.
 *
 * cxlbed builds its own QEMU (qemu/build.sh, docs/qemu.md): Debian's
 * source with a short patch series that maps committed CXL memory like
 * RAM and routes accesses through any depth of switches. Any other QEMU
 * 10 still runs cxlbed, with the same functional results, only slower,
 * and memory behind a second switch level holds no data there.
 *
 * The choice, first found wins: --qemu PATH (qemu_binary_choose), the
 * environment's CXLBED_QEMU, cxlbed's build (build/qemu/qemu-system-x86_64
 * under the cxlbed root), qemu-system-x86_64 on PATH.
 */
#ifndef CXLBED_QEMU_BINARY_H
#define CXLBED_QEMU_BINARY_H

#include <glib.h>
#include <stdbool.h>

#define CXLBED_BUILT_QEMU "build/qemu/qemu-system-x86_64"
/* The tag qemu/build.sh gives its builds (QEMU's --with-pkgversion). */
#define CXLBED_QEMU_TAG "cxlbed-"

struct qemu_binary {
	char *path;		/* as chosen: a path, or a name looked up on PATH */
	char *version;		/* "10.0.13", from --version */
	char *package;		/* "cxlbed-0123abcd4567", "Debian 1:10.0.2+ds-...", or "" */
	bool cxlbed_build;	/* carries qemu/patches/ */
};

/*
 * --qemu PATH: check it runs and is QEMU 10 or newer, then make it the
 * choice of this process and of every cxlbed it starts (CXLBED_QEMU).
 * False with *error (naming --qemu) otherwise.
 */
bool qemu_binary_choose(const char *path, GError **error);

/* The chosen QEMU's path, without running it (what plan prints). */
const char *qemu_binary_path(void);

/*
 * The chosen QEMU, asked once for its version (NULL + *error when it
 * does not run). Lives as long as the process.
 */
const struct qemu_binary *qemu_binary_get(GError **error);

/* How many switch levels the chosen QEMU carries data through. */
int qemu_binary_switch_levels(void);

/* Parses `qemu-system-x86_64 --version` output into @b (tests). */
bool qemu_binary_parse_version(struct qemu_binary *b, const char *out);

#endif
