/* SPDX-License-Identifier: MIT */
/*
 * The timing report's figures of copy engines and of memory shared
 * between hosts: what this host's programs posted and waited for, every
 * copy resource's traffic, and the stale reads this host made
 * (model_copy.h, model_stale.h). Formatting only.
 */
#ifndef CXLBED_SHARE_REPORT_H
#define CXLBED_SHARE_REPORT_H

#include <stdio.h>

#include "model_copy.h"
#include "model_stale.h"

/* A host's use of its copy engines (plugin_copy.c). */
struct copy_stats {
	uint64_t posts, bytes, waits;
	uint64_t refused;	/* markers with a bad descriptor, engine or tag */
	double wait_ns;		/* modeled time vCPUs waited for completions */
	double busy_ns;		/* modeled compute charged (BUSY) */
};

struct share_report {
	int host;				/* this host's index */
	const struct copy_stats *copy;
	const struct ce_fabric *engines;
	const struct sr_table *stale;
	const char *shared;			/* NULL: no shared region here */
	uint64_t flushes_dropped;	/* flushes never translated (flush_pending.h) */
};

/* `"copy": {...}, "stale_reads": {...}` (no braces around, no comma after). */
void share_report_json(FILE *f, const struct share_report *r);

#endif
