/* SPDX-License-Identifier: MIT */
#include "run/command_workload.h"
#include "common/error.h"
#include "results/figures.h"
#include "run/program_output.h"
#include "common/progress.h"
#include "run/working_set.h"

#include <string.h>

#define STDOUT_KEPT 8192	/* in summary.json; the log has it all */
#define STDERR_KEPT 2048

/* The first node of @kind ("local", "cxl") on the host, or -1. */
static int first_node(const struct res_host *h, const char *kind)
{
	for (guint i = 0; h && i < h->nodes->len; i++) {
		const struct res_node *n = g_ptr_array_index(h->nodes, i);

		if (!n->dax && !g_strcmp0(n->kind, kind))
			return n->node;
	}
	return -1;
}

char *workload_expand(const char *text, const struct cmd_place *p, GError **error)
{
	g_autoptr(GString) out = g_string_new(NULL);
	const char *s = text;

	while (*s) {
		const char *end = s + 1;
		g_autofree char *name = NULL;
		int node = -2;

		if (*s != '{' || (s > text && s[-1] == '$')) {
			g_string_append_c(out, *s++);
			continue;
		}
		while (g_ascii_islower(*end) || *end == '-')
			end++;
		if (*end != '}') {
			g_string_append_c(out, *s++);
			continue;
		}
		name = g_strndup(s + 1, end - s - 1);
		if (!strcmp(name, "dax")) {
			if (!p->dax) {
				g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN,
					    "{dax}: host %s has no devdax region",
					    p->host ? p->host->name : "?");
				return NULL;
			}
			g_string_append(out, p->dax);
			s = end + 1;
			continue;
		}
		if (!strcmp(name, "node"))
			node = p->node;
		else if (!strcmp(name, "local-node"))
			node = first_node(p->host, "local");
		else if (!strcmp(name, "cxl-node"))
			node = first_node(p->host, "cxl");
		if (node == -2) {	/* not ours: the shell's business */
			g_string_append_c(out, *s++);
			continue;
		}
		if (node < 0) {
			g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN,
				    "{%s}: host %s has no such NUMA node", name,
				    p->host ? p->host->name : "?");
			return NULL;
		}
		g_string_append_printf(out, "%d", node);
		s = end + 1;
	}
	return g_string_free(g_steal_pointer(&out), FALSE);
}

static const char *tail(const char *s, size_t keep)
{
	size_t n = strlen(s);

	return n > keep ? s + n - keep : s;
}

char *command_log_text(const char *label, const char *command, JsonObject *reply)
{
	const char *out = reply ? json_object_get_string_member_with_default(reply, "stdout", "") : "";
	const char *err = reply ? json_object_get_string_member_with_default(reply, "stderr", "") : "";
	const char *stuck = reply ? json_object_get_string_member_with_default(reply, "stuck", "") : "";

	if (!reply)
		return g_strdup_printf("$ %s%s\n--- not run\n", label, command);
	return g_strdup_printf(
		"$ %s%s\n%s%s--- stderr\n%s%s--- exit %" G_GINT64_FORMAT ", %.3f s (guest clock)%s%s%s\n",
		label, command, out, *out && !g_str_has_suffix(out, "\n") ? "\n" : "",
		err, *err && !g_str_has_suffix(err, "\n") ? "\n" : "",
		json_object_get_int_member_with_default(reply, "exit", -1),
		json_object_get_double_member_with_default(reply, "wall_s", -1),
		json_object_get_boolean_member_with_default(reply, "timed_out", FALSE) ?
		", timed out" : "", *stuck ? "; at the timeout " : "", stuck);
}

JsonObject *command_output(JsonObject *reply, const char *command, const char *log_name)
{
	const char *out = json_object_get_string_member_with_default(reply, "stdout", "");
	const char *err = json_object_get_string_member_with_default(reply, "stderr", "");
	gint64 status = json_object_get_int_member_with_default(reply, "exit", -1);
	JsonObject *o = json_object_new(), *fig;

	json_object_set_string_member(o, "command", command);
	json_object_set_int_member(o, "exit", status);
	json_object_set_string_member(o, "log", log_name);
	json_object_set_string_member(o, "clock", "guest");
	json_object_set_double_member(o, "wall_s",
		json_object_get_double_member_with_default(reply, "wall_s", -1));
	fig = program_figures(out);
	if (fig)
		json_object_set_object_member(o, "figures", fig);
	json_object_set_string_member(o, "stdout", tail(out, STDOUT_KEPT));
	json_object_set_string_member(o, "stderr", tail(err, STDERR_KEPT));
	if (json_object_has_member(reply, "roi")) {
		JsonArray *rois = json_array_new();
		JsonObject *r = json_object_new();

		json_object_set_int_member(r, "id", json_object_get_int_member(reply, "roi"));
		json_object_set_string_member(r, "kind", "command");
		json_array_add_object_element(rois, r);
		json_object_set_array_member(o, "rois", rois);
	}
	return o;
}

/* The command's region among the modeled ROIs, or NULL. */
static JsonObject *command_roi(JsonObject *modeled)
{
	JsonArray *rois = modeled && json_object_has_member(modeled, "rois") ?
		json_object_get_array_member(modeled, "rois") : NULL;

	for (guint i = 0; rois && i < json_array_get_length(rois); i++) {
		JsonObject *r = json_array_get_object_element(rois, i);

		if (!g_strcmp0(json_object_get_string_member_with_default(r, "kind", ""),
			       "command"))
			return r;
	}
	return NULL;
}

/* The modeled ns of the command's region, or -1. */
static double command_roi_ns(JsonObject *modeled)
{
	JsonObject *r = command_roi(modeled);

	return r ? json_object_get_double_member_with_default(r, "modeled_ns", -1) : -1;
}

static double member(JsonObject *o, const char *obj, const char *key)
{
	if (!o || !json_object_has_member(o, obj))
		return -1;
	return json_object_get_double_member_with_default(
		json_object_get_object_member(o, obj), key, -1);
}

double command_add_modeled(JsonObject *output)
{
	JsonObject *modeled = json_object_has_member(output, "modeled") ?
		json_object_get_object_member(output, "modeled") : NULL;
	double ns = modeled ? command_roi_ns(modeled) : -1;
	double count = member(output, "figures", "count");
	double own = member(output, "figures", "per_s");
	double per_s;

	if (ns <= 0)
		return -1;
	json_object_set_string_member(modeled, "clock", "modeled");
	json_object_set_double_member(modeled, "seconds", ns / 1e9);
	if (count < 0 || own <= 0)
		return -1;
	per_s = count / (ns / 1e9);
	json_object_set_double_member(modeled, "per_s", per_s);
	json_object_set_double_member(output, "clock_agreement", own / per_s);
	return own / per_s;
}

char *command_llc_warning(JsonObject *output, const char *command, uint64_t llc_bytes,
			  int line_bytes)
{
	JsonObject *modeled = json_object_has_member(output, "modeled") ?
		json_object_get_object_member(output, "modeled") : NULL;
	JsonObject *roi = command_roi(modeled);
	g_autofree char *how = NULL;
	JsonObject *ws;
	uint64_t bytes;
	bool from_line = working_set_of_command(command, &bytes, &how);
	gint64 lines = roi ? json_object_get_int_member_with_default(roi, "memory_lines_read", -1) : -1;

	if (!from_line) {
		if (lines < 0 || line_bytes <= 0 || !llc_bytes)
			return NULL;
		bytes = (uint64_t)lines * (uint64_t)line_bytes;
		how = g_strdup_printf("%" G_GINT64_FORMAT " lines of %d bytes read from memory "
				      "over its whole run", lines, line_bytes);
	}
	ws = json_object_new();
	json_object_set_int_member(ws, "bytes", (gint64)bytes);
	json_object_set_string_member(ws, "from", from_line ? "command line" : "memory reads");
	json_object_set_string_member(ws, "how", how);
	json_object_set_int_member(ws, "llc_bytes", (gint64)llc_bytes);
	json_object_set_boolean_member(ws, "fits_llc", bytes <= llc_bytes);
	json_object_set_object_member(output, "working_set", ws);
	if (bytes > llc_bytes)
		return NULL;
	return g_strdup_printf("its working set (%.3g MiB: %s) fits in the modeled last-level "
			       "cache (%.3g MiB): its figures, CXL/local included, measure the "
			       "cache, not the path to memory", bytes / 1048576.0, how,
			       llc_bytes / 1048576.0);
}

char *command_summary(JsonObject *output)
{
	JsonObject *fig = json_object_has_member(output, "figures") ?
		json_object_get_object_member(output, "figures") : NULL;
	g_autoptr(GString) s = g_string_new(NULL);
	double modeled = member(output, "modeled", "per_s");
	double seconds = member(output, "modeled", "seconds");

	g_string_append_printf(s, "exit %" G_GINT64_FORMAT,
			       json_object_get_int_member_with_default(output, "exit", -1));
	if (fig) {
		const char *unit = json_object_get_string_member_with_default(fig, "unit", "");

		g_string_append_printf(s, "; %s: %.6g %s at %.6g %s/s by its clock",
			json_object_get_string_member_with_default(fig, "parser", "?"),
			json_object_get_double_member_with_default(fig, "count", -1), unit,
			json_object_get_double_member_with_default(fig, "per_s", -1), unit);
		if (modeled > 0)
			g_string_append_printf(s, ", %.6g %s/s over the modeled %.4g s "
					       "(own/modeled %.3f)", modeled, unit, seconds,
					       json_object_get_double_member_with_default(
						       output, "clock_agreement", -1));
	} else if (seconds > 0) {
		g_string_append_printf(s, "; modeled %.4g s", seconds);
	}
	return g_string_free(g_steal_pointer(&s), FALSE);
}

static double ratio(double a, double b)
{
	return a > 0 && b > 0 ? a / b : -1;
}

void command_compare_nodes(struct run_result *r, const char *host, const char *name)
{
	struct res_host *h = result_find_host(r, host);
	struct res_workload *local = NULL;
	int local_node = first_node(h, "local");

	if (local_node < 0)
		return;
	for (guint i = 0; i < r->workloads->len; i++) {
		struct res_workload *w = g_ptr_array_index(r->workloads, i);

		if (!strcmp(w->host, host) && !strcmp(w->name, name) &&
		    w->node == local_node && w->output)
			local = w;
	}
	if (!local)
		return;
	for (guint i = 0; i < r->workloads->len; i++) {
		struct res_workload *w = g_ptr_array_index(r->workloads, i);
		struct res_node *n;
		double own, mod;
		char a[32], b[32];
		JsonObject *v;

		if (strcmp(w->host, host) || strcmp(w->name, name) || w->node < 0 ||
		    !w->output || !(n = result_host_find_node(h, w->node)) ||
		    g_strcmp0(n->kind, "cxl"))
			continue;
		own = ratio(member(w->output, "figures", "per_s"),
			    member(local->output, "figures", "per_s"));
		mod = ratio(member(w->output, "modeled", "per_s"),
			    member(local->output, "modeled", "per_s"));
		v = json_object_new();
		json_object_set_int_member(v, "node", local_node);
		json_object_set_double_member(v, "per_s", own);
		json_object_set_double_member(v, "modeled_per_s", mod);
		json_object_set_object_member(w->output, "vs_local", v);
		progress(host, name, "CXL/local (node %d / node %d): %s by the "
			 "program's clock, %s modeled", w->node, local_node,
			 fig_format(a, sizeof(a), own, "%.3f"),
			 fig_format(b, sizeof(b), mod, "%.3f"));
	}
}
