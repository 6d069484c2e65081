/* SPDX-License-Identifier: MIT */
/*
 * What a run found, independent of how it is shown. The runner fills it;
 * summary.c (summary.json, schema cxlbed.result/1), report_md.c
 * (report.md) and table.c (the terminal table) present it.
 */
#ifndef CXLBED_RESULT_H
#define CXLBED_RESULT_H

#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

#define RESULT_SCHEMA "cxlbed.result/1"

/*
 * A place workloads measure: a NUMA node with memory, or a devdax view of
 * a region (kind "dax", node -1, dax set), which has no node.
 */
struct res_node {
	int node;		/* -1 for a dax view */
	char *kind;		/* "local" | "cxl" | "dax" */
	char *dax;		/* "dax0.0" for a dax view, else NULL */
	char *path;		/* "local" or "hb0/rp0/sw0/{mem0,mem1}" */
	char *region;		/* topology region id, NULL for local */
	uint64_t mem_bytes;	/* as the guest reports it */
	double latency_ns;	/* < 0: not measured */
	double read_gbps;
	double write_gbps;
	/* the fewest threads a read/write figure above came from (a stream's
	 * "threads"; 0: none measured): the row is one thread's when one ran */
	int threads;
	/* what the figures were read on: "modeled" (the timing model's ROIs),
	 * "guest" (the guest's own clock, result_clock_words), "mixed"; NULL
	 * while nothing was measured */
	char *clock;
};

struct res_host {
	char *name;
	int memdevs;		/* how many the guest enumerated */
	double boot_ready_s;	/* QEMU start -> every region online */
	char *kernel;
	char *exit;		/* how QEMU ended */
	GPtrArray *nodes;	/* struct res_node *: NUMA nodes, then dax views */
	JsonObject *enumeration; /* the agent's enumerate result, verbatim */
};

struct res_check {
	char *name;
	bool pass;
	char *detail;
};

struct res_workload {
	char *host;
	char *name;		/* scenario workload id */
	char *program;
	int node;
	char *region;		/* set when run on a region's dax view */
	bool ok;
	double wall_s;		/* host wall time for the request */
	JsonObject *output;	/* the program's JSON line, may be NULL */
	char *error;
	/* what makes its figures mean less than they seem (char *): a
	 * working set that fits in the modeled LLC (command_workload.h) */
	GPtrArray *warnings;
};

struct run_result {
	char *run_id;
	char *out_dir;
	char *topology;		/* path as given */
	char *topology_name;
	char *scenario;		/* name, or "default" */
	bool timing_model;
	/* the guest's own clock: "modeled" (guest clock device), "host" */
	const char *guest_clock;
	double boot_ready_s;	/* slowest host */
	double wall_s;
	char *started_at;	/* ISO 8601 UTC */
	char *qemu_version;
	char *qemu_path;	/* the binary the run started (qemu_binary.h) */
	char *qemu_package;	/* "cxlbed-KEY" for cxlbed's build (docs/qemu.md) */
	/* the cxlbed that ran it: version.h's version and commit */
	char *cxlbed_version;
	char *cxlbed_commit;
	char *interrupted;	/* signal name if Ctrl-C etc., else NULL */
	/* why every host was booted again (char *; runner.c, boot_hosts) */
	GPtrArray *boot_retries;
	GPtrArray *hosts;	/* struct res_host * */
	GPtrArray *workloads;	/* struct res_workload * */
	GPtrArray *faults;	/* JsonObject *: faults[] (docs/faults.md) */
	gint64 fault_seed;	/* the faults' seed; -1: no faults */
	JsonObject *pool;	/* the fabric manager's record, or NULL
				 * (docs/pooling.md; pool_report.c) */
	/* the guest kernel the run booted: release, source ("debian" with
	 * version and suite, or "user" with path), how it was chosen, its
	 * link-latency rule, the tiering policies it has (guest_kernel.h,
	 * docs/kernels.md); NULL in results older than it */
	JsonObject *guest_kernel;
	GPtrArray *checks;	/* struct res_check * */
};

struct run_result *result_new(void);
void result_free(struct run_result *r);
typedef struct run_result run_result;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(run_result, result_free)

struct res_host *result_add_host(struct run_result *r, const char *name);
struct res_host *result_find_host(struct run_result *r, const char *name);
struct res_node *result_host_add_node(struct res_host *h, int node);
struct res_node *result_host_find_node(struct res_host *h, int node);
/* The dax view of @region, added if absent. */
struct res_node *result_host_add_dax(struct res_host *h, const char *region,
				     const char *dax);
struct res_node *result_host_find_dax(struct res_host *h, const char *region);
/* "1" for node 1, "dax0.0" for a dax view: the node column of reports. */
const char *result_node_label(const struct res_node *n, char *buf, size_t len);
struct res_workload *result_add_workload(struct run_result *r, const char *host,
					 const char *name, const char *program,
					 int node);
/*
 * Record a check; returns pass so callers can chain. A name the run has
 * already is numbered (NAME#2, ...): compare matches checks by name, and
 * fails the gate on a name given twice.
 */
bool result_check(struct run_result *r, const char *name, bool pass,
		  const char *fmt, ...) G_GNUC_PRINTF(4, 5);

/* @name as a check's name new to @checks (struct res_check *): NAME or NAME#N. */
char *result_check_name(const GPtrArray *checks, const char *name);

bool result_passed(const struct run_result *r);	/* every check passed, >= 1 */
/*
 * The one place that says what a figure's clock measured in run @r:
 * @clock is a figure's "modeled" (the timing model's ROIs) or "guest"
 * (the guest's own clock, which is modeled time when the run's
 * guest_clock is modeled, host wall time under TCG otherwise). Every
 * writer (stdout, report.md, report.html, summary.json) takes its words
 * from here.
 */
const char *result_clock_words(const struct run_result *r, const char *clock);
/* How the run's figures were obtained, in words, from each node's clock
 * and the node-less workloads' (result_clock_words). */
/* "7.3.4+deb13-amd64 (Debian 7.3.4-1~bpo13+1, trixie-backports)" or
 * "6.1.0 (your build: /src/linux)", from guest_kernel; NULL without. */
char *result_kernel_words(const struct run_result *r);
const char *result_measured_with(const struct run_result *r);
/*
 * A workload's @out figures into its node's row: idle latency, and the
 * read and write bandwidth of the stream with the fewest threads (one
 * thread's where one ran, as in `cxlbed table`), with their clock.
 */
void result_node_take(struct res_node *n, JsonObject *out);

/* summary.c */
JsonNode *result_to_json(const struct run_result *r);
bool result_write_summary(const struct run_result *r, const char *path,
			  GError **error);
/* report_md.c */
bool result_write_report(const struct run_result *r, const char *path,
			 GError **error);
/* table.c: the table a person reads at the end of a run. */
void result_print_table(const struct run_result *r, FILE *out);

#endif
