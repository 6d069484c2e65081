/* SPDX-License-Identifier: MIT */
/* Framing shared by QMP and the agent channel: lines, limits, bad input. */
#include "tap.h"
#include "qemu/agent.h"
#include "qemu/jsonline.h"

#include <gio/gio.h>
#include <sys/socket.h>
#include <unistd.h>

static gint64 soon(void) { return g_get_monotonic_time() + 2 * G_USEC_PER_SEC; }

int main(void)
{
	int sv[2];
	struct jsonline *c;
	JsonObject *o;
	GError *err = NULL;

	plan(17);

	/*
	 * A stream that has received nothing yet (every QMP and agent
	 * connection starts so): its buffer has no data at all, and looking
	 * for a newline in it was memchr(NULL, ...), which UBSan (make
	 * check-asan) reports.
	 */
	c = jsonline_new(-1, NULL, "t");
	o = jsonline_read(c, soon(), &err);
	ok(!o && g_error_matches(err, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED),
	   "nothing received yet: connection closed, no read of a NULL buffer");
	g_clear_error(&err);
	jsonline_free(c);

	/* Two messages in one chunk, the second split across reads. */
	c = jsonline_new(-1, NULL, "t");
	jsonline_feed(c, "{\"a\":1}\n{\"b\":", 13);
	o = jsonline_read(c, soon(), &err);
	ok(o && json_object_get_int_member(o, "a") == 1, "first of two messages in one read");
	json_object_unref(o);
	jsonline_feed(c, "2}\n\n", 4);
	o = jsonline_read(c, soon(), &err);
	ok(o && json_object_get_int_member(o, "b") == 2, "message split across reads is reassembled");
	json_object_unref(o);
	o = jsonline_read(c, soon(), &err);
	ok(!o && g_error_matches(err, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED),
	   "blank line skipped, then no data is an error, not a hang");
	g_clear_error(&err);
	jsonline_free(c);

	/* Not JSON, and JSON that is not an object. */
	c = jsonline_new(-1, NULL, "t");
	jsonline_feed(c, "hello\n[1,2]\n{\"ok\":true}\n", 24);
	o = jsonline_read(c, soon(), &err);
	ok(!o && g_error_matches(err, G_IO_ERROR, G_IO_ERROR_INVALID_DATA), "non-JSON line rejected");
	g_clear_error(&err);
	o = jsonline_read(c, soon(), &err);
	ok(!o && g_error_matches(err, G_IO_ERROR, G_IO_ERROR_INVALID_DATA), "JSON array rejected");
	g_clear_error(&err);
	o = jsonline_read(c, soon(), &err);
	ok(o != NULL, "stream recovers after a bad line");
	if (o)
		json_object_unref(o);
	jsonline_free(c);

	/*
	 * A line nested 200,000 deep: json-glib's parser recursed into a
	 * stack overflow (issue 34); refused, and the next line is read.
	 */
	c = jsonline_new(-1, NULL, "t");
	{
		GString *deep = g_string_new(NULL);

		for (int i = 0; i < 200000; i++)
			g_string_append_c(deep, '[');
		g_string_append(deep, "\n{\"ok\":true}\n");
		jsonline_feed(c, deep->str, deep->len);
		g_string_free(deep, TRUE);
	}
	o = jsonline_read(c, soon(), &err);
	ok(!o && g_error_matches(err, G_IO_ERROR, G_IO_ERROR_INVALID_DATA) &&
	   strstr(err->message, "nested deeper than 64"), "200,000 nested '[' refused, no crash");
	g_clear_error(&err);
	o = jsonline_read(c, soon(), &err);
	ok(o && json_object_get_boolean_member(o, "ok"), "and the line after it is read");
	if (o)
		json_object_unref(o);
	jsonline_free(c);

	/* Over-long line without a newline. */
	c = jsonline_new(-1, NULL, "t");
	{
		char *big = g_malloc(JSONLINE_MAX + 10);

		memset(big, 'x', JSONLINE_MAX + 10);
		jsonline_feed(c, big, JSONLINE_MAX + 10);
		g_free(big);
	}
	o = jsonline_read(c, soon(), &err);
	ok(!o && g_error_matches(err, G_IO_ERROR, G_IO_ERROR_INVALID_DATA), "over-long line rejected");
	g_clear_error(&err);
	jsonline_free(c);

	/* Over a real socket: write, read, timeout, EOF. */
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	struct jsonline *a = jsonline_new(sv[0], NULL, "a");
	struct jsonline *b = jsonline_new(sv[1], NULL, "b");
	JsonObject *msg = json_object_new();

	json_object_set_string_member(msg, "cmd", "ping\nwith newline");
	ok(jsonline_write(a, msg, &err), "write a message");
	o = jsonline_read(b, soon(), &err);
	is_str(o ? json_object_get_string_member(o, "cmd") : NULL, "ping\nwith newline",
	       "embedded newline survives the framing (escaped)");
	if (o)
		json_object_unref(o);
	gint64 t0 = g_get_monotonic_time();
	o = jsonline_read(b, g_get_monotonic_time() + 200 * 1000, &err);
	ok(!o && g_error_matches(err, G_IO_ERROR, G_IO_ERROR_TIMED_OUT) &&
	   g_get_monotonic_time() - t0 < G_USEC_PER_SEC, "read times out at its deadline");
	g_clear_error(&err);
	jsonline_free(a);
	o = jsonline_read(b, soon(), &err);
	ok(!o && g_error_matches(err, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED), "peer close is EOF");
	g_clear_error(&err);
	jsonline_free(b);
	json_object_unref(msg);

	/* Agent reply matching: events queued, other ids ignored, errors carried. */
	struct agent ag = { 0 };
	bool done;
	g_queue_init(&ag.events);
	c = jsonline_new(-1, NULL, "t");
	jsonline_feed(c, "{\"event\":\"log\",\"msg\":\"x\"}\n{\"id\":1,\"ok\":true,\"result\":{}}\n"
		      "{\"id\":2,\"ok\":false,\"error\":\"no such window\"}\n", 102);
	o = jsonline_read(c, soon(), &err);
	ok(!agent_match_reply(&ag, o, 2, &done, &err) && !done && ag.events.length == 1,
	   "agent event is queued, not taken as the reply");
	json_object_unref(o);
	o = jsonline_read(c, soon(), &err);
	ok(!agent_match_reply(&ag, o, 2, &done, &err) && !done, "reply to another id is skipped");
	json_object_unref(o);
	o = jsonline_read(c, soon(), &err);
	ok(!agent_match_reply(&ag, o, 2, &done, &err) && done && err &&
	   strstr(err->message, "no such window"), "agent error reply carries its message");
	json_object_unref(o);
	g_clear_error(&err);
	g_queue_clear_full(&ag.events, (GDestroyNotify)json_object_unref);
	jsonline_free(c);
	return done_testing();
}
