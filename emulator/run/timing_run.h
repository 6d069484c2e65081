/* SPDX-License-Identifier: MIT */
/*
 * The runner's side of the timing model: per-host plugin config and
 * -plugin argument, the run-owned shared segment that carries links
 * shared between hosts, and turning the plugin's ROI report into
 * modeled figures for a workload (docs/timing-model.md).
 */
#ifndef CXLBED_TIMING_RUN_H
#define CXLBED_TIMING_RUN_H

#include "results/result.h"
#include "qemu/timing_config.h"
#include "results/timing_report.h"
#include "topology/topology.h"

#define TIMING_PLUGIN "build/timing/libcxlbed-timing.so"

/*
 * The -plugin value a run gives host @h's QEMU (pure: writes nothing);
 * @guest_clock: the plugin serves the guest clock device (argv.h).
 */
char *timing_plugin_arg(const struct cb_host *h, const char *dir,
			const char *run_id, guint nhosts, bool guest_clock);
/* Write RUN/timing-HOST.cfg (@skew_ns: the skew bound, 0: the plugin's
 * default); return the -plugin value for QEMU. */
char *timing_run_prepare(const struct cb_topology *t, const struct cb_host *h,
			 const char *dir, const char *run_id, guint nhosts,
			 bool guest_clock, uint64_t skew_ns, GError **error);
/* "/cxlbed-RUN_ID": the segment of run @run_id (unique as the id is). */
char *timing_shm_name(const char *run_id);
/* The run creates its segment (O_EXCL: never one another run holds)
 * before any host starts; the plugins only open it. */
bool timing_run_create_segment(const char *run_id, GError **error);
/* The run owns the segment: remove it when the run ends. */
void timing_run_cleanup(const char *run_id);


/*
 * Match the ROIs the report gained since first_roi to the workload's own
 * "rois" list (by id, whatever order they ended in) and add "modeled" to
 * its output: {"ns_per_access", "read_gbps", "write_gbps", "mix2_1_gbps",
 * "mix1_1_gbps", "rois":[...]}; for a loaded-latency workload (one that
 * has "load_threads") {"loaded_ns_per_access", "load_gbps"} instead, so it
 * never passes for idle latency. Latency: modeled ns / accesses of the
 * chase ROIs; bandwidth: a kind's bytes over the union of its ROIs'
 * modeled intervals (parallel threads overlap; gaps between phases do
 * not count).
 */
bool timing_merge(JsonObject *output, const char *report, guint first_roi,
		  GError **error);

/* The model decodes CXL addresses from the region bases it was given:
 * check them against where the guest kernel really put each region. */
bool timing_check_region_bases(struct run_result *r, const struct cb_host *h,
			       JsonObject *enumeration);

#endif
