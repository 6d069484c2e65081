/* SPDX-License-Identifier: MIT */
/* The end-of-run table on the terminal: per host, per node, then checks. */
#include "results/figures.h"
#include "results/result.h"

void result_print_table(const struct run_result *r, FILE *out)
{
	fprintf(out, "\nrun %s  topology %s  scenario %s\n", r->run_id,
		r->topology_name ? r->topology_name : r->topology, r->scenario);
	fprintf(out, "figures: %s%s\n\n", result_measured_with(r),
		r->timing_model ? " [timing model loaded]" : "");
	fprintf(out, "%-8s %4s %-5s %9s %10s %9s %9s %-7s  %s\n", "host", "node",
		"kind", "size MiB", "lat ns", "rd GB/s", "wr GB/s", "clock", "path");
	for (guint i = 0; i < r->hosts->len; i++) {
		const struct res_host *h = g_ptr_array_index(r->hosts, i);

		for (guint j = 0; j < h->nodes->len; j++) {
			const struct res_node *n = g_ptr_array_index(h->nodes, j);
			char lat[32], rd[32], wr[32], label[16];

			fig_format(lat, sizeof(lat), n->latency_ns, "%.1f");
			fig_format(rd, sizeof(rd), n->read_gbps, "%.3f");
			fig_format(wr, sizeof(wr), n->write_gbps, "%.3f");
			fprintf(out, "%-8s %4s %-5s %9llu %10s %9s %9s %-7s  %s\n",
				h->name, result_node_label(n, label, sizeof(label)), n->kind ? n->kind : "?",
				(unsigned long long)(n->mem_bytes >> 20), lat, rd,
				wr, n->clock ? n->clock : "-", n->path ? n->path : "");
		}
		fprintf(out, "%-8s memdevs %d, ready in %.1f s, QEMU %s\n", h->name,
			h->memdevs, h->boot_ready_s, h->exit ? h->exit : "-");
	}
	fprintf(out, "\n");
	for (guint i = 0; i < r->checks->len; i++) {
		const struct res_check *c = g_ptr_array_index(r->checks, i);

		fprintf(out, "  %s  %-28s %s\n", c->pass ? "PASS" : "FAIL",
			c->name, c->detail ? c->detail : "");
	}
	fprintf(out, "\nverdict: %s   (%s)\n", result_passed(r) ? "pass" : "fail",
		r->out_dir);
}
