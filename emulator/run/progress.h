/* SPDX-License-Identifier: MIT */
/* One line per stage on stderr: elapsed time, host, stage, what happened. */
#ifndef CXLBED_PROGRESS_H
#define CXLBED_PROGRESS_H

#include <glib.h>

void progress_start(void);
double progress_elapsed(void);
void progress(const char *host, const char *stage, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);

#endif
