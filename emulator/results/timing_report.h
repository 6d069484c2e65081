/* SPDX-License-Identifier: MIT */
/* The timing plugin's report of a host, RUN/timing-HOST.json, as results read it. */
#ifndef CXLBED_TIMING_REPORT_H
#define CXLBED_TIMING_REPORT_H

#include "topology/topology.h"

#include <json-glib/json-glib.h>

char *timing_report_path(const char *dir, const struct cb_host *h);
/* The report's "rois" array, parsed by @p (which owns it); NULL if none. */
JsonArray *timing_report_rois(JsonParser *p, const char *report);
/* How many ROIs the report holds now (0 if none yet). */
guint timing_report_roi_count(const char *report);

#endif
