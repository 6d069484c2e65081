/* SPDX-License-Identifier: MIT */
/*
 * Presentation of a GPU-mode run (docs/gpu-mode.md): the GPU binary's JSON
 * in, the run's files and the terminal table out. `cxlbed gpu` runs the
 * binary; this file only renders.
 */
#ifndef CXLBED_GPU_REPORT_H
#define CXLBED_GPU_REPORT_H

#include <glib.h>
#include <json-glib/json-glib.h>

/* summary.json's root (schema cxlbed.result/1, mode "gpu"). */
JsonNode *gpu_report_summary(JsonObject *g, const char *run_id, const char *wl,
			     const char *source, const char *cmdline);
char *gpu_report_markdown(JsonObject *g, const char *run_id, const char *source);
/* Per copy lane and compute stream, when each block moved: overlap.svg. */
char *gpu_report_overlap_svg(JsonObject *g);
void gpu_report_print(JsonObject *g, const char *dir);
/* A string member of @o, "" when absent. */
const char *gpu_str_of(JsonObject *o, const char *k);

#endif
