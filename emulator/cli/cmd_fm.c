/* SPDX-License-Identifier: MIT */
/*
 * cxlbed fm [--run DIR] list | status | bind LD HOST | unbind LD|--host H:
 * talk to a running run's fabric manager over RUN/fm.sock (docs/pooling.md).
 * The socket's commands are named after the CXL FM API; these verbs are
 * the short names a person types.
 */
#include "cli/commands.h"
#include "fm/fm.h"
#include "fm/fm_client.h"
#include "results/fm_print.h"
#include "qemu/jsonline.h"
#include "common/paths.h"

#include <stdio.h>
#include <string.h>

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
	cmd = fm_client_command(verb);
	if (!cmd)
		return verb_usage("fm", "unknown command '%s'; use list, status, "
			"bind or unbind", verb);
	sock = run ? fm_socket_path(run) : fm_client_newest_socket(cxlbed_path(CXLBED_RESULTS));
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
	reply = fm_client_ask(sock, cmd, args, &err);
	if (!reply)
		return verb_usage("fm", "%s: %s (is the run still going?)", sock,
			err->message);
	if (as_json) {
		g_autofree char *line = json_object_to_line(reply);

		printf("%s\n", line);
	} else if (!json_object_get_boolean_member_with_default(reply, "ok", FALSE)) {
		fprintf(stderr, "cxlbed fm: %s%s\n",
			json_object_get_boolean_member_with_default(reply, "refused", FALSE) ?
			"refused: " : "",
			json_object_get_string_member_with_default(reply, "error", "-"));
	} else {
		fm_print_reply(stdout, cmd, reply);
	}
	if (json_object_get_boolean_member_with_default(reply, "ok", FALSE))
		return 0;
	/* a request naming what does not exist is bad use, as the docs say */
	return json_object_get_boolean_member_with_default(reply, "invalid", FALSE) ? 2 : 1;
}
