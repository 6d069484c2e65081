/* SPDX-License-Identifier: MIT */
/*
 * A scenario: which topology to boot and what to run on it
 * (docs/scenarios.md). `cxlbed run` also accepts a bare topology file;
 * it then runs the default workloads on it.
 */
#ifndef CXLBED_SCENARIO_H
#define CXLBED_SCENARIO_H

#include "common/cfgfile.h"
#include "topology/topology.h"
#include "schedule/trigger.h"

struct fault_schedule;

struct scn_workload {
	char *id;
	char *program;		/* binary in the guest's /bin; NULL for a command */
	char **args;		/* extra arguments, NULL-terminated */
	char *command;		/* or a shell command line, its run one ROI */
	char *setup, *cleanup;	/* command: before it and after it, not measured */
	bool clock_check;	/* command: its own throughput vs the modeled */
	bool per_node;		/* run once per NUMA node with --node N */
	bool cxl_nodes_only;	/* ... of the CXL nodes only (nodes = cxl) */
	bool per_dax;		/* run once per devdax region with --dax daxN.M */
	bool together;		/* start on every host at once (contention) */
	char **hosts;		/* NULL: every host */
	int timeout_s;
	struct cb_src src;
};

/*
 * [event NAME]: a fabric-manager action (docs/pooling.md), when its
 * trigger says (the schedule's grammar: emulator/schedule/trigger.h).
 */
struct scn_event {
	char *id;
	struct trigger when;	/* at =, when =, delay = */
	char *action;		/* "bind" | "unbind" */
	char *ld;		/* NULL: any free LD (bind), the newest (unbind) */
	char *pool;		/* NULL: the only lending pool */
	char *host;
	char *mode;		/* "ram" | "devdax" */
	bool expect_refused;	/* expect = refused: the check passes on refusal */
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
	uint64_t timing_skew_ns;	/* `timing-skew`: the model's skew bound; 0: its default */
	GPtrArray *workloads;	/* struct scn_workload * */
	GPtrArray *events;	/* struct scn_event * (scenario_events.c) */
	struct fault_schedule *faults;	/* [faults], [fault NAME] (docs/faults.md) */
	bool fm_grant_demand;	/* [fm] demand = grant: act on pool-demand */
	double fm_sample_s;	/* [fm] sample: utilisation sampling period */
	/* The guest's extra layer (scenario_user.c, guest_layer.c) */
	char **packages;	/* Debian packages, sorted, unique; NULL: none */
	struct cb_src packages_src;
	GPtrArray *files;	/* struct scn_file *: host files carried */
	/* [scenario] kernel = (or --kernel), NULL: the topology's, else the
	 * default guest kernel (kernel_spec.h, docs/kernels.md) */
	struct cb_kernel_spec *kernel;
};

/* files = HOSTPATH[:GUESTPATH]: a host file or folder in the guest. */
struct scn_file {
	char *host;		/* absolute */
	char *guest;		/* absolute, in the guest */
	struct cb_src src;
};

/*
 * Load PATH: a scenario ([scenario] section) or a topology (anything else).
 * Errors: CXLBED_ERROR_INPUT with FILE:LINE.
 */
struct scenario *scenario_load(const char *path, GError **error);
/* The same from @len bytes of text (@len < 0: NUL-terminated). */
struct scenario *scenario_parse(const char *path, const char *text, gssize len,
				GError **error);
/* The kernel a run of @s on @t boots: --kernel or the scenario's, else
 * the topology's; NULL: the default guest kernel. */
const struct cb_kernel_spec *scenario_kernel(const struct scenario *s,
					     const struct cb_topology *t);
/* The default workloads (idle latency, bandwidth on every node). */
struct scenario *scenario_default_for(const char *topology_path);
/*
 * `cxlbed table`'s workloads on topology t (timing on): chase, stream,
 * loaded with 0 streamers, and with 1 on hosts that have 2 vCPUs or more;
 * with @cxl_only, on the CXL nodes and devdax regions only.
 */
struct scenario *scenario_table_for(const struct cb_topology *t, bool cxl_only);
void scenario_free(struct scenario *s);
/* Does a workload start on every host at once (together = on)? Then
 * every host reaches its first marker before modeled time starts. */
bool scenario_has_together(const struct scenario *s);

/* scenario_user.c: [scenario] packages/files, [workload] command. */
bool scenario_parse_layer(struct scenario *s, const struct cfg_file *f,
			  const struct cfg_section *sec, GError **error);
bool scenario_parse_command(struct scn_workload *w, const struct cfg_file *f,
			    const struct cfg_section *sec, GError **error);
/* Add Debian packages / host files given outside a file (cxlbed boot). */
bool scenario_add_packages(struct scenario *s, char **names, GError **error);
bool scenario_add_file(struct scenario *s, const char *spec, const char *base_dir,
		       const struct cb_src *src, GError **error);
void scn_file_free(gpointer p);
/* scenario_events.c: [event NAME] and [fm] sections. */
/* Seconds: a day for a boot or one workload, a week for a whole run. */
#define SCN_MAX_STEP_S (24 * 3600)
#define SCN_MAX_RUN_S (7 * 24 * 3600)

/* @ids: the event names seen so far (names must be unique). */
bool scenario_parse_event(struct scenario *s, const struct cfg_file *f,
			  const struct cfg_section *sec, GHashTable *ids,
			  GError **error);
bool scenario_parse_fm(struct scenario *s, const struct cfg_file *f,
		       const struct cfg_section *sec, GError **error);
/* Names in events against the topology and workloads, FILE:LINE. */
bool scenario_check_events(const struct scenario *s, const struct cb_topology *t,
			   GError **error);
void scn_event_free(gpointer p);
/* The events' triggers and the fault schedule against the topology, with
 * or without the timing model (modeled time and bytes written need it). */
bool scenario_check_faults(const struct scenario *s, const struct cb_topology *t,
			   bool timing, GError **error);
typedef struct scenario scenario;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(scenario, scenario_free)

#endif
