/* SPDX-License-Identifier: MIT */
/*
 * The guest's extra initramfs layer: the Debian packages and host files a
 * scenario (or `cxlbed boot --packages`) names, built by
 * guest/image/mklayer.sh and cached under build/guest/layers/ by a hash of
 * what goes in (docs/guest-image.md). The guest boots the base image and
 * the layer as one -initrd: two gzip'd cpio archives back to back, which
 * the kernel unpacks in turn.
 */
#ifndef CXLBED_GUEST_LAYER_H
#define CXLBED_GUEST_LAYER_H

#include "run/scenario.h"

#define GUEST_LAYER_DIR "build/guest/layers"
#define GUEST_LAYER_DEBS "build/cache/debs"
#define GUEST_LAYER_BUILDER "guest/image/mklayer.sh"
#define GUEST_BASE_MANIFEST "build/guest/initramfs.manifest"

/* Does the scenario name packages or files? */
bool guest_layer_wanted(const struct scenario *s);

/*
 * Every name is a package APT can install (it has a candidate in the
 * machine's sources). Else an input error naming @src's FILE:LINE (or
 * "--packages" when src is NULL) and the package.
 */
bool guest_layer_check_packages(char *const *names, const struct cb_src *src,
				GError **error);

/*
 * What a command line adds (--packages LIST, each space- or
 * comma-separated, --files HOSTPATH[:GUESTPATH], both repeatable; paths
 * relative to the working folder): into @s, names checked against APT.
 */
bool guest_layer_add_cli(struct scenario *s, char **package_lists,
			 char **file_specs, GError **error);

/*
 * The cache key (hex SHA-256) of the layer: the builder script, the base
 * image's manifest (@manifest; NULL: the default image's), the sorted
 * package list, and for every carried host file or folder its guest path
 * and the names, modes and contents of what it holds (a touched but
 * unchanged file keeps its layer).
 */
char *guest_layer_key(const struct scenario *s, const char *manifest, GError **error);

/*
 * The -initrd to boot: base image + layer (both cached; the layer is
 * built only when its key is new). *built: whether the builder ran.
 * @base, @manifest: the guest kernel's image and its manifest (NULL: the
 * default image's; guest_kernel.h).
 */
char *guest_layer_prepare(const struct scenario *s, const char *base, const char *manifest,
			  bool *built, GError **error);

#endif
