/* SPDX-License-Identifier: MIT */
/*
 * report.md's KV-share section, without QEMU: each path's TTFT, throughput
 * and fetch per hit from a decode run's output, CXL's lead over RDMA
 * beside each published ratio, and what the run says drives it
 * (emulator/report/kv_report.h, docs/kv-share.md).
 */
#include "tap.h"
#include "results/kv_figures.h"
#include "results/kv_report.h"
#include "results/html_kv.h"
#include "report_test.h"

/* the decode workload of workloads/scenarios/kv-share.scn as a run
 * measured it (modeled time, 2026-12-02) */
static const char summary[] =
	"{\"workloads\": [{\"host\": \"h1\", \"name\": \"decode\", \"program\": \"cxlbed-kvshare\", \"node\": -1, \""
	"ok\": true, \"output\": {\"workload\": \"kvshare\", \"role\": \"decode\", \"prefix_tokens\": 64, \"prefi"
	"x_bytes\": 1048576, \"requests\": 16, \"hit_ratio\": 0.75, \"new_tokens\": 16, \"compute_ns_per_to"
	"ken\": 2000, \"paths\": [{\"path\": \"cxl-dma\", \"engine\": 2, \"requests\": 16, \"hits\": 12, \"blocks"
	"\": 48, \"fetched_bytes\": 12582912, \"checksum_errors\": 0, \"ttft_median_us\": 72.818, \"ttft_p9"
	"9_us\": 160.125, \"ttft_mean_us\": 94.793, \"fetch_median_us\": 40.692, \"requests_per_s\": 10549"
	".3}, {\"path\": \"cxl-load\", \"engine\": -1, \"requests\": 16, \"hits\": 12, \"blocks\": 48, \"fetched"
	"_bytes\": 12582912, \"checksum_errors\": 0, \"ttft_median_us\": 417.599, \"ttft_p99_us\": 418.388"
	", \"ttft_mean_us\": 354.198, \"fetch_median_us\": 385.541, \"requests_per_s\": 2823.3}, {\"path\":"
	" \"rdma-200g\", \"engine\": 0, \"requests\": 16, \"hits\": 12, \"blocks\": 48, \"fetched_bytes\": 1258"
	"2912, \"checksum_errors\": 0, \"ttft_median_us\": 80.355, \"ttft_p99_us\": 175.629, \"ttft_mean_u"
	"s\": 101.266, \"fetch_median_us\": 48.229, \"requests_per_s\": 9875.0}, {\"path\": \"rdma-100g\", \""
	"engine\": 1, \"requests\": 16, \"hits\": 12, \"blocks\": 48, \"fetched_bytes\": 12582912, \"checksum"
	"_errors\": 0, \"ttft_median_us\": 126.445, \"ttft_p99_us\": 160.125, \"ttft_mean_us\": 135.77, \"f"
	"etch_median_us\": 94.319, \"requests_per_s\": 7365.4}, {\"path\": \"recompute\", \"engine\": -1, \"r"
	"equests\": 16, \"hits\": 0, \"blocks\": 0, \"fetched_bytes\": 0, \"checksum_errors\": 0, \"ttft_medi"
	"an_us\": 160.125, \"ttft_p99_us\": 161.015, \"ttft_mean_us\": 160.181, \"fetch_median_us\": 0.0, "
	"\"requests_per_s\": 6243.0}]}}]}";

/* the same run without its RDMA paths */
static const char cxl_only[] =
	"{\"workloads\": [{\"host\": \"h1\", \"name\": \"decode-2\", \"program\": \"cxlbed-kvshare\","
	" \"node\": -1, \"ok\": true, \"output\": {\"workload\": \"kvshare\", \"role\": \"decode\","
	" \"requests\": 8, \"paths\": [{\"path\": \"cxl-dma\", \"requests\": 8, \"hits\": 8,"
	" \"ttft_median_us\": 72.8, \"fetch_median_us\": 40.7, \"requests_per_s\": 13733}]}}]}";

int main(void)
{
	g_autoptr(GString) md = render_section(summary, kv_report_md);
	g_autoptr(GString) only = render_section(cxl_only, kv_report_md);
	g_autoptr(GString) none = render_section("{\"workloads\": []}", kv_report_md);
	g_autoptr(GString) html = render_section(summary, html_kv_section);

	plan(9);
	ok(strstr(md->str, "## KV cache shared through a CXL pool") &&
	   strstr(md->str, "### decode on h1: 16 requests, hit ratio 0.75"),
	   "a section for the decode run");
	ok(strstr(md->str, "| cxl-dma | 72.8 | 160.1 | 94.8 | 10549 | 12/16 | 40.7 | 0 |") &&
	   strstr(md->str, "| rdma-200g | 80.4 | 175.6 | 101.3 | 9875 | 12/16 | 48.2 | 0 |") &&
	   strstr(md->str, "| recompute | 160.1 | 161.0 | 160.2 | 6243 | 0/16 | 128.0 | 0 |"),
	   "each path's TTFT, throughput, fetch per hit and checksum errors");
	ok(strstr(md->str, "against 200G RDMA | 3.80x | 1.10x |") &&
	   strstr(md->str, "the same against 100G RDMA | 6.50x | 1.74x |"),
	   "the run's median-TTFT leads beside 3.8x and 6.5x");
	ok(strstr(md->str, "vLLM throughput against RDMA | 7.35x | 1.07x |") &&
	   strstr(md->str, "89.6% lower than over RDMA | 9.62x | 1.10x |"),
	   "and beside Beluga's throughput and TTFT");
	ok(strstr(md->str, "40.7 us over the DMA engine and 48.2 us over 200G RDMA: 1.19x") &&
	   strstr(md->str, "32.0 us of compute a request"),
	   "the fetch alone: the most CXL's lead can be in this run");
	ok(strstr(md->str, "CXL's lead grows with a pool path wider") &&
	   strstr(md->str, "shrinks when the new tokens' compute dominates"),
	   "what makes the lead larger or smaller");
	ok(strstr(only->str, "### decode-2 on h1") && !strstr(only->str, "| published |"),
	   "no RDMA path: no comparison with the published ratios");
	ok(none->len == 0, "no decode run: no section");
	ok(strstr(html->str, "<h2>KV cache shared through a CXL pool</h2>") &&
	   strstr(html->str, "<td>3.80x</td><td>1.10x</td>") &&
	   strstr(html->str, "the most CXL's lead can be here"),
	   "report.html has the same section");
	return done_testing();
}
