/* SPDX-License-Identifier: MIT */
/*
 * cxlbed fm [--run DIR] list | status | bind LD HOST | unbind LD|--host H:
 * talk to a running run's fabric manager over RUN/fm.sock (docs/pooling.md).
 * The socket's commands are named after the CXL FM API; these verbs are
 * the short names a person types.
 */
#include "commands.h"
#include "fm.h"
#include "jsonline.h"
#include "paths.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define REPLY_S 300

/* The newest results/RUN/fm.sock a fabric manager still answers on. */
static char *newest_socket(void)
{
	g_autoptr(GDir) d = g_dir_open(cxlbed_path(CXLBED_RESULTS), 0, NULL);
	g_autofree char *best = NULL;
	gint64 best_t = 0;
	const char *name;

	while (d && (name = g_dir_read_name(d))) {
		g_autofree char *dir = g_build_filename(cxlbed_path(CXLBED_RESULTS),
							name, NULL);
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

static JsonObject *ask(const char *sock, const char *cmd, JsonObject *args,
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

static const char *s_of(JsonObject *o, const char *k)
{
	return json_object_get_string_member_with_default(o, k, "-");
}

static void print_lds(JsonArray *lds)
{
	printf("%-10s %-9s %-6s %-6s %-10s %-5s %9s %9s\n", "LD", "state", "host",
	       "port", "region", "node", "size MiB", "used MiB");
	for (guint i = 0; i < json_array_get_length(lds); i++) {
		JsonObject *o = json_array_get_object_element(lds, i);
		char node[16] = "-", used[24] = "-";

		if (json_object_has_member(o, "node"))
			g_snprintf(node, sizeof(node), "%" G_GINT64_FORMAT,
				   json_object_get_int_member(o, "node"));
		if (json_object_has_member(o, "used_bytes"))
			g_snprintf(used, sizeof(used), "%" G_GINT64_FORMAT,
				   json_object_get_int_member(o, "used_bytes") >> 20);
		printf("%-10s %-9s %-6s %-6s %-10s %-5s %9" G_GINT64_FORMAT " %9s\n",
		       s_of(o, "ld"), s_of(o, "state"), s_of(o, "host"),
		       s_of(o, "port"), s_of(o, "region"), node,
		       json_object_get_int_member_with_default(o, "size", 0) >> 20, used);
	}
}

static void print_status(JsonObject *st)
{
	JsonObject *alloc = json_object_get_object_member(st, "allocations");
	JsonArray *pools = json_object_get_array_member(alloc, "pools");
	JsonObject *hosts = json_object_get_object_member(alloc, "hosts");
	JsonArray *events = json_object_get_array_member(st, "events");
	g_autoptr(GList) names = json_object_get_members(hosts);
	guint n = json_array_get_length(events);

	printf("run %s, fabric manager up %.1f s: %" G_GINT64_FORMAT " binds, %"
	       G_GINT64_FORMAT " unbinds\n\n", s_of(st, "run"),
	       json_object_get_double_member(st, "t_s"),
	       json_object_get_int_member(st, "binds"),
	       json_object_get_int_member(st, "unbinds"));
	print_lds(json_object_get_array_member(st, "lds"));
	printf("\n%-6s %9s %9s %9s %9s %9s\n", "pool", "size MiB", "lent", "used",
	       "free", "stranded");
	for (guint i = 0; i < json_array_get_length(pools); i++) {
		JsonObject *p = json_array_get_object_element(pools, i);

		printf("%-6s %9" G_GINT64_FORMAT " %9" G_GINT64_FORMAT " %9" G_GINT64_FORMAT
		       " %9" G_GINT64_FORMAT " %9" G_GINT64_FORMAT "\n", s_of(p, "pool"),
		       json_object_get_int_member(p, "size") >> 20,
		       json_object_get_int_member(p, "lent") >> 20,
		       json_object_get_int_member(p, "used") >> 20,
		       json_object_get_int_member(p, "free") >> 20,
		       json_object_get_int_member(p, "stranded") >> 20);
	}
	printf("\n%-6s %9s %9s %9s\n", "host", "lent MiB", "used", "stranded");
	for (GList *l = names; l; l = l->next) {
		JsonObject *h = json_object_get_object_member(hosts, l->data);

		printf("%-6s %9" G_GINT64_FORMAT " %9" G_GINT64_FORMAT " %9" G_GINT64_FORMAT
		       "\n", (char *)l->data, json_object_get_int_member(h, "lent") >> 20,
		       json_object_get_int_member(h, "used") >> 20,
		       json_object_get_int_member(h, "stranded") >> 20);
	}
	if (n)
		printf("\nlast events:\n");
	for (guint i = n > 8 ? n - 8 : 0; i < n; i++) {
		JsonObject *e = json_array_get_object_element(events, i);

		printf("  %7.2f s  %-7s %-8s %-4s %s%s%s\n",
		       json_object_get_double_member_with_default(e, "t_s", 0),
		       s_of(e, "action"), s_of(e, "ld"), s_of(e, "host"),
		       s_of(e, "result"), json_object_has_member(e, "detail") ? ": " : "",
		       json_object_has_member(e, "detail") ? s_of(e, "detail") : "");
	}
}

int cmd_fm(int argc, char **argv)
{
	g_autofree char *run = NULL, *host = NULL, *mode = NULL, *pool = NULL;
	g_autofree char *sock = NULL;
	gboolean as_json = FALSE;
	GOptionEntry entries[] = {
		{ "run", 'r', 0, G_OPTION_ARG_FILENAME, &run,
		  "the run folder (default: the newest under results/ with a live "
		  "fabric manager)", "DIR" },
		{ "host", 0, 0, G_OPTION_ARG_STRING, &host,
		  "unbind: that host's newest LD", "HOST" },
		{ "mode", 0, 0, G_OPTION_ARG_STRING, &mode,
		  "bind: ram (online movable, a NUMA node; default) or devdax", "MODE" },
		{ "pool", 0, 0, G_OPTION_ARG_STRING, &pool,
		  "bind any: the pool to take a free LD from", "POOL" },
		{ "json", 0, 0, G_OPTION_ARG_NONE, &as_json,
		  "print the fabric manager's JSON reply as it is", NULL },
		{ NULL }
	};
	g_autoptr(GError) err = NULL;
	g_autoptr(JsonObject) args = json_object_new();
	g_autoptr(JsonObject) reply = NULL;
	const char *verb, *cmd;

	if (!verb_options(&argc, &argv, "list | status | bind LD|any HOST | unbind [LD]",
			  "Talk to the fabric manager of a running run (RUN/fm.sock):\n"
			  "  list             every logical device: state, owner, port, region\n"
			  "  status           ownership map, pool and per-host capacity, events\n"
			  "  bind LD HOST     bind an LD (or 'any' free one) to a host\n"
			  "  unbind LD        release an LD from its host (or --host H)\n"
			  "The socket speaks JSON lines with commands named after the CXL FM\n"
			  "API (get-ld-info, get-ld-allocations, bind-vppb, unbind-vppb,\n"
			  "status): docs/pooling.md. Exit 0 done, 1 refused or failed, 2 bad use\n"
			  "(a usage error, or an LD, host, pool or mode the run does not have).", entries))
		return 2;
	verb = argc > 1 ? argv[1] : NULL;
	if (!verb || (!strcmp(verb, "bind") && argc != 4) ||
	    (!strcmp(verb, "unbind") && argc != 3 && !(argc == 2 && host)) ||
	    ((!strcmp(verb, "list") || !strcmp(verb, "status")) && argc != 2))
		return verb_usage("fm", "usage: cxlbed fm [--run DIR] list | status | "
			"bind LD|any HOST | unbind LD|--host HOST");
	if (!strcmp(verb, "list"))
		cmd = "get-ld-info";
	else if (!strcmp(verb, "status"))
		cmd = "status";
	else if (!strcmp(verb, "bind"))
		cmd = "bind-vppb";
	else if (!strcmp(verb, "unbind"))
		cmd = "unbind-vppb";
	else
		return verb_usage("fm", "unknown command '%s'; use list, status, "
			"bind or unbind", verb);
	sock = run ? fm_socket_path(run) : newest_socket();
	if (!sock)
		return verb_usage("fm", "no run with a fabric manager under %s; "
			"give --run DIR of a running `cxlbed run` whose topology has "
			"a lending pool", cxlbed_path(CXLBED_RESULTS));
	if (!strcmp(cmd, "bind-vppb")) {
		if (strcmp(argv[2], "any"))
			json_object_set_string_member(args, "ld", argv[2]);
		json_object_set_string_member(args, "host", argv[3]);
	} else if (!strcmp(cmd, "unbind-vppb") && argc == 3) {
		json_object_set_string_member(args, "ld", argv[2]);
	}
	if (host && !strcmp(cmd, "unbind-vppb"))
		json_object_set_string_member(args, "host", host);
	if (mode)
		json_object_set_string_member(args, "mode", mode);
	if (pool)
		json_object_set_string_member(args, "pool", pool);
	reply = ask(sock, cmd, args, &err);
	if (!reply)
		return verb_usage("fm", "%s: %s (is the run still going?)", sock,
			err->message);
	if (as_json) {
		g_autofree char *line = json_object_to_line(reply);

		printf("%s\n", line);
	} else if (!json_object_get_boolean_member_with_default(reply, "ok", FALSE)) {
		fprintf(stderr, "cxlbed fm: %s%s\n",
			json_object_get_boolean_member_with_default(reply, "refused", FALSE) ?
			"refused: " : "", s_of(reply, "error"));
	} else if (!strcmp(cmd, "get-ld-info")) {
		print_lds(json_object_get_array_member(
			json_object_get_object_member(reply, "result"), "lds"));
	} else if (!strcmp(cmd, "status")) {
		print_status(json_object_get_object_member(reply, "result"));
	} else {
		JsonObject *r = json_object_get_object_member(reply, "result");

		if (!strcmp(cmd, "bind-vppb") && !strcmp(s_of(r, "mode"), "ram"))
			printf("%s bound to %s on %s: %s, ram, node %" G_GINT64_FORMAT
			       " (%.2f s)\n", s_of(r, "ld"), s_of(r, "host"),
			       s_of(r, "port"), s_of(r, "region"),
			       json_object_get_int_member_with_default(r, "node", -1),
			       json_object_get_double_member_with_default(r, "wall_s", 0));
		else if (!strcmp(cmd, "bind-vppb"))
			printf("%s bound to %s on %s: %s, devdax %s (%.2f s)\n",
			       s_of(r, "ld"), s_of(r, "host"), s_of(r, "port"),
			       s_of(r, "region"), s_of(r, "dax"),
			       json_object_get_double_member_with_default(r, "wall_s", 0));
		else
			printf("%s released by %s and unbound (%s, %" G_GINT64_FORMAT
			       " bytes migrated, %.2f s)\n", s_of(r, "ld"), s_of(r, "host"),
			       s_of(r, "removed_by"),
			       json_object_get_int_member_with_default(r, "migrated_bytes", 0),
			       json_object_get_double_member_with_default(r, "wall_s", 0));
	}
	if (json_object_get_boolean_member_with_default(reply, "ok", FALSE))
		return 0;
	/* a request naming what does not exist is bad use, as the docs say */
	return json_object_get_boolean_member_with_default(reply, "invalid", FALSE) ? 2 : 1;
}
