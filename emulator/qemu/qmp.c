/* SPDX-License-Identifier: MIT */
#include "qemu/qmp.h"

#include <gio/gio.h>
#include <string.h>

void qmp_free(struct qmp *q)
{
	if (!q)
		return;
	jsonline_free(q->conn);
	g_queue_clear_full(&q->events, (GDestroyNotify)json_object_unref);
	g_free(q->qemu_version);
	g_free(q);
}

struct qmp *qmp_connect(const char *socket_path, FILE *log,
			gint64 deadline_us, GError **error)
{
	struct qmp *q;
	JsonObject *greeting;
	JsonNode *ret;
	int fd = jsonline_connect_unix(socket_path, deadline_us, error);

	if (fd < 0)
		return NULL;
	q = g_new0(struct qmp, 1);
	g_queue_init(&q->events);
	q->conn = jsonline_new(fd, log, "qmp");
	greeting = jsonline_read(q->conn, deadline_us, error);
	if (!greeting || !json_object_has_member(greeting, "QMP")) {
		if (greeting) {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
				    "no QMP greeting on %s", socket_path);
			json_object_unref(greeting);
		}
		qmp_free(q);
		return NULL;
	}
	JsonObject *qmp = json_object_get_object_member(greeting, "QMP");
	JsonObject *ver = qmp && json_object_has_member(qmp, "version") ?
		json_object_get_object_member(qmp, "version") : NULL;
	JsonObject *qv = ver && json_object_has_member(ver, "qemu") ?
		json_object_get_object_member(ver, "qemu") : NULL;
	if (qv)
		q->qemu_version = g_strdup_printf("%" G_GINT64_FORMAT ".%" G_GINT64_FORMAT ".%" G_GINT64_FORMAT,
			json_object_get_int_member(qv, "major"),
			json_object_get_int_member(qv, "minor"),
			json_object_get_int_member(qv, "micro"));
	json_object_unref(greeting);

	ret = qmp_execute(q, "qmp_capabilities", NULL, deadline_us, error);
	if (!ret) {
		qmp_free(q);
		return NULL;
	}
	json_node_unref(ret);
	return q;
}

JsonNode *qmp_execute(struct qmp *q, const char *command, JsonObject *args,
		      gint64 deadline_us, GError **error)
{
	g_autoptr(JsonObject) req = json_object_new();
	guint id = ++q->next_id;

	json_object_set_string_member(req, "execute", command);
	if (args)
		json_object_set_object_member(req, "arguments",
					      json_object_ref(args));
	json_object_set_int_member(req, "id", id);
	if (!jsonline_write(q->conn, req, error))
		return NULL;

	for (;;) {
		JsonObject *msg = jsonline_read(q->conn, deadline_us, error);

		if (!msg) {
			g_prefix_error(error, "QMP %s: ", command);
			return NULL;
		}
		if (json_object_has_member(msg, "event")) {
			g_queue_push_tail(&q->events, msg);
			continue;
		}
		if (!json_object_has_member(msg, "id") ||
		    json_object_get_int_member(msg, "id") != id) {
			json_object_unref(msg);	/* stale reply: ignore */
			continue;
		}
		if (json_object_has_member(msg, "error")) {
			JsonObject *e = json_object_get_object_member(msg, "error");

			g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED,
				    "QMP %s failed: %s: %s", command,
				    json_object_get_string_member_with_default(e, "class", "?"),
				    json_object_get_string_member_with_default(e, "desc", "?"));
			json_object_unref(msg);
			return NULL;
		}
		JsonNode *ret = json_object_get_member(msg, "return");
		JsonNode *out = ret ? json_node_copy(ret) : json_node_new(JSON_NODE_OBJECT);

		if (!ret)
			json_node_take_object(out, json_object_new());
		json_object_unref(msg);
		return out;
	}
}

static JsonObject *take_queued(struct qmp *q, const char *name)
{
	for (GList *l = q->events.head; l; l = l->next) {
		JsonObject *ev = l->data;

		if (!name || !g_strcmp0(json_object_get_string_member(ev, "event"), name)) {
			g_queue_delete_link(&q->events, l);
			return ev;
		}
	}
	return NULL;
}

bool qmp_event_seen(struct qmp *q, const char *name)
{
	for (GList *l = q->events.head; l; l = l->next)
		if (!g_strcmp0(json_object_get_string_member(l->data, "event"), name))
			return true;
	return false;
}

JsonObject *qmp_wait_event(struct qmp *q, const char *name,
			   gint64 deadline_us, GError **error)
{
	for (;;) {
		JsonObject *ev = take_queued(q, name);

		if (ev)
			return ev;
		JsonObject *msg = jsonline_read(q->conn, deadline_us, error);
		if (!msg)
			return NULL;
		if (json_object_has_member(msg, "event"))
			g_queue_push_tail(&q->events, msg);
		else
			json_object_unref(msg);
	}
}
