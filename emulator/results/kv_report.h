/* SPDX-License-Identifier: MIT */
/*
 * The "KV cache shared through a CXL pool" section of report.md and
 * report.html: each cxlbed-kvshare decode run's paths side by side, CXL's
 * lead over RDMA beside the published ratios, and what in the run bounds
 * it (docs/kv-share.md). The tables' cells and the reading are shared by
 * both formats.
 */
#ifndef CXLBED_KV_REPORT_H
#define CXLBED_KV_REPORT_H

#include <glib.h>
#include <json-glib/json-glib.h>

#include "results/result.h"

extern const char *const kv_report_path_cols[];	/* NULL-terminated */
extern const char *const kv_report_published_cols[];

/* What the section's figures are, with the run's clock (plain text). */
char *kv_report_note(const struct run_result *r);
/* The decode run @w in words: requests, hit ratio, prefix, compute. */
char *kv_report_title(const struct res_workload *w, JsonObject *out);
/* The paths table's rows (GPtrArray of cells each), in the paths' order;
 * **bold** is for Markdown: cells are plain text. */
GPtrArray *kv_report_path_rows(JsonObject *out);
/* The published results' rows; NULL when the run has no RDMA path to
 * compare. */
GPtrArray *kv_report_published_rows(JsonObject *out);
/* What bounds CXL's lead in this run, and what moves it (plain text);
 * NULL when the run lacks cxl-dma or rdma-200g. */
char *kv_report_reading(JsonObject *out);

/* How a page writes the section's parts (Markdown, HTML). */
struct kv_format {
	void (*heading)(GString *s, const char *note);
	void (*title)(GString *s, const char *text);
	void (*table)(GString *s, const char *const *cols, GPtrArray *rows);
	void (*para)(GString *s, const char *text);
};
/* The section in format @f; nothing when no workload is a
 * cxlbed-kvshare decode run. */
void kv_report_write(GString *s, const struct run_result *r, const struct kv_format *f);
void kv_report_md(GString *s, const struct run_result *r);

#endif
