/* SPDX-License-Identifier: MIT */
/*
 * A guest kernel's .config against what cxlbed needs of it (docs/kernels.md,
 * "What a kernel needs"): the CXL stack that builds regions, the DAX and
 * memory-hotplug path that onlines them as NUMA nodes, the firmware tables
 * the checks read, the console and the agent's virtio port, an initramfs,
 * and modules that load (the guest clock module is unsigned). Pure: no
 * files but the one read, no processes, unit-tested.
 */
#ifndef CXLBED_KERNEL_CONFIG_H
#define CXLBED_KERNEL_CONFIG_H

#include <glib.h>
#include <stdbool.h>

struct kconfig;

/* Read a .config; NULL + *error when it cannot be read. */
struct kconfig *kconfig_load(const char *path, GError **error);
/* The same from text (tests); @path names it in messages. */
struct kconfig *kconfig_parse(const char *path, const char *text);
void kconfig_free(struct kconfig *k);
typedef struct kconfig kconfig;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(kconfig, kconfig_free)

/*
 * An option's value ("y", "m", a string or number as written) and its
 * line; "n" for "# CONFIG_X is not set"; NULL when the file does not
 * mention it (*line 0). @name without the CONFIG_ prefix.
 */
const char *kconfig_get(const struct kconfig *k, const char *name, int *line);
bool kconfig_enabled(const struct kconfig *k, const char *name);	/* y or m */

/*
 * Everything cxlbed needs that @k lacks, one line each:
 * "CONFIG_CXL_REGION is not set (CONFIG:LINE): regions: ..." or
 * "CONFIG_X is missing: ...". @persistent: the topology has persistent
 * memory devices (then the pmem part of the stack is needed too). NULL
 * when nothing is missing. Caller frees.
 */
char *kconfig_missing(const struct kconfig *k, bool persistent);

#endif
