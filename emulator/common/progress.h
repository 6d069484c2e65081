/* SPDX-License-Identifier: MIT */
/* One line per stage on stderr: elapsed time, host, stage, what happened. */
#ifndef CXLBED_PROGRESS_H
#define CXLBED_PROGRESS_H

#include <glib.h>

void progress_start(void);
double progress_elapsed(void);
void progress(const char *host, const char *stage, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);

/*
 * A workload that runs long says it is alive: every PROGRESS_HEARTBEAT_S
 * seconds of host time (CXLBED_HEARTBEAT_S overrides it, for tests) the
 * runner prints a line with the host and modeled time it has run.
 */
#define PROGRESS_HEARTBEAT_S 30
int progress_heartbeat_s(void);
/*
 * "node 1: still running after 30.0 s of host time, 0.734 s of modeled
 * time": @what (NULL: none) has run @host_s; @modeled_s < 0: no modeled
 * time to give, and @timing says why (without the timing model there is
 * none; with it, the guest's clock could not be read).
 */
char *progress_heartbeat_text(const char *what, double host_s, double modeled_s,
			      gboolean timing);

#endif
