/* SPDX-License-Identifier: MIT */
/* Modeled times of a protected workload's ROI markers (fault_rois.c). */
#ifndef CXLBED_FAULT_ROIS_H
#define CXLBED_FAULT_ROIS_H

#include <json-glib/json-glib.h>
#include <stdbool.h>

/* Pair @output's "fault_rois" with the plugin report's ROIs since
 * @first_roi; adds "modeled_rois". False when not all were found. */
bool fault_rois_merge(JsonObject *output, const char *report, guint first_roi);
/* The modeled [begin, end] of marker (@id, @index); false when absent. */
bool fault_roi_time(JsonObject *output, int id, gint64 index, double *begin,
		    double *end);

#endif
