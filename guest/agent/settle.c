// SPDX-License-Identifier: MIT
/*
 * A workload starts only once the guest's background start-up is over.
 * busybox init loads the persistent-memory modules after the agent has
 * greeted the host, and each load checks the module's signature (ECDSA
 * and SHA-256 in the guest kernel: about 9 million instructions a
 * module). Where that overlapped a workload's timed region it was counted
 * there: on a 1-vCPU guest a pointer chase's region took 41 million
 * kernel instructions (crypto/ecc.c's vli_* above all) and read 306 ns
 * per access instead of 92 (host-load.t, a CI run with the host busy,
 * since the host's pace decides where in modeled time the load falls).
 * inittab writes the marker when the loads are done.
 */
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

#define BACKGROUND_DONE "/run/cxlbed-background-done"
#define SETTLE_TIMEOUT_S 120	/* far beyond the loads, modeled or host time */

void wait_background_startup(void)
{
	static bool settled;
	double deadline = mono_s() + SETTLE_TIMEOUT_S;

	while (!settled && access(BACKGROUND_DONE, F_OK) < 0) {
		if (mono_s() > deadline) {
			agent_log("background start-up not over after %d s: "
				  "running anyway", SETTLE_TIMEOUT_S);
			break;
		}
		usleep(10000);
	}
	settled = true;
}
