/* SPDX-License-Identifier: MIT */
/* report.md: the human record of a run, next to summary.json. Every
 * string from the run's data goes through escape.h. */
#include "results/escape.h"
#include "results/figures.h"
#include "results/policy_report.h"
#include "results/fault_report.h"
#include "results/pool_report.h"
#include "results/kv_report.h"
#include "results/program_report.h"
#include "results/result.h"

static void md_measure(GString *s, double v, const char *fmt)
{
	char buf[32];

	g_string_append_printf(s, " %s |", fig_format(buf, sizeof(buf), v, fmt));
}

static void nodes_md(GString *s, const struct run_result *r)
{
	g_string_append(s, "## Nodes\n\n| host | node | kind | MiB | latency ns | read GB/s | "
			   "write GB/s | clock | path |\n|---|---|---|---|---|---|---|---|---|\n");
	for (guint i = 0; i < r->hosts->len; i++) {
		const struct res_host *h = g_ptr_array_index(r->hosts, i);

		for (guint j = 0; j < h->nodes->len; j++) {
			const struct res_node *n = g_ptr_array_index(h->nodes, j);
			char label[16];

			g_string_append_c(s, '|');
			md_cell(s, h->name);
			md_cell(s, result_node_label(n, label, sizeof(label)));
			md_cell(s, n->kind);
			g_string_append_printf(s, " %llu |", (unsigned long long)(n->mem_bytes >> 20));
			md_measure(s, n->latency_ns, "%.1f");
			md_measure(s, n->read_gbps, "%.3f");
			if (n->threads > 1) {	/* no one-thread stream ran there */
				g_string_truncate(s, s->len - 2);
				g_string_append_printf(s, " (%d threads) |", n->threads);
			}
			md_measure(s, n->write_gbps, "%.3f");
			md_cell(s, n->clock);
			g_string_append_c(s, ' ');
			md_code(s, n->path ? n->path : "");
			g_string_append(s, " |\n");
		}
	}
}

/* Each workload's warnings, where a reader of the figures sees them first. */
static void warnings_md(GString *s, const struct run_result *r)
{
	gsize before = s->len;

	for (guint i = 0; i < r->workloads->len; i++) {
		const struct res_workload *w = g_ptr_array_index(r->workloads, i);
		g_autofree char *where = w->region ? g_strdup_printf(" %s", w->region) :
			w->node >= 0 ? g_strdup_printf(" node %d", w->node) : g_strdup("");

		for (guint j = 0; j < w->warnings->len; j++) {
			g_string_append(s, "- **warning**: workload ");
			md_text(s, w->name);
			g_string_append(s, " on ");
			md_text(s, w->host);
			md_text(s, where);
			g_string_append(s, ": ");
			md_text(s, g_ptr_array_index(w->warnings, j));
			g_string_append_c(s, '\n');
		}
	}
	if (s->len > before)
		g_string_append(s, "\n");
}

bool result_write_report(const struct run_result *r, const char *path,
			 GError **error)
{
	g_autoptr(GString) s = g_string_new(NULL);

	g_string_append(s, "# cxlbed run ");
	md_text(s, r->run_id);
	g_string_append(s, "\n\n- topology: ");
	md_code(s, r->topology ? r->topology : "");
	g_string_append(s, " (");
	md_text(s, r->topology_name);
	g_string_append(s, ")\n- scenario: ");
	md_text(s, r->scenario);
	g_string_append_printf(s, "\n- started: %s, wall time %.1f s, QEMU ",
			       r->started_at ? r->started_at : "?", r->wall_s);
	md_text(s, r->qemu_version ? r->qemu_version : "?");
	if (r->qemu_package && *r->qemu_package) {
		g_string_append(s, " (");
		md_text(s, r->qemu_package);
		g_string_append(s, ")");
	}
	g_string_append_c(s, '\n');
	if (r->guest_kernel) {
		g_autofree char *k = result_kernel_words(r);

		g_string_append(s, "- guest kernel: ");
		md_text(s, k);
		g_string_append(s, ", chosen by ");
		md_text(s, json_object_get_string_member_with_default(r->guest_kernel,
								      "chosen_by", "?"));
		g_string_append_c(s, '\n');
	}
	g_string_append_printf(s, "- verdict: **%s**%s%s\n\n",
			       result_passed(r) ? "pass" : "fail",
			       r->interrupted ? ", interrupted by " : "",
			       r->interrupted ? r->interrupted : "");
	for (guint i = 0; i < r->boot_retries->len; i++) {
		g_string_append(s, "- booted again: ");
		md_text(s, g_ptr_array_index(r->boot_retries, i));
		g_string_append_c(s, '\n');
	}
	if (r->boot_retries->len)
		g_string_append(s, "\n");
	warnings_md(s, r);
	g_string_append_printf(s, "## How the figures were obtained\n\n%s.%s "
			       "Each node row gives its clock: `modeled` figures come "
			       "from the timing-model plugin's region-of-interest "
			       "report (docs/timing-model.md); `guest` figures are the "
			       "program's own clock_gettime, in this run %s. Read and "
			       "write bandwidth are one thread's stream where one ran.\n\n",
			       result_measured_with(r),
			       r->timing_model ? " The timing model was loaded." : "",
			       result_clock_words(r, "guest"));
	nodes_md(s, r);
	g_string_append(s, "\n## Hosts\n\n| host | memdevs | boot to ready s | kernel | QEMU ended |\n|---|---|---|---|---|\n");
	for (guint i = 0; i < r->hosts->len; i++) {
		const struct res_host *h = g_ptr_array_index(r->hosts, i);

		g_string_append_c(s, '|');
		md_cell(s, h->name);
		g_string_append_printf(s, " %d |", h->memdevs);
		md_measure(s, h->boot_ready_s, "%.2f");
		md_cell(s, h->kernel);
		md_cell(s, h->exit);
		g_string_append_c(s, '\n');
	}
	program_report_md(s, r);
	policy_report_md(s, r);
	if (r->pool)
		pool_report_md(s, r->pool);
	fault_report_md(s, r);
	kv_report_md(s, r);
	g_string_append(s, "\n## Checks\n\n| check | result | detail |\n|---|---|---|\n");
	for (guint i = 0; i < r->checks->len; i++) {
		const struct res_check *c = g_ptr_array_index(r->checks, i);

		g_string_append_c(s, '|');
		md_cell(s, c->name);
		g_string_append_printf(s, " %s |", c->pass ? "pass" : "**FAIL**");
		md_cell(s, c->detail ? c->detail : "");
		g_string_append_c(s, '\n');
	}
	g_string_append(s, "\nFiles: `report.html` (the page to read, with the topology drawn), "
			   "`summary.json`, `state.json` (how far the run got and how it "
			   "ended, docs/run-state.md), `console-HOST.log` (guest serial console), "
			   "`qmp-HOST.log` (QMP and agent traffic), `qemu-HOST.log` (QEMU's own output)"
			   ", `workload-HOST-NAME.log` (each program's whole output).\n");
	{
		/* the plots it links sit beside it */
		g_autofree char *dir = g_path_get_dirname(path);

		if (!policy_report_write_svgs(r, dir, error))
			return false;
	}
	return g_file_set_contents(path, s->str, s->len, error);
}
