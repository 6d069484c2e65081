/* SPDX-License-Identifier: MIT */
/*
 * `cxlbed table`: from the results of several runs (one per topology) to
 * one row per path (topology, host, NUMA node with memory or devdax
 * region) and one
 * loaded-latency curve per path. Pure data in, data out: no QEMU, so the
 * unit tests build tables from synthetic run_results.
 *
 * Where each figure comes from (docs/latency-table.md):
 *   latency_ns            cxlbed-chase, output.modeled.ns_per_access
 *   read_gbps, write_gbps cxlbed-stream (1 thread), output.modeled.read_/write_gbps
 *   sustained_read_gbps   cxlbed-stream with the most threads (every vCPU)
 *   path_read_gbps        the topology: the path's configured read bandwidth
 *   cores_read_gbps       the topology's vCPUs x a core's limit: misses in
 *                         flight over the idle latency (Little's law), or
 *                         the one-thread read when lower
 *   configured_latency_ns the topology: the path's configured idle latency
 *                         (media + hops, the mean over an interleave)
 *   curve points          cxlbed-loaded, x = output.modeled.load_gbps of the
 *                         streamers, y = output.modeled.loaded_ns_per_access
 * Without the timing model the guest-clock figures are used and the row's
 * clock says "guest".
 */
#ifndef CXLBED_TABLE_PATHS_H
#define CXLBED_TABLE_PATHS_H

#include "results/result.h"
#include "topology/topology.h"

#define TABLE_SCHEMA "cxlbed.table/1"

struct table_row {
	char *topology;		/* topology name */
	char *run_id;		/* the run the figures come from */
	char *host;
	int node;		/* -1 for a devdax region */
	char *dax;		/* "dax0.0" for a devdax region, else NULL */
	char *region;		/* topology region id; NULL for local DRAM */
	char *kind;		/* "local" | "cxl" | "dax" */
	char *path;		/* fabric path, as in summary.json */
	char *via;		/* "direct", "1 switch, x4 interleave", ... */
	double latency_ns;	/* idle; < 0 not measured */
	double read_gbps;	/* one thread; < 0 not measured */
	double write_gbps;
	double sustained_read_gbps;	/* every vCPU of the host reading */
	double path_read_gbps;	/* configured limit of the path; < 0 none */
	/*
	 * What the host's vCPUs can draw: vCPUs x what one core can, which
	 * is its Little's-law limit (misses in flight x line / idle latency,
	 * the measured one, else the configured) or, when lower, its own
	 * one-thread read (that counts its instruction rate too); < 0
	 * unknown (no topology, no latency).
	 */
	double cores_read_gbps;
	double config_latency_ns;	/* configured idle latency; < 0 unknown */
	double latency_ratio;	/* latency / same host's local; < 0 unknown */
	char *clock;		/* "modeled" | "guest" | "mixed" */
};

struct table_point {
	double gbps;		/* aggregate streamer bandwidth */
	double latency_ns;	/* the chaser's ns per access */
	int load_threads;	/* -1: the idle chase (cxlbed-chase) */
};

struct table_curve {
	char *label;		/* "TOPOLOGY HOST node N (via)" or "... daxN.M (via)" */
	char *topology, *host;
	int node;
	char *dax;		/* as in the row */
	GArray *points;		/* struct table_point, by gbps */
};

/* One run the table draws on: where its figures came from. */
struct table_run {
	char *topology;
	char *run_id;
	char *out_dir;
	bool timing_model;
	bool passed;
	char *kernel;		/* the guest kernel in words (result_kernel_words), or NULL */
};

struct table {
	char *run_id;		/* table-YYYYmmdd-HHMMSS or the folder name */
	GPtrArray *runs;	/* struct table_run * */
	GPtrArray *rows;	/* struct table_row *, per host local first */
	GPtrArray *curves;	/* struct table_curve *, same order as rows */
};

/*
 * Build from runs[0..n). topos may be NULL, or parallel to runs (entries
 * may be NULL): it only adds each row's "via" description.
 */
struct table *table_build(struct run_result *const *runs,
			  const struct cb_topology *const *topos, guint n);
void table_free(struct table *t);
typedef struct table table;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(table, table_free)

/*
 * "path", "cores" or "-": what bounds the row's all-vCPU read bandwidth,
 * the narrower of the path's configured bandwidth and what the cores can
 * draw (cores_read_gbps); "-" when either is unknown.
 */
const char *table_row_bound(const struct table_row *r);

/* "direct", "2 switches, x2 interleave", "pool p0 shared by h0 h1". */
char *table_describe_region(const struct cb_topology *t, const char *region);

/* table.json (schema cxlbed.table/1). */
JsonNode *table_to_json(const struct table *t);
bool table_write_json(const struct table *t, const char *path, GError **error);
/* table.md: the table, how figures were obtained, the runs. */
char *table_to_markdown(const struct table *t);
/* The terminal table. */
void table_print(const struct table *t, FILE *out);
/* loaded-latency.svg (svg.c draws it). */
char *table_curves_svg(const struct table *t);

#endif
