// SPDX-License-Identifier: MIT
/* The KV-share section's content, and its Markdown (kv_report.h); the
 * figures: kv_figures.c; the HTML: html_kv.c. */
#include "results/kv_report.h"

#include <string.h>

#include "results/escape.h"
#include "results/kv_figures.h"

static const char *const paths[] = { "cxl-dma", "cxl-load", "rdma-200g",
				     "rdma-100g", "recompute" };

const char *const kv_report_path_cols[] = {
	"path", "TTFT median us", "TTFT p99 us", "TTFT mean us", "requests/s",
	"hits", "fetch per hit us, median", "checksum errors", NULL,
};
const char *const kv_report_published_cols[] = {
	"published", "its ratio", "this run", "paths", NULL,
};

char *kv_report_note(const struct run_result *r)
{
	return g_strdup_printf("Each path serves the same requests one at a time "
			       "(docs/kv-share.md). Times: the guest's clock, in this run %s; "
			       "requests/s: one over the mean TTFT.",
			       result_clock_words(r, "guest"));
}

char *kv_report_title(const struct res_workload *w, JsonObject *out)
{
	return g_strdup_printf("%s on %s: %" G_GINT64_FORMAT " requests, hit ratio %.2f, "
			       "%" G_GINT64_FORMAT "-token prefixes of %" G_GINT64_FORMAT
			       " bytes, %" G_GINT64_FORMAT " ns of compute a token",
			       w->name, w->host,
			       json_object_get_int_member_with_default(out, "requests", 0),
			       json_object_get_double_member_with_default(out, "hit_ratio", 0),
			       json_object_get_int_member_with_default(out, "prefix_tokens", 0),
			       json_object_get_int_member_with_default(out, "prefix_bytes", 0),
			       json_object_get_int_member_with_default(out, "compute_ns_per_token", 0));
}

static void cell(GPtrArray *row, char *text)
{
	g_ptr_array_add(row, text);
}

GPtrArray *kv_report_path_rows(JsonObject *out)
{
	GPtrArray *rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);

	for (guint i = 0; i < G_N_ELEMENTS(paths); i++) {
		struct kv_path_fig f;
		GPtrArray *row;

		if (!kv_path_fig(out, paths[i], &f))
			continue;
		row = g_ptr_array_new_with_free_func(g_free);
		cell(row, g_strdup(f.path));
		cell(row, g_strdup_printf("%.1f", f.ttft_median_us));
		cell(row, g_strdup_printf("%.1f", f.ttft_p99_us));
		cell(row, g_strdup_printf("%.1f", f.ttft_mean_us));
		cell(row, g_strdup_printf("%.0f", f.requests_per_s));
		cell(row, g_strdup_printf("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT,
					  f.hits, f.requests));
		cell(row, f.fetch_us >= 0 ? g_strdup_printf("%.1f", f.fetch_us) : g_strdup("-"));
		cell(row, g_strdup_printf("%" G_GINT64_FORMAT, f.checksum_errors));
		g_ptr_array_add(rows, row);
	}
	return rows;
}

GPtrArray *kv_report_published_rows(JsonObject *out)
{
	GPtrArray *rows;

	if (kv_lead(out, "cxl-dma", "rdma-200g", false) < 0 &&
	    kv_lead(out, "cxl-dma", "rdma-100g", false) < 0)
		return NULL;		/* nothing of this run to put beside them */
	rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
	for (int i = 0; i < kv_npublished; i++) {
		const struct kv_published *p = &kv_published[i];
		double x = kv_lead(out, p->cxl, p->other, p->throughput);
		GPtrArray *row = g_ptr_array_new_with_free_func(g_free);

		cell(row, g_strdup(p->what));
		cell(row, g_strdup_printf("%.2fx", p->x));
		cell(row, x > 0 ? g_strdup_printf("%.2fx", x) : g_strdup("-"));
		cell(row, g_strdup_printf("%s %s, %s", p->throughput ? "requests/s of" :
					  "median TTFT of", p->other, p->cxl));
		g_ptr_array_add(rows, row);
	}
	return rows;
}

char *kv_report_reading(JsonObject *out)
{
	struct kv_path_fig c, r;
	double new_us = json_object_get_double_member_with_default(out, "new_tokens", 0) *
			json_object_get_double_member_with_default(out, "compute_ns_per_token", 0) /
			1e3;

	if (!kv_path_fig(out, "cxl-dma", &c) || !kv_path_fig(out, "rdma-200g", &r) ||
	    c.fetch_us <= 0 || r.fetch_us < 0)
		return NULL;
	return g_strdup_printf(
		"A hit's fetch took %.1f us over the DMA engine and %.1f us over 200G RDMA: "
		"%.2fx, the most CXL's lead can be here, reached only when every request hits "
		"and its new tokens cost nothing (%.1f us of compute a request in this run, the "
		"same on every path). CXL's lead grows with a pool path wider against the NIC, "
		"smaller blocks (per-transfer latency: a NIC's microseconds against a DMA "
		"engine's), a higher hit ratio and fewer new tokens a request; it shrinks when "
		"the new tokens' compute dominates, when misses (recomputed alike on every path) "
		"are many, and when the pool's media or link is narrower than the NIC. The "
		"published ratios also hold the RDMA software stack and GPU copies, which the "
		"model leaves out (docs/kv-share.md).",
		c.fetch_us, r.fetch_us, r.fetch_us / c.fetch_us, new_us);
}

void kv_report_write(GString *s, const struct run_result *r, const struct kv_format *f)
{
	bool any = false;

	for (guint i = 0; i < r->workloads->len; i++) {
		const struct res_workload *w = g_ptr_array_index(r->workloads, i);
		JsonObject *out = kv_decode_output(w);
		g_autoptr(GPtrArray) rows = NULL, pub = NULL;
		g_autofree char *title = NULL, *reading = NULL;

		if (!out)
			continue;
		if (!any) {
			g_autofree char *note = kv_report_note(r);

			f->heading(s, note);
		}
		any = true;
		title = kv_report_title(w, out);
		f->title(s, title);
		rows = kv_report_path_rows(out);
		f->table(s, kv_report_path_cols, rows);
		pub = kv_report_published_rows(out);
		if (pub)
			f->table(s, kv_report_published_cols, pub);
		reading = kv_report_reading(out);
		if (reading)
			f->para(s, reading);
	}
}

static void md_heading(GString *s, const char *note)
{
	g_string_append(s, "\n## KV cache shared through a CXL pool\n\n");
	md_text(s, note);
	g_string_append_c(s, '\n');
}

static void md_title(GString *s, const char *text)
{
	g_string_append(s, "\n### ");
	md_text(s, text);
	g_string_append(s, "\n\n");
}

static void md_table(GString *s, const char *const *cols, GPtrArray *rows)
{
	/* a table right after another needs a blank line between */
	if (s->len >= 2 && !strcmp(s->str + s->len - 2, "|\n"))
		g_string_append_c(s, '\n');
	g_string_append_c(s, '|');
	for (int c = 0; cols[c]; c++)
		g_string_append_printf(s, " %s |", cols[c]);
	g_string_append(s, "\n|");
	for (int c = 0; cols[c]; c++)
		g_string_append(s, "---|");
	g_string_append_c(s, '\n');
	for (guint i = 0; i < rows->len; i++) {
		GPtrArray *row = g_ptr_array_index(rows, i);

		g_string_append_c(s, '|');
		for (guint c = 0; c < row->len; c++)
			md_cell(s, g_ptr_array_index(row, c));
		g_string_append_c(s, '\n');
	}
}

static void md_para(GString *s, const char *text)
{
	g_string_append_c(s, '\n');
	md_text(s, text);
	g_string_append_c(s, '\n');
}

void kv_report_md(GString *s, const struct run_result *r)
{
	static const struct kv_format md = { md_heading, md_title, md_table, md_para };

	kv_report_write(s, r, &md);
}
