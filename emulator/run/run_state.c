/* SPDX-License-Identifier: MIT */
#include "run/run_state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct run_state {
	char *dir;
	JsonObject *obj;
	bool warned;		/* a failed write is said once */
};

char *run_state_now(void)
{
	g_autoptr(GDateTime) now = g_date_time_new_now_utc();

	return g_date_time_format(now, "%Y-%m-%dT%H:%M:%SZ");
}

JsonObject *proc_ident_to_json(const struct proc_ident *id)
{
	JsonObject *o = json_object_new();

	json_object_set_int_member(o, "pid", id->pid);
	json_object_set_int_member(o, "start", (gint64)id->start);
	json_object_set_string_member(o, "boot", id->boot);
	return o;
}

bool proc_ident_from_json(JsonObject *o, struct proc_ident *id)
{
	memset(id, 0, sizeof(*id));
	if (!o || !json_object_has_member(o, "pid") || !json_object_has_member(o, "start"))
		return false;
	id->pid = (int)json_object_get_int_member_with_default(o, "pid", 0);
	id->start = (guint64)json_object_get_int_member_with_default(o, "start", 0);
	g_strlcpy(id->boot, run_json_str(o, "boot") ?: "", sizeof(id->boot));
	return id->pid > 0;
}

static char *to_text(JsonObject *obj)
{
	g_autoptr(JsonNode) root = json_node_new(JSON_NODE_OBJECT);
	g_autoptr(JsonGenerator) gen = json_generator_new();
	g_autofree char *text = NULL;

	json_node_set_object(root, obj);
	json_generator_set_root(gen, root);
	json_generator_set_pretty(gen, TRUE);
	text = json_generator_to_data(gen, NULL);
	return g_strconcat(text, "\n", NULL);
}

bool run_json_save(const char *path, JsonObject *obj, GError **error)
{
	g_autofree char *text = to_text(obj);

	return g_file_set_contents(path, text, -1, error);
}

JsonObject *run_json_load(const char *path)
{
	g_autoptr(JsonParser) p = json_parser_new();
	JsonNode *root;

	if (!json_parser_load_from_file(p, path, NULL) ||
	    !(root = json_parser_get_root(p)) || !JSON_NODE_HOLDS_OBJECT(root))
		return NULL;
	return json_object_ref(json_node_get_object(root));
}

bool run_state_save(const char *dir, JsonObject *state, GError **error)
{
	g_autofree char *path = g_build_filename(dir, RUN_STATE_FILE, NULL);
	g_autofree char *now = run_state_now();

	json_object_set_string_member(state, "updated_at", now);
	return run_json_save(path, state, error);
}

JsonObject *run_state_load(const char *dir)
{
	g_autofree char *path = g_build_filename(dir, RUN_STATE_FILE, NULL);

	return run_json_load(path);
}

const char *run_json_str(JsonObject *o, const char *member)
{
	JsonNode *n = o ? json_object_get_member(o, member) : NULL;

	return n && JSON_NODE_HOLDS_VALUE(n) &&
	       json_node_get_value_type(n) == G_TYPE_STRING ? json_node_get_string(n) : NULL;
}

JsonObject *run_json_obj(JsonObject *o, const char *member)
{
	JsonNode *n = o ? json_object_get_member(o, member) : NULL;

	return n && JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
}

/* Write the first version beside it, then link(): atomic and exclusive. */
static bool create_exclusive(const char *dir, const char *run_id, const char *text,
			     GError **error)
{
	g_autofree char *path = g_build_filename(dir, RUN_STATE_FILE, NULL);
	g_autofree char *tmp = g_strdup_printf("%s/.%s.%s", dir, RUN_STATE_FILE, run_id);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	size_t len = strlen(text);
	bool ok;

	if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "%s: %s", tmp, g_strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return false;
	}
	close(fd);
	ok = link(tmp, path) == 0;
	if (!ok)
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
			    errno == EEXIST ? "%s: another run holds this folder" : "%s: %s",
			    path, g_strerror(errno));
	unlink(tmp);
	return ok;
}

struct run_state *run_state_create(const char *dir, const char *run_id,
				   const char *shm, GError **error)
{
	struct run_state *st = g_new0(struct run_state, 1);
	g_autofree char *text = NULL;
	g_autofree char *now = run_state_now();
	struct proc_ident self;

	proc_ident_self(&self);
	st->dir = g_strdup(dir);
	st->obj = json_object_new();
	json_object_set_string_member(st->obj, "schema", RUN_STATE_SCHEMA);
	json_object_set_string_member(st->obj, "run_id", run_id);
	json_object_set_string_member(st->obj, "state", "running");
	json_object_set_string_member(st->obj, "stage", "claimed");
	json_object_set_null_member(st->obj, "detail");
	json_object_set_object_member(st->obj, "owner", proc_ident_to_json(&self));
	json_object_set_string_member(st->obj, "started_at", now);
	json_object_set_string_member(st->obj, "updated_at", now);
	if (shm)
		json_object_set_string_member(st->obj, "shm", shm);
	else
		json_object_set_null_member(st->obj, "shm");
	json_object_set_object_member(st->obj, "qemu", json_object_new());
	text = to_text(st->obj);
	if (!create_exclusive(dir, run_id, text, error)) {
		run_state_free(st, false);
		return NULL;
	}
	return st;
}

static void save(struct run_state *st)
{
	g_autoptr(GError) err = NULL;

	if (!run_state_save(st->dir, st->obj, &err) && !st->warned) {
		fprintf(stderr, "cxlbed: cannot update the run state: %s\n", err->message);
		st->warned = true;
	}
}

void run_state_stage(struct run_state *st, const char *stage, const char *fmt, ...)
{
	va_list ap;

	if (!st)
		return;
	json_object_set_string_member(st->obj, "stage", stage);
	if (fmt) {
		g_autofree char *detail = NULL;

		va_start(ap, fmt);
		detail = g_strdup_vprintf(fmt, ap);
		va_end(ap);
		json_object_set_string_member(st->obj, "detail", detail);
	} else {
		json_object_set_null_member(st->obj, "detail");
	}
	save(st);
}

void run_state_qemu(struct run_state *st, const char *host, int pid)
{
	struct proc_ident q;

	if (!st || !proc_ident_of(pid, &q))
		return;
	json_object_set_object_member(json_object_get_object_member(st->obj, "qemu"),
				      host, proc_ident_to_json(&q));
	save(st);
}

void run_state_end(struct run_state *st, const char *outcome)
{
	g_autofree char *now = run_state_now();

	if (!st)
		return;
	json_object_set_string_member(st->obj, "state", "ended");
	json_object_set_string_member(st->obj, "outcome", outcome);
	json_object_set_string_member(st->obj, "ended_at", now);
	save(st);
}

void run_state_free(struct run_state *st, bool remove)
{
	if (!st)
		return;
	if (remove) {
		g_autofree char *path = g_build_filename(st->dir, RUN_STATE_FILE, NULL);

		unlink(path);
	}
	json_object_unref(st->obj);
	g_free(st->dir);
	g_free(st);
}
