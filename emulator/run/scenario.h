/* SPDX-License-Identifier: MIT */
/*
 * A scenario: which topology to boot and what to run on it
 * (docs/scenarios.md). `cxlbed run` also accepts a bare topology file;
 * it then runs the default workloads on it.
 */
#ifndef CXLBED_SCENARIO_H
#define CXLBED_SCENARIO_H

#include "topology.h"

struct scn_workload {
	char *id;
	char *program;		/* binary in the guest's /bin */
	char **args;		/* extra arguments, NULL-terminated */
	bool per_node;		/* run once per NUMA node with --node N */
	bool per_dax;		/* run once per devdax region with --dax daxN.M */
	bool together;		/* start on every host at once (contention) */
	char **hosts;		/* NULL: every host */
	int timeout_s;
	struct cb_src src;
};

struct scenario {
	char *file;		/* NULL for the built-in default */
	char *name;
	char *description;
	char *topology_path;	/* resolved against the scenario's folder */
	int boot_timeout_s;	/* QEMU start -> agent hello, per host */
	int timeout_s;		/* the whole run */
	bool timing;		/* the timing model (default); `timing = off`: guest clock */
	GPtrArray *workloads;	/* struct scn_workload * */
};

/*
 * Load PATH: a scenario ([scenario] section) or a topology (anything else).
 * Errors: CXLBED_ERROR_INPUT with FILE:LINE.
 */
struct scenario *scenario_load(const char *path, GError **error);
/* The default workloads (idle latency, bandwidth on every node). */
struct scenario *scenario_default_for(const char *topology_path);
/*
 * `cxlbed table`'s workloads on topology t (timing on): chase, stream,
 * loaded with 0 streamers, and with 1 on hosts that have 2 vCPUs or more.
 */
struct scenario *scenario_table_for(const struct cb_topology *t);
void scenario_free(struct scenario *s);
typedef struct scenario scenario;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(scenario, scenario_free)

#endif
