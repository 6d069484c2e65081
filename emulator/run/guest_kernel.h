/* SPDX-License-Identifier: MIT */
/*
 * The guest kernel a run boots, found (and fetched, and built into a guest
 * image) before anything starts (docs/kernels.md):
 *
 * - none given: the default image `make` builds (build/guest/, Debian's
 *   6.12 from bookworm-backports that ci/deps downloads);
 * - a Debian version line: the newest release of that line already here
 *   (the default image counts), else the newest any Debian suite serves,
 *   downloaded into build/cache/kernels/ by guest/kernel/fetch-debian.sh,
 *   never installed;
 * - a build tree or a bzImage with its modules.
 *
 * Every kernel but the default gets its own image under
 * build/guest/kernels/KEY/ (guest/kernel/prepare.sh): its config first,
 * checked against what cxlbed needs (kernel_config.h) so a kernel without
 * it is refused at the place that named it (FILE:LINE or --kernel), then
 * the guest clock module built against its headers and the initramfs with
 * its modules, rebuilt when the kernel, the guest programs or the scripts
 * change.
 */
#ifndef CXLBED_GUEST_KERNEL_H
#define CXLBED_GUEST_KERNEL_H

#include "run/kernel_features.h"
#include "topology/kernel_spec.h"
#include "topology/topology.h"

#include <stdbool.h>

#define GUEST_DEFAULT_IMAGE_DIR "build/guest"
#define GUEST_KERNELS_DIR "build/guest/kernels"
#define GUEST_KERNEL_CACHE "build/cache/kernels"
#define GUEST_KERNEL_FETCH "guest/kernel/fetch-debian.sh"
#define GUEST_KERNEL_PREPARE "guest/kernel/prepare.sh"

struct guest_kernel {
	char *chosen_by;	/* "kernel = 7.3 (FILE:LINE)", "--kernel ...", "default" */
	bool is_default;	/* the image `make` builds */
	char *dir;		/* its image folder (absolute) */
	/* kernel.env: where it comes from */
	char *release;		/* "7.3.4+deb13-amd64"; NULL: not fetched yet (plan) */
	char *source;		/* "debian" | "user" */
	char *version, *suite, *package;	/* debian */
	char *path, *modules;			/* user: tree or bzImage, modules */
	struct kernel_link_rule link;
	char *link_from;	/* how the link rule was found out */
	char *config_from;	/* the .config it was taken from (messages name it) */
	char *pending;		/* plan, Debian not here yet: what run will fetch */
};

/*
 * Find the kernel @spec names (NULL: the default), fetching a Debian one
 * only with @fetch, and read its config. The config's check against @t
 * comes with it: a kernel cxlbed cannot use is an input error naming
 * @spec's place. With @fetch false a Debian line not here yet comes back
 * with release NULL and @pending set. NULL + *error otherwise
 * (CXLBED_ERROR_INPUT for a kernel refused, CXLBED_ERROR_RUN when a
 * download or a script failed).
 */
struct guest_kernel *guest_kernel_find(const struct cb_kernel_spec *spec,
				       const struct cb_topology *t, bool fetch,
				       GError **error);
/* Its guest image (clock module, initramfs), built unless current. */
bool guest_kernel_build(const struct guest_kernel *k, const struct cb_kernel_spec *spec,
			GError **error);
/* Find, check and build: what run, boot and table do before they start. */
struct guest_kernel *guest_kernel_prepare(const struct cb_kernel_spec *spec,
					  const struct cb_topology *t, GError **error);
void guest_kernel_free(struct guest_kernel *k);
typedef struct guest_kernel guest_kernel;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(guest_kernel, guest_kernel_free)

/* Files of its image: QEMU's -kernel (vmlinux, PVH; else the bzImage),
 * -initrd, the manifest a user layer leaves out, System.map (may not
 * exist), config. Caller frees. */
char *guest_kernel_boot_file(const struct guest_kernel *k);
char *guest_kernel_file(const struct guest_kernel *k, const char *name);
/* Its .config as read (NULL when not here yet). */
struct kconfig *guest_kernel_config(const struct guest_kernel *k);
/* "7.3.4+deb13-amd64 (Debian 7.3.4-1~bpo13+1, trixie-backports)". Caller frees. */
char *guest_kernel_describe(const struct guest_kernel *k);
/* Why kernel_policies[i] cannot run on @k, or NULL (kernel_features.h). */
char *guest_kernel_policy_unavailable(const struct guest_kernel *k, const char *policy);
/* summary.json's guest_kernel: where it came from, how it was chosen, its
 * link-latency rule and the newer policies it has. */
#include <json-glib/json-glib.h>
JsonObject *guest_kernel_to_json(const struct guest_kernel *k);

#endif
