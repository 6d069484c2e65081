// SPDX-License-Identifier: MIT
/* report.md's KV-share section (kv_report.h); the figures: kv_figures.c. */
#include "kv_report.h"

#include "escape.h"
#include "kv_figures.h"

static const char *const paths[] = { "cxl-dma", "cxl-load", "rdma-200g",
				     "rdma-100g", "recompute" };

static void paths_table(GString *s, JsonObject *out)
{
	g_string_append(s, "| path | TTFT median us | TTFT p99 us | TTFT mean us | "
			   "requests/s | hits | fetch per hit us, median | checksum errors |\n"
			   "|---|---|---|---|---|---|---|---|\n");
	for (guint i = 0; i < G_N_ELEMENTS(paths); i++) {
		struct kv_path_fig f;

		if (!kv_path_fig(out, paths[i], &f))
			continue;
		g_string_append_printf(s, "| %s | %.1f | %.1f | %.1f | %.0f | %" G_GINT64_FORMAT
				       "/%" G_GINT64_FORMAT " | ", f.path, f.ttft_median_us,
				       f.ttft_p99_us, f.ttft_mean_us, f.requests_per_s,
				       f.hits, f.requests);
		if (f.fetch_us >= 0)
			g_string_append_printf(s, "%.1f |", f.fetch_us);
		else
			g_string_append(s, "- |");
		g_string_append_printf(s, f.checksum_errors ? " **%" G_GINT64_FORMAT "** |\n" :
				       " %" G_GINT64_FORMAT " |\n", f.checksum_errors);
	}
}

static void published_table(GString *s, JsonObject *out)
{
	if (kv_lead(out, "cxl-dma", "rdma-200g", false) < 0 &&
	    kv_lead(out, "cxl-dma", "rdma-100g", false) < 0)
		return;		/* nothing of this run to put beside them */
	g_string_append(s, "\n| published | its ratio | this run | paths |\n|---|---|---|---|\n");
	for (int i = 0; i < kv_npublished; i++) {
		const struct kv_published *p = &kv_published[i];
		double x = kv_lead(out, p->cxl, p->other, p->throughput);

		g_string_append_printf(s, "| %s | %.2fx | ", p->what, p->x);
		if (x > 0)
			g_string_append_printf(s, "%.2fx |", x);
		else
			g_string_append(s, "- |");
		g_string_append_printf(s, " %s %s, %s |\n", p->throughput ?
				       "requests/s of" : "median TTFT of", p->other, p->cxl);
	}
}

/* What this run's figures say about the lead (docs/kv-share.md). */
static void reading(GString *s, JsonObject *out)
{
	struct kv_path_fig c, r;
	double per_token = json_object_get_double_member_with_default(
		out, "compute_ns_per_token", 0) / 1e3;
	double new_us = json_object_get_double_member_with_default(out, "new_tokens", 0) *
			per_token;

	if (!kv_path_fig(out, "cxl-dma", &c) || !kv_path_fig(out, "rdma-200g", &r) ||
	    c.fetch_us <= 0 || r.fetch_us < 0)
		return;
	g_string_append_printf(s, "\nA hit's fetch took %.1f us over the DMA engine and "
			       "%.1f us over 200G RDMA: %.2fx, the most CXL's lead can be here, "
			       "reached only when every request hits and its new tokens cost "
			       "nothing (%.1f us of compute a request in this run, the same on "
			       "every path). ", c.fetch_us, r.fetch_us, r.fetch_us / c.fetch_us,
			       new_us);
	g_string_append(s, "CXL's lead grows with a pool path wider against the NIC, smaller "
			   "blocks (per-transfer latency: a NIC's microseconds against a DMA "
			   "engine's), a higher hit ratio and fewer new tokens a request; it "
			   "shrinks when the new tokens' compute dominates, when misses "
			   "(recomputed alike on every path) are many, and when the pool's media "
			   "or link is narrower than the NIC. The published ratios also hold "
			   "the RDMA software stack and GPU copies, which the model leaves out "
			   "(docs/kv-share.md).\n");
}

void kv_report_md(GString *s, const struct run_result *r)
{
	bool any = false;

	for (guint i = 0; i < r->workloads->len; i++) {
		const struct res_workload *w = g_ptr_array_index(r->workloads, i);
		JsonObject *out = kv_decode_output(w);

		if (!out)
			continue;
		if (!any)
			g_string_append_printf(s, "\n## KV cache shared through a CXL pool\n\n"
					       "Each path serves the same requests one at a "
					       "time (docs/kv-share.md). Times: the guest's clock, "
					       "in this run %s; requests/s: one over the mean "
					       "TTFT.\n", result_clock_words(r, "guest"));
		any = true;
		g_string_append(s, "\n### ");
		md_text(s, w->name);
		g_string_append(s, " on ");
		md_text(s, w->host);
		g_string_append_printf(s, ": %" G_GINT64_FORMAT " requests, hit ratio %.2f, "
				       "%" G_GINT64_FORMAT "-token prefixes of %" G_GINT64_FORMAT
				       " bytes, %" G_GINT64_FORMAT " ns of compute a token\n\n",
				       json_object_get_int_member_with_default(out, "requests", 0),
				       json_object_get_double_member_with_default(out, "hit_ratio", 0),
				       json_object_get_int_member_with_default(out, "prefix_tokens", 0),
				       json_object_get_int_member_with_default(out, "prefix_bytes", 0),
				       json_object_get_int_member_with_default(out, "compute_ns_per_token", 0));
		paths_table(s, out);
		published_table(s, out);
		reading(s, out);
	}
}
