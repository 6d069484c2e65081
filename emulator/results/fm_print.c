/* SPDX-License-Identifier: MIT */
/* `cxlbed fm`'s answers as a person reads them (fm_print.h). */
#include "results/fm_print.h"

#include <string.h>

static const char *s_of(JsonObject *o, const char *k)
{
	return json_object_get_string_member_with_default(o, k, "-");
}

static void print_lds(FILE *out, JsonArray *lds)
{
	fprintf(out, "%-10s %-9s %-6s %-6s %-10s %-5s %9s %9s\n", "LD", "state", "host",
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
		fprintf(out, "%-10s %-9s %-6s %-6s %-10s %-5s %9" G_GINT64_FORMAT " %9s\n",
		             s_of(o, "ld"), s_of(o, "state"), s_of(o, "host"),
		             s_of(o, "port"), s_of(o, "region"), node,
		             json_object_get_int_member_with_default(o, "size", 0) >> 20, used);
	}
}

static void print_status(FILE *out, JsonObject *st)
{
	JsonObject *alloc = json_object_get_object_member(st, "allocations");
	JsonArray *pools = json_object_get_array_member(alloc, "pools");
	JsonObject *hosts = json_object_get_object_member(alloc, "hosts");
	JsonArray *events = json_object_get_array_member(st, "events");
	g_autoptr(GList) names = json_object_get_members(hosts);
	guint n = json_array_get_length(events);

	fprintf(out, "run %s, fabric manager up %.1f s: %" G_GINT64_FORMAT " binds, %"
	             G_GINT64_FORMAT " unbinds\n\n", s_of(st, "run"),
	             json_object_get_double_member(st, "t_s"),
	             json_object_get_int_member(st, "binds"),
	             json_object_get_int_member(st, "unbinds"));
	print_lds(out, json_object_get_array_member(st, "lds"));
	fprintf(out, "\n%-6s %9s %9s %9s %9s %9s\n", "pool", "size MiB", "lent", "used",
	             "free", "stranded");
	for (guint i = 0; i < json_array_get_length(pools); i++) {
		JsonObject *p = json_array_get_object_element(pools, i);

		fprintf(out, "%-6s %9" G_GINT64_FORMAT " %9" G_GINT64_FORMAT " %9" G_GINT64_FORMAT
		             " %9" G_GINT64_FORMAT " %9" G_GINT64_FORMAT "\n", s_of(p, "pool"),
		             json_object_get_int_member(p, "size") >> 20,
		             json_object_get_int_member(p, "lent") >> 20,
		             json_object_get_int_member(p, "used") >> 20,
		             json_object_get_int_member(p, "free") >> 20,
		             json_object_get_int_member(p, "stranded") >> 20);
	}
	fprintf(out, "\n%-6s %9s %9s %9s\n", "host", "lent MiB", "used", "stranded");
	for (GList *l = names; l; l = l->next) {
		JsonObject *h = json_object_get_object_member(hosts, l->data);

		fprintf(out, "%-6s %9" G_GINT64_FORMAT " %9" G_GINT64_FORMAT " %9" G_GINT64_FORMAT
		             "\n", (char *)l->data, json_object_get_int_member(h, "lent") >> 20,
		             json_object_get_int_member(h, "used") >> 20,
		             json_object_get_int_member(h, "stranded") >> 20);
	}
	if (n)
		fprintf(out, "\nlast events:\n");
	for (guint i = n > 8 ? n - 8 : 0; i < n; i++) {
		JsonObject *e = json_array_get_object_element(events, i);

		fprintf(out, "  %7.2f s  %-7s %-8s %-4s %s%s%s\n",
		             json_object_get_double_member_with_default(e, "t_s", 0),
		             s_of(e, "action"), s_of(e, "ld"), s_of(e, "host"),
		             s_of(e, "result"), json_object_has_member(e, "detail") ? ": " : "",
		             json_object_has_member(e, "detail") ? s_of(e, "detail") : "");
	}
}

void fm_print_reply(FILE *out, const char *cmd, JsonObject *reply)
{
	if (!strcmp(cmd, "get-ld-info")) {
		print_lds(out, json_object_get_array_member(
			json_object_get_object_member(reply, "result"), "lds"));
	} else if (!strcmp(cmd, "status")) {
		print_status(out, json_object_get_object_member(reply, "result"));
	} else {
		JsonObject *r = json_object_get_object_member(reply, "result");

		if (!strcmp(cmd, "bind-vppb") && !strcmp(s_of(r, "mode"), "ram"))
			fprintf(out, "%s bound to %s on %s: %s, ram, node %" G_GINT64_FORMAT
			             " (%.2f s)\n", s_of(r, "ld"), s_of(r, "host"),
			             s_of(r, "port"), s_of(r, "region"),
			             json_object_get_int_member_with_default(r, "node", -1),
			             json_object_get_double_member_with_default(r, "wall_s", 0));
		else if (!strcmp(cmd, "bind-vppb"))
			fprintf(out, "%s bound to %s on %s: %s, devdax %s (%.2f s)\n",
			             s_of(r, "ld"), s_of(r, "host"), s_of(r, "port"),
			             s_of(r, "region"), s_of(r, "dax"),
			             json_object_get_double_member_with_default(r, "wall_s", 0));
		else
			fprintf(out, "%s released by %s and unbound (%s, %" G_GINT64_FORMAT
			             " bytes migrated, %.2f s)\n", s_of(r, "ld"), s_of(r, "host"),
			             s_of(r, "removed_by"),
			             json_object_get_int_member_with_default(r, "migrated_bytes", 0),
			             json_object_get_double_member_with_default(r, "wall_s", 0));
	}
}
