/* SPDX-License-Identifier: MIT */
/*
 * report.md's faults section from summary.json's faults[] without QEMU:
 * the fault's row, and a row per host when one fault reached several
 * hosts (a shared pool node), `-` where a figure is missing.
 */
#include "tap.h"
#include "results/fault_report.h"
#include "report_test.h"

/* One kill seen by two hosts; h1's figures partly missing. */
static const char summary[] =
	"{\"fault_seed\": 7, \"faults\": [{\"name\": \"kill-p1\", \"kind\": \"kill-pool-node\","
	" \"target\": \"p1\", \"fired\": true, \"injected\": {\"ok\": true, \"t_s\": 56.3},"
	" \"detection_ns\": 168000, \"resumed_ns\": 475000, \"bytes_at_risk\": 11141120,"
	" \"bytes_lost\": 0, \"recovery\": {\"gibps\": 1.35, \"reprotected_ns\": 5678000},"
	" \"workload\": {\"host\": \"h1\", \"workload\": \"kv\", \"degraded_vs_normal\": 0.91},"
	" \"workloads\": [{\"host\": \"h0\", \"workload\": \"kv\", \"degraded_vs_normal\": 1.01},"
	"                {\"host\": \"h1\", \"workload\": \"kv\", \"degraded_vs_normal\": 0.91}],"
	" \"detections\": ["
	"  {\"host\": \"h0\", \"workload\": \"kv\", \"cause\": \"checksum\", \"detection_ns\": 168000,"
	"   \"detected_modeled_ns\": 2.4e9, \"stall_ns\": 74000, \"repair_gibps\": 0.95, \"bytes_lost\": 0},"
	"  {\"host\": \"h1\", \"workload\": \"kv\", \"cause\": \"canary\", \"bytes_lost\": 1048576}]}]}";

static GString *render(const char *json)
{
	return render_section(json, fault_report_md);
}

int main(void)
{
	g_autoptr(GString) one = NULL;
	g_autoptr(GString) md = render(summary);

	plan(6);
	ok(strstr(md->str, "| kill-p1 | kill-pool-node | p1 | 56.30 | 0.168 | 0.475 | 5.678 |"
		  " 1.35 | 10.6 | 0.0 | 0.91 |\n") != NULL,
	   "the fault's row: times in modeled ms, its worst workload's degraded/normal");
	ok(strstr(md->str, "| kill-p1 | h0 | kv | checksum | 0.168 | 0.242 | 0.95 | 0.0 | 1.01 |\n")
	   != NULL, "h0's row: served again = detection + stall");
	ok(strstr(md->str, "| kill-p1 | h1 | kv | canary | - | - | - | 1.0 | 0.91 |\n") != NULL,
	   "h1's row: missing figures are -, its loss and its own degraded/normal");
	ok(strstr(md->str, "--fault-seed 7") != NULL, "the replay command carries the seed");
	/* one detection only: no per-host table */
	{
		g_autofree char *single = g_strdup(summary);
		char *second = strstr(single, ",  {\"host\": \"h1\"");

		if (second)
			strcpy(second, "]}]}");
		one = render(single);
	}
	ok(strstr(one->str, "| kill-p1 | kill-pool-node |") != NULL, "one detection: the fault's row");
	ok(strstr(one->str, "Each host's view") == NULL, "one detection: no per-host rows");
	if (tap_failed)
		diag("%s", md->str);
	return tap_failed ? 1 : 0;
}
