/* SPDX-License-Identifier: MIT */
#include "qemu/agent.h"

#include <gio/gio.h>

void agent_free(struct agent *a)
{
	if (!a)
		return;
	jsonline_free(a->conn);
	if (a->hello)
		json_object_unref(a->hello);
	g_queue_clear_full(&a->events, (GDestroyNotify)json_object_unref);
	g_free(a);
}

/*
 * The agent greets every second until a request arrives. A hello can be
 * missed (one was, once in 50 fault runs, on the FM's channel: nothing
 * came in 60 s); a request every NUDGE_US makes the agent greet at once,
 * woken by the port rather than by its own timer.
 */
#define NUDGE_US (3 * G_USEC_PER_SEC)

struct agent *agent_connect(const char *socket_path, FILE *log,
			    gint64 deadline_us, GError **error)
{
	return agent_connect_watched(socket_path, log, deadline_us, NULL, NULL, error);
}

struct agent *agent_connect_watched(const char *socket_path, FILE *log,
				    gint64 deadline_us,
				    char *(*hung)(void *ctx), void *ctx,
				    GError **error)
{
	int fd = jsonline_connect_unix(socket_path, deadline_us, error);
	struct agent *a;

	if (fd < 0)
		return NULL;
	a = g_new0(struct agent, 1);
	g_queue_init(&a->events);
	a->conn = jsonline_new(fd, log, "agent");
	for (;;) {
		gint64 nudge_at = g_get_monotonic_time() + NUDGE_US;
		g_autoptr(GError) err = NULL;
		JsonObject *msg = jsonline_read(a->conn, MIN(deadline_us, nudge_at), &err);

		if (!msg && g_error_matches(err, G_IO_ERROR, G_IO_ERROR_TIMED_OUT) &&
		    nudge_at < deadline_us) {
			g_autofree char *why = hung ? hung(ctx) : NULL;

			if (why) {
				g_set_error(error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
					    "waiting for the guest agent: %s", why);
				agent_free(a);
				return NULL;
			}
			/* no hello yet: a request makes the agent greet at once */
			if (agent_send(a, "ping", NULL, NULL))
				continue;
		}
		if (!msg) {
			g_propagate_prefixed_error(error, g_steal_pointer(&err),
						   "waiting for the guest agent: ");
			agent_free(a);
			return NULL;
		}
		if (!g_strcmp0(json_object_get_string_member_with_default(msg, "event", ""),
			       "hello")) {
			a->hello = msg;
			return a;
		}
		json_object_unref(msg);
	}
}

JsonObject *agent_match_reply(struct agent *a, JsonObject *msg, guint id,
			      bool *done, GError **error)
{
	*done = false;
	if (json_object_has_member(msg, "event")) {
		/* Repeated hellos before our first request are expected. */
		if (g_strcmp0(json_object_get_string_member(msg, "event"), "hello"))
			g_queue_push_tail(&a->events, json_object_ref(msg));
		return NULL;
	}
	if (!json_object_has_member(msg, "id") ||
	    json_object_get_int_member(msg, "id") != id)
		return NULL;
	*done = true;
	if (!json_object_get_boolean_member_with_default(msg, "ok", FALSE)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s",
			    json_object_get_string_member_with_default(msg, "error",
								       "agent error without message"));
		return NULL;
	}
	if (json_object_has_member(msg, "result") &&
	    JSON_NODE_HOLDS_OBJECT(json_object_get_member(msg, "result")))
		return json_object_ref(json_object_get_object_member(msg, "result"));
	return json_object_new();
}

guint agent_send(struct agent *a, const char *cmd, JsonObject *args,
		 GError **error)
{
	g_autoptr(JsonObject) req = json_object_new();
	guint id = ++a->next_id;

	json_object_set_int_member(req, "id", id);
	json_object_set_string_member(req, "cmd", cmd);
	json_object_set_object_member(req, "args",
				      args ? json_object_ref(args) : json_object_new());
	if (!jsonline_write(a->conn, req, error)) {
		g_prefix_error(error, "agent %s: ", cmd);
		return 0;
	}
	return id;
}

JsonObject *agent_call(struct agent *a, const char *cmd, JsonObject *args,
		       gint64 deadline_us, GError **error)
{
	guint id = agent_send(a, cmd, args, error);

	if (!id)
		return NULL;
	return agent_wait(a, cmd, id, deadline_us, error);
}

JsonObject *agent_wait(struct agent *a, const char *cmd, guint id,
		       gint64 deadline_us, GError **error)
{
	for (;;) {
		g_autoptr(JsonObject) msg = jsonline_read(a->conn, deadline_us, error);
		bool done;
		JsonObject *res;

		if (!msg) {
			g_prefix_error(error, "agent %s: ", cmd);
			return NULL;
		}
		res = agent_match_reply(a, msg, id, &done, error);
		if (done) {
			if (!res)
				g_prefix_error(error, "agent %s: ", cmd);
			return res;
		}
	}
}
