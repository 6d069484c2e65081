/* SPDX-License-Identifier: MIT */
/*
 * The run: topology -> QEMU per host -> agent -> regions online ->
 * enumeration checked -> workloads -> teardown -> results. Every path out
 * of runner_run() tears every QEMU down first.
 */
#ifndef CXLBED_RUNNER_H
#define CXLBED_RUNNER_H

#include "results/result.h"
#include "run/scenario.h"

struct guest_kernel;

struct run_opts {
	const char *out_dir;	/* NULL: results/RUN_ID */
	bool interactive;	/* `cxlbed boot`: console on the terminal */
	const char *only_host;	/* boot one host of a multi-host topology */
	bool timing;		/* load the timing-model plugin: modeled figures */
	bool host_clock;	/* with timing: keep the guest clock on host time */
	bool quiet;		/* no end-of-run table (a caller presents results) */
	/* the guest kernel and its image (guest_kernel_prepare); NULL: the
	 * default image as `make` builds it */
	const struct guest_kernel *kernel;
};

/*
 * Returns the exit status: 0 all checks passed, 1 otherwise, 128+N when
 * interrupted by signal N. If result_out is given it receives the result
 * (caller frees); results are written to the run folder either way.
 */
int runner_run(const struct scenario *s, const struct cb_topology *t,
	       const struct run_opts *o, struct run_result **result_out);

#endif
