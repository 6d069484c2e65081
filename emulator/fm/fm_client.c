/* SPDX-License-Identifier: MIT */
/* A client of a running run's fabric manager, over RUN/fm.sock (fm_client.h). */
#include "fm/fm_client.h"
#include "fm/fm.h"
#include "qemu/jsonline.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#define REPLY_S 300

const char *fm_client_command(const char *verb)
{
	static const char *const names[][2] = {
		{ "list", "get-ld-info" }, { "status", "status" },
		{ "bind", "bind-vppb" }, { "unbind", "unbind-vppb" },
	};

	for (guint i = 0; i < G_N_ELEMENTS(names); i++)
		if (!strcmp(verb, names[i][0]))
			return names[i][1];
	return NULL;
}

char *fm_client_newest_socket(const char *results)
{
	g_autoptr(GDir) d = g_dir_open(results, 0, NULL);
	g_autofree char *best = NULL;
	gint64 best_t = 0;
	const char *name;

	while (d && (name = g_dir_read_name(d))) {
		g_autofree char *dir = g_build_filename(results, name, NULL);
		g_autofree char *sock = fm_socket_path(dir);
		GStatBuf st;

		if (g_stat(sock, &st) == 0 && S_ISSOCK(st.st_mode) &&
		    st.st_mtime >= best_t) {
			best_t = st.st_mtime;
			g_free(best);
			best = g_steal_pointer(&sock);
		}
	}
	return g_steal_pointer(&best);
}

JsonObject *fm_client_ask(const char *sock, const char *cmd, JsonObject *args,
			  GError **error)
{
	int fd = jsonline_connect_unix(sock, g_get_monotonic_time() + G_USEC_PER_SEC,
				       error);
	g_autoptr(JsonObject) req = json_object_new();
	struct jsonline *c;
	JsonObject *reply = NULL;

	if (fd < 0)
		return NULL;
	c = jsonline_new(fd, NULL, "fm");
	json_object_set_int_member(req, "id", 1);
	json_object_set_string_member(req, "cmd", cmd);
	if (args)
		json_object_set_object_member(req, "args", json_object_ref(args));
	if (jsonline_write(c, req, error))
		reply = jsonline_read(c, g_get_monotonic_time() + REPLY_S * G_USEC_PER_SEC,
				      error);
	jsonline_free(c);
	return reply;
}
