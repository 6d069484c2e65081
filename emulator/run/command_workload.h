/* SPDX-License-Identifier: MIT */
/*
 * A command workload (docs/scenarios.md): any shell command line run by
 * the agent as one region of interest. Placeholders in it, its output
 * object and log file, its throughput by its own clock against the
 * operations it counted over the modeled ROI time, and CXL/local ratios.
 */
#ifndef CXLBED_COMMAND_WORKLOAD_H
#define CXLBED_COMMAND_WORKLOAD_H

#include "results/result.h"

/* Where one invocation runs: what the placeholders stand for. */
struct cmd_place {
	const struct res_host *host;	/* {local-node}, {cxl-node} */
	int node;			/* {node}; -1: none */
	const char *dax;		/* {dax}; NULL: none */
};

/*
 * @text with {node}, {local-node}, {cxl-node} and {dax} filled in (not
 * "${...}"); NULL and an error when one has no value on this host.
 */
char *workload_expand(const char *text, const struct cmd_place *p, GError **error);

/*
 * The output object of a command from the agent's `run` reply: command,
 * exit, log file name, the program's own figures (program_output.h), the
 * tails of stdout and stderr, and the agent's ROI as a "rois" entry of
 * kind "command" for the timing merge.
 */
JsonObject *command_output(JsonObject *reply, const char *command,
			   const char *log_name);
/* One step's part of the log file ("$ LABEL COMMAND", output, exit);
 * reply NULL: the step did not run. */
char *command_log_text(const char *label, const char *command, JsonObject *reply);

/*
 * After the timing merge: modeled {"seconds", "per_s" = count / seconds}
 * and "clock_agreement" = own per_s / modeled per_s. Returns the
 * agreement, or -1 when there is nothing to compare.
 */
double command_add_modeled(JsonObject *output);

/*
 * With the timing model, after command_add_modeled: does the command's
 * working set fit in the host's modeled last-level cache (@llc_bytes)?
 * Its working set is what its command line says (working_set.h), else
 * what its whole run read from memory (the command ROI's
 * "memory_lines_read" of @line_bytes each: every line it used that was
 * not in the cache already). Adds "working_set" to @output: {"bytes",
 * "from": "command line" | "memory reads", "how", "llc_bytes",
 * "fits_llc"}, and returns the warning when it fits (its figures then
 * measure the cache, not the path to memory, on any node), else NULL.
 */
char *command_llc_warning(JsonObject *output, const char *command, uint64_t llc_bytes,
			  int line_bytes);

/* One line for the progress log. */
char *command_summary(JsonObject *output);

/*
 * Every run of workload @name on a CXL node of @host gets "vs_local":
 * its rates (own and modeled) over those of the run on the first local
 * node; each ratio goes to the progress log.
 */
void command_compare_nodes(struct run_result *r, const char *host, const char *name);

#endif
