/* SPDX-License-Identifier: MIT */
/*
 * report.html: the page a person reads, one per run and one per table.
 * Self-contained: the styles, the topology tree and the plots are inline
 * (SVG), nothing is fetched; links only point at the files beside it.
 */
#ifndef CXLBED_REPORT_HTML_H
#define CXLBED_REPORT_HTML_H

#include "results/result.h"
#include "results/table_paths.h"
#include "topology/topology.h"

/* A run's page; @topo may be NULL (no tree). Caller frees. */
char *html_run_report(const struct run_result *r, const struct cb_topology *topo);
/* A table's page; topos[0..n) are drawn as trees (entries may be NULL). */
char *html_table_report(const struct table *t, const struct cb_topology *const *topos,
			guint n);

bool result_write_html(const struct run_result *r, const struct cb_topology *topo,
		       const char *path, GError **error);

#endif
