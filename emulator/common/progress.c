/* SPDX-License-Identifier: MIT */
#include "common/progress.h"

#include <stdio.h>
#include <stdlib.h>

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

int progress_heartbeat_s(void)
{
	const char *env = g_getenv("CXLBED_HEARTBEAT_S");
	int s = env ? atoi(env) : 0;

	return s > 0 ? s : PROGRESS_HEARTBEAT_S;
}

char *progress_heartbeat_text(const char *what, double host_s, double modeled_s,
			      gboolean timing)
{
	g_autofree char *modeled = modeled_s >= 0 ?
		g_strdup_printf("%.3f s of modeled time", modeled_s) :
		g_strdup(timing ? "modeled time not readable now" :
			 "no modeled time (no timing model)");

	return g_strdup_printf("%s%sstill running after %.1f s of host time, %s",
			       what ? what : "", what ? ": " : "", host_s, modeled);
}
