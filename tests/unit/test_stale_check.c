/* SPDX-License-Identifier: MIT */
/*
 * Stale reads per workload, without QEMU: a timing report's per-program
 * counts become the workload's output.stale_reads and its check
 * stale:NAME:HOST (emulator/run/stale_check.h); a workload that does not
 * say how it shares gets neither.
 */
#include <glib/gstdio.h>
#include <stdio.h>

#include "run/stale_check.h"
#include "tap.h"

/* A report as the plugin writes it (docs/kv-share.md), host counts and
 * the program's own since its first marker. */
static char *report_with(const char *dir, const char *stale)
{
	char *path = g_build_filename(dir, "timing-h1.json", NULL);
	g_autofree char *text = g_strdup_printf("{ \"rois\": [], %s }\n", stale);

	g_file_set_contents(path, text, -1, NULL);
	return path;
}

static JsonObject *output_with(const char *protocol)
{
	JsonObject *o = json_object_new();

	json_object_set_string_member(o, "workload", "kvshare");
	if (protocol)
		json_object_set_string_member(o, "shared_protocol", protocol);
	return o;
}

static const struct res_check *last_check(const struct run_result *r)
{
	return r->checks->len ? g_ptr_array_index(r->checks, r->checks->len - 1) : NULL;
}

int main(void)
{
	g_autofree char *dir = g_dir_make_tmp("stale-check-XXXXXX", NULL);
	g_autoptr(run_result) r = result_new();
	const struct res_check *c;
	JsonObject *out, *s;
	char *rep;

	plan(8);
	rep = report_with(dir, "\"stale_reads\": { \"watched\": \"shared regions\", "
			  "\"not_invalidated\": 700, \"not_flushed\": 512, \"flushes\": 9, "
			  "\"program\": { \"not_invalidated\": 0, \"not_flushed\": 0, \"flushes\": 9 }, "
			  "\"events\": [] }");
	out = output_with("flush-invalidate");
	stale_check_workload(r, out, rep, true, "decode", "h1");
	c = last_check(r);
	ok(c && !strcmp(c->name, "stale:decode:h1") && c->pass,
	   "no stale read of its own: the check passes (the boot's 1212 are not its)");
	s = json_object_get_object_member(out, "stale_reads");
	ok(s && json_object_get_int_member(s, "flushes") == 9 &&
	   json_array_get_length(json_object_get_array_member(s, "events")) == 0,
	   "its counts in the output");
	json_object_unref(out);
	g_free(rep);

	rep = report_with(dir, "\"stale_reads\": { \"watched\": \"shared regions\", "
			  "\"not_invalidated\": 4096, \"not_flushed\": 0, \"flushes\": 3, "
			  "\"program\": { \"not_invalidated\": 4096, \"not_flushed\": 0, \"flushes\": 3 }, "
			  "\"events\": [ { \"kind\": \"not_invalidated\", \"offset\": 1048576, "
			  "\"pc\": \"0x555555557000\", \"t_ns\": 200 } ] }");
	out = output_with("no-invalidate");
	stale_check_workload(r, out, rep, true, "decode-stale", "h1");
	c = last_check(r);
	ok(c && !c->pass && strstr(c->detail, "4096 loads") &&
	   strstr(c->detail, "no-invalidate"),
	   "loads not invalidated: the check fails and says how many");
	s = json_object_get_object_member(out, "stale_reads");
	ok(s && json_object_get_int_member(s, "not_invalidated") == 4096 &&
	   json_array_get_length(json_object_get_array_member(s, "events")) == 1,
	   "... with the first load's offset and call site in the output");
	json_object_unref(out);

	out = output_with("flush-invalidate");
	stale_check_workload(r, out, rep, false, "decode-3", "h1");
	c = last_check(r);
	ok(c && !c->pass && !strcmp(c->name, "stale:decode-3:h1"),
	   "a report this run did not write: no pass on old figures");
	json_object_unref(out);

	out = output_with(NULL);
	stale_check_workload(r, out, rep, true, "stream", "h1");
	ok(r->checks->len == 3 && !json_object_has_member(out, "stale_reads"),
	   "a workload that does not say how it shares: no check");
	json_object_unref(out);
	g_free(rep);

	rep = report_with(dir, "\"stale_reads\": null");
	out = output_with("flush");
	stale_check_workload(r, out, rep, true, "prefill", "h0");
	c = last_check(r);
	ok(c && !c->pass && strstr(c->detail, "watched no shared memory"),
	   "no shared memory watched: the check fails, saying why");
	json_object_unref(out);
	out = output_with("flush");
	stale_check_workload(r, out, "/nonexistent/timing-h0.json", true, "prefill-2", "h0");
	c = last_check(r);
	ok(c && !c->pass, "no report at all: fails");
	json_object_unref(out);
	g_unlink(rep);
	g_free(rep);
	g_rmdir(dir);
	return done_testing();
}
