/* SPDX-License-Identifier: MIT */
/*
 * The pool section of a run's results, as the fabric manager records it
 * (summary.json "pool", docs/pooling.md): its part of report.md and the
 * pool utilisation plot.
 */
#ifndef CXLBED_POOL_REPORT_H
#define CXLBED_POOL_REPORT_H

#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdbool.h>

#define POOL_SVG_FILE "pool-utilisation.svg"

/*
 * The pool utilisation plot (an SVG document; caller frees): lent, used,
 * free, stranded and each host's share over time from pool.samples[],
 * summed over the pools; a pool node that a fault in @faults (summary.json
 * faults[], may be NULL) killed counts as failed from its injection; a
 * stretch with no sample is shaded and named, not drawn across.
 */
char *pool_report_svg(JsonObject *pool, GPtrArray *faults);
/* The same into DIR/pool-utilisation.svg. */
bool pool_report_write_svg(JsonObject *pool, GPtrArray *faults, const char *dir,
			   GError **error);
/* report.md's "Pool" section. */
void pool_report_md(GString *s, JsonObject *pool);

#endif
