/* SPDX-License-Identifier: MIT */
/*
 * RUN/fm.sock: the fabric manager's control socket, for `cxlbed fm` and
 * for a user's own orchestrator (docs/pooling.md). JSON lines:
 *   -> {"id": 1, "cmd": "bind-vppb", "args": {"ld": "p0.ld1", "host": "h1"}}
 *   <- {"id": 1, "ok": true, "result": {...}}
 *   <- {"id": 1, "ok": false, "error": "...", "refused": true}
 * Commands, after the CXL FM API's: get-ld-info, get-ld-allocations,
 * bind-vppb, unbind-vppb; and status (all of it). Reads answer at once;
 * binds and unbinds queue behind the FM's other operations. A line that
 * is not such a request (not JSON, nested too deep, a member of the wrong
 * type or unknown) gets ok:false saying why; the connection and the run
 * go on.
 */
#include "fm/fm_priv.h"
#include "common/error.h"
#include "common/json_read.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define POLL_MS 200

struct client {
	struct fm *fm;
	int fd;
};

static JsonObject *pools_json(const struct fm *fm)
{
	JsonObject *out = json_object_new();
	const struct cb_pool *p;

	cb_foreach(fm->t->pools, const struct cb_pool, p) {
		JsonObject *o;
		JsonArray *hosts;
		const struct cb_host *h;

		if (!p->ld_size)
			continue;
		o = json_object_new();
		hosts = json_array_new();
		json_object_set_int_member(o, "size", (gint64)p->size);
		json_object_set_int_member(o, "ld_size", (gint64)p->ld_size);
		json_object_set_int_member(o, "lds", p->lds->len);
		json_object_set_double_member(o, "read_latency_ns", p->perf.read_latency_ns);
		json_object_set_double_member(o, "write_latency_ns", p->perf.write_latency_ns);
		json_object_set_double_member(o, "read_gbps", p->perf.read_gbps);
		json_object_set_double_member(o, "write_gbps", p->perf.write_gbps);
		cb_foreach(p->ld_hosts, const struct cb_host, h)
			json_array_add_string_element(hosts, h->id);
		json_object_set_array_member(o, "hosts", hosts);
		json_object_set_object_member(out, p->id, o);
	}
	return out;
}

JsonObject *fm_status(struct fm *fm)
{
	JsonObject *o = json_object_new();

	g_mutex_lock(&fm->lock);
	json_object_set_string_member(o, "run", fm->dir);
	json_object_set_double_member(o, "t_s", fm_now_s(fm));
	json_object_set_object_member(o, "pools", pools_json(fm));
	json_object_set_array_member(o, "lds", fm_map_ld_info(fm->map));
	json_object_set_object_member(o, "allocations", fm_map_allocations(fm->map));
	json_object_set_int_member(o, "binds", fm->binds);
	json_object_set_int_member(o, "unbinds", fm->unbinds);
	json_object_set_array_member(o, "events", json_array_ref(fm->log));
	g_mutex_unlock(&fm->lock);
	return o;
}

static JsonObject *ok_reply(JsonObject *result)
{
	JsonObject *r = json_object_new();

	json_object_set_boolean_member(r, "ok", TRUE);
	json_object_set_object_member(r, "result", result);
	return r;
}

static JsonObject *err_reply(const char *msg)
{
	JsonObject *r = json_object_new();

	json_object_set_boolean_member(r, "ok", FALSE);
	json_object_set_string_member(r, "error", msg);
	return r;
}

static JsonObject *err_printf(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
static JsonObject *err_printf(const char *fmt, ...)
{
	g_autofree char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	return err_reply(msg);
}

/* A name from the request as an error may echo it: printable, at most 40 characters. */
static char *shown(const char *name)
{
	g_autofree char *s = cxlbed_printable(name);

	if (g_utf8_strlen(s, -1) <= 40)
		return g_steal_pointer(&s);
	return g_strdup_printf("%.*s...", (int)(g_utf8_offset_to_pointer(s, 37) - s), s);
}

#define COMMANDS "status, get-ld-info, get-ld-allocations, bind-vppb, unbind-vppb"

static bool printable_name(const char *s)
{
	g_autofree char *as_printed = cxlbed_printable(s);

	return strlen(s) <= 64 && !strcmp(as_printed, s);
}

/* The args each command takes (every one a string or null). */
static const struct {
	const char *cmd;
	const char *const args[5];
	const char *list;
} commands[] = {
	{ "status", { NULL }, "no args" },
	{ "get-ld-info", { NULL }, "no args" },
	{ "get-ld-allocations", { NULL }, "no args" },
	{ "bind-vppb", { "host", "ld", "pool", "mode", NULL }, "host, ld, pool, mode" },
	{ "unbind-vppb", { "ld", "host", NULL }, "ld, host" },
};

/*
 * A request checked member by member: a known cmd as a string, args an
 * object (or absent, or null) of the command's own members, each a string
 * or null, nothing else but "id". NULL when so, else the refusal.
 */
static JsonObject *refuse_request(JsonObject *msg, guint *which, JsonObject **args)
{
	JsonNode *cmd = json_object_get_member(msg, "cmd");
	JsonNode *an = json_object_get_member(msg, "args");
	g_autoptr(GList) names = json_object_get_members(msg);
	g_autoptr(GList) arg_names = NULL;

	for (GList *l = names; l; l = l->next)
		if (strcmp(l->data, "id") && strcmp(l->data, "cmd") && strcmp(l->data, "args")) {
			g_autofree char *name = shown(l->data);

			return err_printf("member \"%s\": unknown; a request has id, cmd and args",
					  name);
		}
	if (!cmd || !JSON_NODE_HOLDS_VALUE(cmd) || json_node_get_value_type(cmd) != G_TYPE_STRING)
		return err_printf("cmd: want a string (" COMMANDS "), found %s",
				  cmd ? json_read_type_name(cmd) : "nothing");
	for (*which = 0; *which < G_N_ELEMENTS(commands); (*which)++)
		if (!strcmp(json_node_get_string(cmd), commands[*which].cmd))
			break;
	if (*which == G_N_ELEMENTS(commands)) {
		g_autofree char *name = shown(json_node_get_string(cmd));

		return err_printf("unknown command \"%s\"; known: " COMMANDS, name);
	}
	if (an && !JSON_NODE_HOLDS_NULL(an) && !JSON_NODE_HOLDS_OBJECT(an))
		return err_printf("args: want an object, found %s", json_read_type_name(an));
	*args = an && JSON_NODE_HOLDS_OBJECT(an) ? json_node_get_object(an) : NULL;
	arg_names = *args ? json_object_get_members(*args) : NULL;
	for (GList *l = arg_names; l; l = l->next) {
		JsonNode *v = json_object_get_member(*args, l->data);
		g_autofree char *name = shown(l->data);
		bool known = false;

		for (const char *const *k = commands[*which].args; *k && !known; k++)
			known = !strcmp(*k, l->data);
		if (!known)
			return err_printf("args.%s: unknown; %s takes %s", name,
					  commands[*which].cmd, commands[*which].list);
		if (JSON_NODE_HOLDS_NULL(v))
			continue;
		if (!JSON_NODE_HOLDS_VALUE(v) || json_node_get_value_type(v) != G_TYPE_STRING)
			return err_printf("args.%s: want a string, found %s", name,
					  json_read_type_name(v));
		/* a host, LD, pool or mode is a name that prints as it is (logs, progress) */
		if (!printable_name(json_node_get_string(v)))
			return err_printf("args.%s: a name without control characters, "
					  "at most 64 bytes", name);
	}
	return NULL;
}

/* An arg checked by refuse_request: a string, or NULL when absent or null. */
static char *arg(JsonObject *args, const char *key)
{
	JsonNode *n = args ? json_object_get_member(args, key) : NULL;

	return n && !JSON_NODE_HOLDS_NULL(n) ? g_strdup(json_node_get_string(n)) : NULL;
}

static JsonObject *handle(struct fm *fm, JsonObject *msg)
{
	JsonObject *args = NULL, *refusal;
	const char *cmd;
	guint which = 0;
	struct fm_req *r;

	if ((refusal = refuse_request(msg, &which, &args)))
		return refusal;
	cmd = commands[which].cmd;
	if (!strcmp(cmd, "status"))
		return ok_reply(fm_status(fm));
	if (!strcmp(cmd, "get-ld-info")) {
		JsonObject *o = json_object_new();

		g_mutex_lock(&fm->lock);
		json_object_set_array_member(o, "lds", fm_map_ld_info(fm->map));
		g_mutex_unlock(&fm->lock);
		return ok_reply(o);
	}
	if (!strcmp(cmd, "get-ld-allocations")) {
		JsonObject *o;

		g_mutex_lock(&fm->lock);
		o = fm_map_allocations(fm->map);
		g_mutex_unlock(&fm->lock);
		return ok_reply(o);
	}
	if (g_atomic_int_get(&fm->stop))
		return err_reply("the run is ending");
	r = fm_req_new(strcmp(cmd, "bind-vppb") ? FM_REQ_UNBIND : FM_REQ_BIND,
		       "control");
	r->ld = arg(args, "ld");
	r->pool = arg(args, "pool");
	r->host = arg(args, "host");
	r->mode = arg(args, "mode");
	r->wait = true;
	return fm_submit(fm, r);
}

JsonObject *fm_control_answer(struct fm *fm, const char *line, gsize len)
{
	g_autoptr(GError) err = NULL;
	g_autoptr(JsonObject) msg = jsonline_parse(line, len, &err);
	JsonObject *reply;

	if (!msg)
		return err_reply(err->message);
	reply = handle(fm, msg);
	if (json_object_has_member(msg, "id"))
		json_object_set_member(reply, "id", json_node_copy(json_object_get_member(msg, "id")));
	return reply;
}

static gpointer serve(gpointer data)
{
	struct client *c = data;
	struct jsonline *conn = jsonline_new(c->fd, NULL, "fm");

	while (!g_atomic_int_get(&c->fm->stop)) {
		g_autoptr(GError) err = NULL;
		g_autofree char *line = jsonline_read_line(conn, g_get_monotonic_time() +
							   POLL_MS * 1000, &err);
		g_autoptr(JsonObject) reply = NULL;

		if (!line) {
			if (g_error_matches(err, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
				continue;
			if (!g_error_matches(err, G_IO_ERROR, G_IO_ERROR_INVALID_DATA))
				break;
			reply = err_reply(err->message);	/* too long, or a NUL in it */
		} else {
			reply = fm_control_answer(c->fm, line, strlen(line));
		}
		if (!jsonline_write(conn, reply, NULL))
			break;
	}
	jsonline_free(conn);
	g_free(c);
	return NULL;
}

static gpointer acceptor(gpointer data)
{
	struct fm *fm = data;
	GPtrArray *threads = g_ptr_array_new();

	while (!g_atomic_int_get(&fm->stop)) {
		struct pollfd p = { .fd = fm->listen_fd, .events = POLLIN };
		struct client *c;
		int fd;

		if (poll(&p, 1, POLL_MS) <= 0)
			continue;
		fd = accept4(fm->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		c = g_new0(struct client, 1);
		c->fm = fm;
		c->fd = fd;
		g_ptr_array_add(threads, g_thread_new("cxlbed-fm-client", serve, c));
	}
	for (guint i = 0; i < threads->len; i++)
		g_thread_join(g_ptr_array_index(threads, i));
	g_ptr_array_unref(threads);
	return NULL;
}

bool fm_control_start(struct fm *fm, GError **error)
{
	g_autofree char *path = fm_socket_path(fm->dir);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	if (strlen(path) >= sizeof(sa.sun_path)) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN, "control socket "
			    "path %s is longer than a unix socket takes; use a "
			    "shorter --out", path);
		return false;
	}
	strcpy(sa.sun_path, path);
	unlink(path);
	fm->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	/* the user's alone whatever the umask: on Linux the socket's mode
	 * before bind() is its file's, so there is no moment it is open */
	if (fm->listen_fd < 0 || fchmod(fm->listen_fd, 0600) < 0 ||
	    bind(fm->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fm->listen_fd, 8) < 0) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN, "%s: %s", path,
			    g_strerror(errno));
		return false;
	}
	fm->control = g_thread_new("cxlbed-fm-control", acceptor, fm);
	return true;
}

void fm_control_stop(struct fm *fm)
{
	g_autofree char *path = fm_socket_path(fm->dir);

	if (fm->control)
		g_thread_join(fm->control);
	fm->control = NULL;
	if (fm->listen_fd >= 0) {
		close(fm->listen_fd);
		unlink(path);
	}
	fm->listen_fd = -1;
}
