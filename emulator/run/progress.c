/* SPDX-License-Identifier: MIT */
#include "progress.h"

#include <stdio.h>

static gint64 t0;

void progress_start(void)
{
	t0 = g_get_monotonic_time();
}

double progress_elapsed(void)
{
	return (g_get_monotonic_time() - t0) / 1e6;
}

void progress(const char *host, const char *stage, const char *fmt, ...)
{
	g_autofree char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	/* \r first: in `cxlbed boot` the terminal may be in raw mode. */
	fprintf(stderr, "\r%7.1fs  %-8s %-10s %s\n", progress_elapsed(),
		host ? host : "", stage, msg);
	fflush(stderr);
}
