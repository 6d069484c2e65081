/* SPDX-License-Identifier: MIT */
/*
 * A user program whose working set fits in the modeled LLC measures the
 * cache, not the path: its working set from its command line
 * (working_set.c) or from the lines its run read from memory (the timing
 * merge, command_workload.c), and the warning the run then records.
 */
#include "tap.h"
#include "run/command_workload.h"
#include "run/timing_run.h"
#include "run/working_set.h"

#include <glib/gstdio.h>

#define MIB (1024 * 1024ull)

static void command_lines(void)
{
	uint64_t b = 0;
	g_autofree char *how = NULL, *h2 = NULL, *h3 = NULL, *h4 = NULL;

	bool known = working_set_of_command("numactl --membind=1 sysbench memory --time=0 "
					    "--memory-block-size=1M --memory-total-size=1G run",
					    &b, &how);

	ok(known && b == MIB && strstr(how, "1M") && strstr(how, "global"),
	   "sysbench memory --memory-block-size=1M under numactl: one 1 MiB block (%s)", how);
	ok(working_set_of_command("/usr/bin/sysbench --threads=4 memory run", &b, &h2) &&
	   b == 1024, "its default block is 1K, shared by every thread (global scope)");
	known = working_set_of_command("sysbench memory --memory-scope=local --threads=4 "
				       "--memory-block-size=64k run", &b, &h3);
	ok(known && b == 256 * 1024 && strstr(h3, "4 thread"),
	   "local scope: a block (64k) for each thread (%s)", h3);
	ok(working_set_of_command("sysbench memory --memory-block-size=1M run && "
				  "sysbench memory --memory-block-size=8M run", &b, &h4) &&
	   b == MIB, "the options of the first sysbench, up to the shell's &&");
	ok(!working_set_of_command("sysbench cpu run", &b, &how) &&
	   !working_set_of_command("redis-benchmark -n 192000 -t set", &b, &how) &&
	   !working_set_of_command("sysbench 'memory", &b, &how) &&
	   !working_set_of_command("sysbench memory --memory-block-size=lots run", &b, &how),
	   "not known from the line: another test, another program, bad quoting, a bad size");
}

/* A command's output after the timing merge; its ROI read @lines from memory. */
static JsonObject *merged(const char *dir, const char *command, gint64 lines)
{
	g_autofree char *report = g_build_filename(dir, "timing-h0.json", NULL);
	g_autofree char *json = g_strdup_printf(
		"{\"rois\":[{\"id\":2000,\"modeled_ns\":5e8,\"begin_ns\":0,\"end_ns\":5e8,"
		"\"mem_reads_local\":%" G_GINT64_FORMAT ",\"mem_reads_cxl\":%" G_GINT64_FORMAT "}]}",
		lines / 4, lines - lines / 4);
	g_autoptr(JsonObject) reply = json_object_new();
	JsonObject *out;

	g_file_set_contents(report, json, -1, NULL);
	json_object_set_int_member(reply, "exit", 0);
	json_object_set_int_member(reply, "roi", 2000);
	json_object_set_string_member(reply, "stdout", "");
	json_object_set_string_member(reply, "stderr", "");
	out = command_output(reply, command, "workload-h0-x.log");
	if (!timing_merge(out, report, 0, NULL))
		diag("timing_merge failed");
	command_add_modeled(out);
	g_unlink(report);
	return out;
}

static JsonObject *ws_of(JsonObject *out)
{
	return json_object_has_member(out, "working_set") ?
		json_object_get_object_member(out, "working_set") : NULL;
}

static void warnings(void)
{
	g_autofree char *dir = g_dir_make_tmp("cxlbed-ws-XXXXXX", NULL);
	const char *sb1 = "numactl --membind=1 sysbench memory --memory-block-size=1M run";
	const char *sb4 = "numactl --membind=1 sysbench memory --memory-block-size=4M run";
	JsonObject *out, *ws;
	char *w;

	out = merged(dir, sb1, 1000000);
	w = command_llc_warning(out, sb1, 32 * MIB, 64);
	ws = ws_of(out);
	ok(w && strstr(w, "(1 MiB: sysbench memory") && strstr(w, "cache (32 MiB)") && strstr(w, "measure the cache") &&
	   ws && json_object_get_boolean_member(ws, "fits_llc") &&
	   !strcmp(json_object_get_string_member(ws, "from"), "command line"),
	   "a 1 MiB block on a 32 MiB LLC: warned, from the command line (%s)", w ? w : "none");
	g_free(w);
	json_object_unref(out);

	out = merged(dir, sb4, 40);
	w = command_llc_warning(out, sb4, MIB, 64);
	ws = ws_of(out);
	ok(!w && ws && !json_object_get_boolean_member(ws, "fits_llc") &&
	   json_object_get_int_member(ws, "bytes") == (gint64)(4 * MIB),
	   "a 4 MiB block on a 1 MiB LLC: no warning, recorded as not fitting");
	json_object_unref(out);

	out = merged(dir, "redis-benchmark -n 1000", 4096);
	w = command_llc_warning(out, "redis-benchmark -n 1000", MIB, 64);
	ws = ws_of(out);
	ok(w && ws && !strcmp(json_object_get_string_member(ws, "from"), "memory reads") &&
	   json_object_get_int_member(ws, "bytes") == 4096 * 64 && strstr(w, "(0.25 MiB: 4096 lines"),
	   "an unknown program that read 256 KiB from memory (local and CXL): warned (%s)",
	   w ? w : "none");
	g_free(w);
	json_object_unref(out);

	out = merged(dir, "redis-benchmark -n 1000", 20000);
	w = command_llc_warning(out, "redis-benchmark -n 1000", MIB, 64);
	ok(!w && ws_of(out) && json_object_get_int_member(ws_of(out), "bytes") == 20000 * 64,
	   "... one that read 1.2 MiB through a 1 MiB LLC: no warning");
	json_object_unref(out);
	g_rmdir(dir);
}

int main(void)
{
	plan(9);
	command_lines();
	warnings();
	return done_testing();
}
