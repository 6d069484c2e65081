// SPDX-License-Identifier: MIT
/* Stale reads per workload from the timing report (stale_check.h). */
#include "run/stale_check.h"

#include "common/json_get.h"

/* The stale loads the report logged: its host's log restarts with each
 * program, so they are the program's. */
static JsonArray *events_of(JsonObject *stale)
{
	JsonArray *ev = json_get_array(stale, "events");
	JsonArray *out = json_array_new();

	for (guint i = 0; ev && i < json_array_get_length(ev); i++)
		json_array_add_element(out, json_node_copy(json_array_get_element(ev, i)));
	return out;
}

void stale_check_workload(struct run_result *r, JsonObject *output,
			  const char *report, bool fresh, const char *workload,
			  const char *host)
{
	const char *protocol = json_object_get_string_member_with_default(
		output, "shared_protocol", NULL);
	g_autofree char *name = g_strdup_printf("stale:%s:%s", workload, host);
	g_autoptr(JsonParser) p = json_parser_new();
	JsonNode *root;
	JsonObject *stale = NULL, *prog, *o;
	gint64 ni, nf, fl;

	if (!protocol)
		return;
	if (json_parser_load_from_file(p, report, NULL) &&
	    (root = json_parser_get_root(p)) && JSON_NODE_HOLDS_OBJECT(root))
		stale = json_get_object(json_node_get_object(root), "stale_reads");
	prog = json_get_object(stale, "program");
	if (!prog) {
		result_check(r, name, false, "the timing model watched no shared "
			     "memory on %s: stale reads cannot be told", host);
		return;
	}
	if (!fresh) {
		result_check(r, name, false, "the timing report has no region of "
			     "this run: its stale reads are not this run's");
		return;
	}
	ni = json_get_int(prog, "not_invalidated", 0);
	nf = json_get_int(prog, "not_flushed", 0);
	fl = json_get_int(prog, "flushes", 0);
	o = json_object_new();
	json_object_set_int_member(o, "not_invalidated", ni);
	json_object_set_int_member(o, "not_flushed", nf);
	json_object_set_int_member(o, "flushes", fl);
	json_object_set_array_member(o, "events", events_of(stale));
	json_object_set_object_member(output, "stale_reads", o);
	if (!ni && !nf)
		result_check(r, name, true, "no stale read (protocol %s; %" G_GINT64_FORMAT
			     " lines written back or invalidated; timing model)", protocol, fl);
	else
		result_check(r, name, false, "%" G_GINT64_FORMAT " loads of lines another "
			     "host wrote after this host cached them, not invalidated; %"
			     G_GINT64_FORMAT " of lines another host wrote and did not write "
			     "back (protocol %s; timing model; the first with their offsets "
			     "and call sites: output.stale_reads.events)", ni, nf, protocol);
}
