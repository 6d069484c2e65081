/* SPDX-License-Identifier: MIT */
/*
 * What a guest kernel does, as far as it decides what cxlbed runs and
 * expects (docs/kernels.md): its version, how it adds CXL link latency
 * to the access coordinates (the coordinates: check), and which tiering
 * policies it has (cxlbed-pool's damon-auto and interleave-auto need
 * Linux 6.16). Pure: unit-tested. In the guest, cxlbed-pool asks the
 * running kernel itself; this is what `plan` says before anything boots.
 */
#ifndef CXLBED_KERNEL_FEATURES_H
#define CXLBED_KERNEL_FEATURES_H

#include "run/kernel_config.h"

#include <stdbool.h>

/* "7.3.4+deb13-amd64" -> {7, 3, 4}; false when it does not start N.N. */
bool kernel_version(const char *release, int v[3]);
/* Is @release at least @major.@minor? False when unparsable. */
bool kernel_at_least(const char *release, int major, int minor);

/*
 * The per-link term the kernel adds to CDAT/HMAT latencies: in ps or ns,
 * from the link speed alone or over its width. Unknown: either is
 * accepted, and the check says which one the guest's figures match.
 */
enum kernel_tristate { KT_UNKNOWN = -1, KT_NO = 0, KT_YES = 1 };
struct kernel_link_rule {
	enum kernel_tristate ns;	/* KT_YES: ns (rounded up); KT_NO: ps added as ns */
	enum kernel_tristate width;	/* KT_YES: speed x width; KT_NO: speed alone */
};
/* From kernel.env's cxl_link_unit and cxl_link_width values (NULL: unknown). */
struct kernel_link_rule kernel_link_rule_parse(const char *unit, const char *width);

/* The tiering policies that need a newer kernel than 6.12. */
#define KERNEL_POLICY_DAMON_AUTO "damon-auto"
#define KERNEL_POLICY_INTERLEAVE_AUTO "interleave-auto"
/* Each such policy's name, NULL-terminated. */
extern const char *const kernel_policies[];
/*
 * Why @policy cannot run on the kernel @release with @config (NULL: its
 * config unknown): "needs ...", or NULL when it can (or is not one of
 * those above). Caller frees.
 */
char *kernel_policy_unavailable(const char *policy, const char *release,
				const struct kconfig *config);

#endif
