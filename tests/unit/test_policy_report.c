/* SPDX-License-Identifier: MIT */
/*
 * How report.md reads a cxlbed-pool workload's policies, without QEMU:
 * the workload's own reading, a policy over its local limit called out as
 * not comparable, a policy whose pages went back and forth named with its
 * migrations, and the spread of those that held the limit.
 */
#include "tap.h"
#include "policy_report.h"
#include "report_test.h"

/* GUPS as a run measured it (2026-11-24): tpp ended with the whole table
 * local against a 1 MiB limit. */
static const char summary[] =
	"{\"workloads\": [{\"host\": \"h0\", \"name\": \"gups\", \"program\": \"cxlbed-pool\","
	" \"node\": -1, \"ok\": true, \"output\": {\"workload\": \"pool\", \"kind\": \"gups\","
	" \"reading\": \"No hot set.\", \"local_fraction\": 0.25, \"policies\": ["
	"  {\"policy\": \"all-local\", \"ok\": true, \"same_result\": true, \"local_limit\": 0,"
	"   \"guest_ms\": 99.3, \"fast_bytes_max\": 4194304, \"hit_ratio\": 1},"
	"  {\"policy\": \"first-touch\", \"ok\": true, \"same_result\": true, \"local_limit\": 1048576,"
	"   \"guest_ms\": 189.4, \"fast_bytes_max\": 1048576, \"hit_ratio\": 0.25},"
	"  {\"policy\": \"tpp\", \"ok\": true, \"same_result\": true, \"local_limit\": 1048576,"
	"   \"guest_ms\": 173.1, \"fast_bytes_max\": 4194304, \"hit_ratio\": 0.52},"
	"  {\"policy\": \"damon\", \"ok\": true, \"same_result\": true, \"local_limit\": 1048576,"
	"   \"data_bytes\": 4194304, \"guest_ms\": 224.0, \"fast_bytes_max\": 1048576,"
	"   \"hit_ratio\": 0.2, \"pages\": {\"promoted\": 768, \"demoted\": 700, \"hint_faults\": 9},"
	"   \"moved_bytes\": 6012928},"
	"  {\"policy\": \"interleave\", \"ok\": true, \"same_result\": true, \"local_limit\": 1048576,"
	"   \"data_bytes\": 4194304, \"guest_ms\": 189.5, \"fast_bytes_max\": 1048576,"
	"   \"hit_ratio\": 0.25, \"pages\": {\"promoted\": 768, \"demoted\": 100, \"hint_faults\": 0}},"
	"  {\"policy\": \"libcxlpool\", \"ok\": true, \"same_result\": true, \"local_limit\": 1048576,"
	"   \"guest_ms\": 193.9, \"fast_bytes_max\": 1048576, \"hit_ratio\": 0.25}]}}]}";

static GString *render(const char *json)
{
	return render_section(json, policy_report_md);
}

int main(void)
{
	g_autoptr(GString) md = render(summary);

	plan(6);
	ok(strstr(md->str, "\nNo hot set. ") != NULL, "the workload's own reading comes first");
	ok(strstr(md->str, "tpp held up to 4.0 MiB in local DRAM against its limit of 1.0 MiB: "
		  "its time is not comparable") != NULL, "a policy over its limit is called out");
	ok(strstr(md->str, "The 4 policies that held the local limit took 189.4 to 224.0 ms: "
		  "the slowest 18.3% over the fastest.") != NULL,
	   "the spread counts only the policies that held the limit (not all-local, not tpp)");
	ok(strstr(md->str, "damon promoted 3.0 MiB and demoted 2.7 MiB of a 4.0 MiB data set: "
		  "pages went back and forth between the tiers, and its time includes those "
		  "migrations and the hint faults behind them (9).") != NULL,
	   "a policy that moved pages both ways is named with its migrations");
	ok(strstr(md->str, "interleave promoted") == NULL,
	   "one that moved them one way only (under a tenth of the data back) is not");
	ok(strstr(md->str, "| tpp | yes | 173.1 | 1.74x | 0.520 |") != NULL,
	   "the table still lists every policy");
	if (tap_failed)
		diag("%s", md->str);
	return tap_failed ? 1 : 0;
}
