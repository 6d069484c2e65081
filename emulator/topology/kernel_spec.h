/* SPDX-License-Identifier: MIT */
/*
 * Which guest kernel the hosts boot (docs/kernels.md): `kernel =` in a
 * topology's [topology] or a scenario's [scenario], or --kernel on run,
 * boot, table and plan (the command line wins over the scenario, the
 * scenario over the topology). The value is
 *
 *   6.12, 7.3, 7.3.4   a Debian kernel by version line (the newest of that
 *                      line any Debian suite serves, or that release)
 *   PATH               a kernel build tree (a folder with .config,
 *                      arch/x86/boot/bzImage, modules.order)
 *   PATH + modules     a bzImage, with `kernel-modules = DIR` (--kernel-
 *                      modules): its modules folder as modules_install
 *                      leaves it (lib/modules/RELEASE, with a build/ link
 *                      to the tree the clock module is built against)
 *
 * A value that reads as a version line is one: a folder named like that
 * is written ./7.3. Relative paths are relative to the file that names
 * them (the working folder for --kernel).
 */
#ifndef CXLBED_KERNEL_SPEC_H
#define CXLBED_KERNEL_SPEC_H

#include <glib.h>
#include <stdbool.h>

enum cb_kernel_kind {
	CB_KERNEL_DEBIAN,	/* by version line */
	CB_KERNEL_TREE,		/* a build tree */
	CB_KERNEL_IMAGE,	/* a bzImage and its modules folder */
};

struct cb_kernel_spec {
	enum cb_kernel_kind kind;
	char *line;		/* DEBIAN: "7.3" or "7.3.4" */
	char *path;		/* TREE: the tree; IMAGE: the bzImage (absolute) */
	char *modules;		/* IMAGE: the modules folder (absolute) */
	char *file;		/* where it was given; NULL: the command line */
	int line_no;		/* ... at this line */
};

/*
 * Parse @value (and @modules, the kernel-modules value or NULL), paths
 * relative to @base_dir. Errors are input errors naming FILE:LINE (the
 * key's line; @modules_line for kernel-modules) or, with @file NULL,
 * --kernel / --kernel-modules. NULL + *error on a bad value.
 */
struct cb_kernel_spec *cb_kernel_spec_parse(const char *value, const char *modules,
					    const char *base_dir, const char *file,
					    int line, int modules_line, GError **error);
/*
 * `kernel` and `kernel-modules` of a [topology] or [scenario] section:
 * true with *out NULL when the section has no kernel key.
 */
struct cfg_file;
struct cfg_section;
bool cb_kernel_spec_from_section(const struct cfg_file *f, const struct cfg_section *s,
				 struct cb_kernel_spec **out, GError **error);
void cb_kernel_spec_free(struct cb_kernel_spec *k);
struct cb_kernel_spec *cb_kernel_spec_copy(const struct cb_kernel_spec *k);
/* Does @s read as a Debian version line (6.12, 7.3.4)? */
bool cb_kernel_is_version(const char *s);
/* Is @s taken as a path (neither a version line nor a malformed one, a
 * number first without a '/')? Relative ones are relative to their file. */
bool cb_kernel_is_path(const char *s);
/* "debian 7.3", "tree /src/linux", "bzImage /x/bzImage + modules /x/lib/..." */
char *cb_kernel_spec_describe(const struct cb_kernel_spec *k);
/* "FILE:LINE" where it was given, or "--kernel". Caller frees. */
char *cb_kernel_spec_where(const struct cb_kernel_spec *k);
typedef struct cb_kernel_spec cb_kernel_spec;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(cb_kernel_spec, cb_kernel_spec_free)

#endif
