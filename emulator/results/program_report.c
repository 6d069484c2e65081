/* SPDX-License-Identifier: MIT */
/* Command workloads' results in the reports (program_report.h). */
#include "results/program_report.h"
#include "results/escape.h"
#include "results/figures.h"

const char *const program_report_cols[PROGRAM_NCOLS + 1] = {
	"host", "workload", "where", "exit", "by its own clock",
	"over the modeled time", "own / modeled", "CXL / local (own, modeled)", NULL,
};

static JsonObject *obj(JsonObject *o, const char *key)
{
	JsonNode *n = o ? json_object_get_member(o, key) : NULL;

	return n && JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
}

static double num(JsonObject *o, const char *key)
{
	JsonNode *n = o ? json_object_get_member(o, key) : NULL;

	return n && JSON_NODE_HOLDS_VALUE(n) &&
	       json_node_get_value_type(n) != G_TYPE_STRING ? json_node_get_double(n) : -1;
}

static const char *str(JsonObject *o, const char *key)
{
	JsonNode *n = o ? json_object_get_member(o, key) : NULL;

	return n && JSON_NODE_HOLDS_VALUE(n) &&
	       json_node_get_value_type(n) == G_TYPE_STRING ? json_node_get_string(n) : NULL;
}

static bool is_command(const struct res_workload *w)
{
	return w->output && str(w->output, "command");
}

static void row_free(gpointer p)
{
	struct program_row *row = p;

	for (int i = 0; i < PROGRAM_NCOLS; i++)
		g_free(row->cells[i]);
	g_free(row);
}

static struct program_row *row_of(const struct res_workload *w)
{
	struct program_row *row = g_new0(struct program_row, 1);
	JsonObject *fig = obj(w->output, "figures"), *mod = obj(w->output, "modeled");
	JsonObject *vs = obj(w->output, "vs_local");
	const char *unit = fig ? str(fig, "unit") : NULL;
	char a[32], b[32];

	unit = unit ? unit : "";
	row->cells[0] = g_strdup(w->host);
	row->cells[1] = g_strdup(w->name);
	row->cells[2] = w->region ? g_strdup_printf("region %s", w->region) :
		w->node >= 0 ? g_strdup_printf("node %d", w->node) : g_strdup("-");
	row->cells[3] = json_object_has_member(w->output, "exit") ?
		g_strdup_printf("%.0f", num(w->output, "exit")) : g_strdup("-");
	row->cells[4] = fig && num(fig, "per_s") > 0 ?
		g_strdup_printf("%.6g %s at %.6g %s/s (%s)", num(fig, "count"), unit,
				num(fig, "per_s"), unit, str(fig, "parser") ? str(fig, "parser") : "?") :
		g_strdup("-");
	if (num(mod, "per_s") > 0)
		row->cells[5] = g_strdup_printf("%.6g %s/s over %.4g s", num(mod, "per_s"), unit,
						num(mod, "seconds"));
	else if (num(mod, "seconds") > 0)
		row->cells[5] = g_strdup_printf("%.4g s", num(mod, "seconds"));
	else
		row->cells[5] = g_strdup("-");
	row->cells[6] = g_strdup(fig_format(a, sizeof(a), num(w->output, "clock_agreement"),
					    "%.3f"));
	row->cells[7] = vs ? g_strdup_printf("%s, %s", fig_format(a, sizeof(a), num(vs, "per_s"), "%.3f"),
					     fig_format(b, sizeof(b), num(vs, "modeled_per_s"), "%.3f")) :
		g_strdup("-");
	row->log = str(w->output, "log");
	return row;
}

GPtrArray *program_report_rows(const struct run_result *r)
{
	GPtrArray *rows = NULL;

	for (guint i = 0; i < r->workloads->len; i++) {
		const struct res_workload *w = g_ptr_array_index(r->workloads, i);

		if (!is_command(w))
			continue;
		if (!rows)
			rows = g_ptr_array_new_with_free_func(row_free);
		g_ptr_array_add(rows, row_of(w));
	}
	return rows;
}

char *program_report_note(const struct run_result *r)
{
	return g_strdup_printf("Each program's own figure is what it printed, on %s; "
			       "over the modeled time is the same count over its region's "
			       "modeled time (the timing model's ROI); own / modeled "
			       "compares the two; CXL / local divides a CXL node's run by the "
			       "same workload's on the local node (docs/scenarios.md). Its "
			       "whole output is in its log.", result_clock_words(r, "guest"));
}

void program_report_md(GString *s, const struct run_result *r)
{
	g_autoptr(GPtrArray) rows = program_report_rows(r);
	g_autofree char *note = NULL;

	if (!rows)
		return;
	note = program_report_note(r);
	g_string_append_printf(s, "\n## Programs\n\n%s\n\n|", note);
	for (int i = 0; i < PROGRAM_NCOLS; i++)
		g_string_append_printf(s, " %s |", program_report_cols[i]);
	g_string_append(s, " log |\n|");
	for (int i = 0; i <= PROGRAM_NCOLS; i++)
		g_string_append(s, "---|");
	g_string_append_c(s, '\n');
	for (guint i = 0; i < rows->len; i++) {
		const struct program_row *row = g_ptr_array_index(rows, i);

		g_string_append_c(s, '|');
		for (int c = 0; c < PROGRAM_NCOLS; c++)
			md_cell(s, row->cells[c]);
		g_string_append_c(s, ' ');
		if (row->log)
			md_link(s, row->log, row->log);
		else
			g_string_append_c(s, '-');
		g_string_append(s, " |\n");
	}
}
