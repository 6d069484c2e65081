/* SPDX-License-Identifier: MIT */
/*
 * RUN/fm.sock without QEMU: a fabric manager of pool-lending.topo started
 * in a scratch folder (its worker and control socket up, no host
 * connected). Each bad request of issue 34 #1 (a non-string cmd reached
 * strcmp; a line of 200,000 '[' overflowed json-glib's stack) gets
 * ok:false saying why, through fm_control_answer and over the socket, and
 * the socket and the run go on.
 */
#define SCENARIO_TEST_OWN_BAD	/* no bad scenario here */
#include "scenario_test.h"
#include "fm/fm_priv.h"
#include "common/json_read.h"
#include "qemu/jsonline.h"

#include <sys/socket.h>
#include <unistd.h>

#define TOPO SRCDIR "/topologies/pool-lending.topo"

static struct fm *fm;

/* The reply's error, or "" when it is ok:true; NULL when it is no reply. */
static const char *error_of(JsonObject *reply)
{
	if (!reply || !json_object_has_member(reply, "ok"))
		return NULL;
	if (json_object_get_boolean_member(reply, "ok"))
		return "";
	return json_object_get_string_member_with_default(reply, "error", NULL);
}

static JsonObject *answer(const char *line)
{
	return fm_control_answer(fm, line, strlen(line));
}

static void refused(const char *line, gssize len, const char *why, const char *what)
{
	g_autoptr(JsonObject) reply = fm_control_answer(fm, line, len < 0 ? strlen(line) : (gsize)len);
	const char *err = error_of(reply);

	ok(err && *err && strstr(err, why), "%s: ok:false (%s)", what, err ? err : "no reply");
}

static void test_answers(void)
{
	GString *deep = g_string_new(NULL);
	g_autoptr(JsonObject) first = answer("{\"id\":1,\"cmd\":5}");
	g_autoptr(JsonObject) status = NULL, bind = NULL;

	ok(first && !json_object_get_boolean_member(first, "ok") &&
	   json_object_get_int_member_with_default(first, "id", 0) == 1 &&
	   !strcmp(error_of(first), "cmd: want a string (status, get-ld-info, get-ld-allocations, "
		   "bind-vppb, unbind-vppb), found an integer"),
	   "{\"id\":1,\"cmd\":5} (segfaulted the run): ok:false naming cmd, with its id");
	for (int i = 0; i < 200000; i++)
		g_string_append_c(deep, '[');
	refused(deep->str, deep->len, "nested deeper than 64", "a line of 200,000 '['");
	g_string_free(deep, TRUE);
	refused("{\"cmd\":[\"status\"]}", -1, "cmd: want a string", "cmd as an array");
	refused("{\"id\":2}", -1, "cmd: want a string (status", "no cmd");
	refused("{\"cmd\":\"status\",\"args\":[1]}", -1, "args: want an object, found an array",
		"args as an array");
	refused("{\"cmd\":\"bind-vppb\",\"args\":{\"host\":5,\"ld\":\"p0.ld0\"}}", -1,
		"args.host: want a string, found an integer", "a bind's host as a number");
	refused("{\"cmd\":\"unbind-vppb\",\"args\":{\"ld\":{\"a\":1}}}", -1,
		"args.ld: want a string, found an object", "an unbind's ld as an object");
	refused("{\"cmd\":\"bind-vppb\",\"args\":{\"hots\":\"h0\"}}", -1,
		"args.hots: unknown; bind-vppb takes host, ld, pool, mode", "a misspelt arg");
	refused("{\"cmd\":\"status\",\"args\":{\"ld\":\"p0.ld0\"}}", -1,
		"args.ld: unknown; status takes no args", "status with an arg");
	refused("{\"cmd\":\"status\",\"cmdd\":1}", -1, "member \"cmdd\": unknown",
		"an unknown member");
	refused("{\"cmd\":\"rebind\"}", -1, "unknown command \"rebind\"", "an unknown command");
	refused("{\"id\":1e400,\"cmd\":\"status\"}", -1, "beyond a double's range",
		"an id of 1e400 (its echo would be inf.0)");
	refused("{\"cmd\":\"status\",\"cmd\":\"bind-vppb\"}", -1, "given twice",
		"cmd given twice");
	refused("[\"status\"]", -1, "not a JSON object line: an array", "an array");
	refused("{\"cmd\":\"st\\u0000atus\"}", -1, "\\u0000", "a NUL escape in cmd");

	status = answer("{\"id\":\"s\",\"cmd\":\"status\",\"args\":null}");
	ok(status && !strcmp(error_of(status), "") &&
	   !strcmp(json_object_get_string_member(status, "id"), "s") &&
	   json_object_has_member(json_object_get_object_member(status, "result"), "lds"),
	   "status (args null) answers ok:true with its id, after all of them");
	bind = answer("{\"cmd\":\"bind-vppb\",\"args\":{\"host\":\"h0\",\"ld\":\"p0.ld0\","
		      "\"pool\":null}}");
	ok(bind && error_of(bind) && strstr(error_of(bind), "no fabric-manager channel to h0"),
	   "a well-formed bind reaches the worker (no QEMU here: %s)",
	   bind && error_of(bind) ? error_of(bind) : "no reply");
}

/* The same over RUN/fm.sock: bad lines answered, the connection kept. */
static void test_socket(const char *rundir)
{
	g_autofree char *path = fm_socket_path(rundir);
	gint64 soon = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
	int fd = jsonline_connect_unix(path, soon, NULL);
	struct jsonline *c = fd >= 0 ? jsonline_new(fd, NULL, "t") : NULL;
	GString *send_buf = g_string_new("{\"id\":1,\"cmd\":5}\n");
	const char *want[] = { "cmd: want a string", "nested deeper", "a NUL byte", "" };

	if (!ok(c != NULL, "connected to %s", path))
		return;
	for (int i = 0; i < 200000; i++)
		g_string_append_c(send_buf, '[');
	g_string_append_c(send_buf, '\n');
	g_string_append_len(send_buf, "{\"cmd\":\"status\"\0}\n", 18);
	g_string_append(send_buf, "{\"id\":9,\"cmd\":\"status\"}\n");
	ok(send(fd, send_buf->str, send_buf->len, MSG_NOSIGNAL) == (gssize)send_buf->len,
	   "sent four lines: cmd 5, 200,000 '[', a NUL byte, status");
	for (guint i = 0; i < G_N_ELEMENTS(want); i++) {
		g_autoptr(GError) err = NULL;
		g_autoptr(JsonObject) reply = jsonline_read(c, soon, &err);
		const char *e = error_of(reply);

		ok(e && strstr(e, want[i]) && (*want[i] || *e == 0),
		   "reply %u: %s", i + 1, e ? (*e ? e : "ok:true") : err ? err->message : "none");
	}
	g_string_free(send_buf, TRUE);
	jsonline_free(c);
}

int main(void)
{
	g_autoptr(GError) err = NULL;
	g_autoptr(cb_topology) t = topology_load(TOPO, &err);
	g_autoptr(scenario) s = scenario_default_for(TOPO);
	g_autoptr(run_result) res = result_new();
	struct run_clock clock = { 0 };
	struct fm_config cfg = { .clock = &clock };

	plan(24);
	scratch_dir("cxlbed-fmctl.XXXXXX");	/* its fm.sock */
	cfg.sample_s = s ? s->fm_sample_s : 1;
	run_clock_start(&clock);
	fm = t && s ? fm_new(t, dir, &cfg) : NULL;
	if (!ok(fm && fm_start(fm, &err), "a fabric manager of pool-lending.topo starts without QEMU (%s)",
		err ? err->message : "ok"))
		return 1;
	test_answers();
	test_socket(dir);
	fm_stop(fm);
	json_object_unref(fm_finish(fm, res));
	fm_free(fm);
	return done_testing();
}
