/* SPDX-License-Identifier: MIT */
/* What a guest kernel does (kernel_features.h). */
#include "run/kernel_features.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool kernel_version(const char *release, int v[3])
{
	v[0] = v[1] = v[2] = 0;
	return release && g_ascii_isdigit(release[0]) &&
	       sscanf(release, "%d.%d.%d", &v[0], &v[1], &v[2]) >= 2;
}

bool kernel_at_least(const char *release, int major, int minor)
{
	int v[3];

	if (!release || !kernel_version(release, v))
		return false;
	return v[0] > major || (v[0] == major && v[1] >= minor);
}

static enum kernel_tristate tri(const char *v, const char *yes, const char *no)
{
	return !v ? KT_UNKNOWN : !strcmp(v, yes) ? KT_YES : !strcmp(v, no) ? KT_NO : KT_UNKNOWN;
}

struct kernel_link_rule kernel_link_rule_parse(const char *unit, const char *width)
{
	return (struct kernel_link_rule){ tri(unit, "ns", "ps"), tri(width, "yes", "no") };
}

const char *const kernel_policies[] = {
	KERNEL_POLICY_DAMON_AUTO, KERNEL_POLICY_INTERLEAVE_AUTO, NULL
};

/* What each policy needs: a kernel version and config options. */
static const struct {
	const char *policy;
	int major, minor;
	const char *options[3];
	const char *what;
} needs[] = {
	{ KERNEL_POLICY_DAMON_AUTO, 6, 16, { "DAMON_SYSFS", "DAMON_PADDR", NULL },
	  "DAMOS quota goals on a node's memory use (node_mem_used_bp, node_mem_free_bp), "
	  "as the kernel's samples/damon/mtier.c tunes migration" },
	{ KERNEL_POLICY_INTERLEAVE_AUTO, 6, 16, { "NUMA", "ACPI_HMAT", NULL },
	  "weighted interleave with weights the kernel derives from each node's bandwidth "
	  "(/sys/kernel/mm/mempolicy/weighted_interleave/auto)" },
};

char *kernel_policy_unavailable(const char *policy, const char *release,
				const struct kconfig *config)
{
	for (guint i = 0; i < G_N_ELEMENTS(needs); i++) {
		if (strcmp(policy, needs[i].policy))
			continue;
		if (!kernel_at_least(release, needs[i].major, needs[i].minor))
			return g_strdup_printf("needs %s: Linux %d.%d or later, and this "
					       "kernel is %s", needs[i].what,
					       needs[i].major, needs[i].minor,
					       release ? release : "of no known release");
		for (int o = 0; config && needs[i].options[o]; o++)
			if (!kconfig_enabled(config, needs[i].options[o]))
				return g_strdup_printf("needs CONFIG_%s, which %s lacks",
						       needs[i].options[o], release);
	}
	return NULL;
}
