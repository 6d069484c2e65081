/* SPDX-License-Identifier: MIT */
/* cxlbed compare BASELINE CANDIDATE [--threshold ...] [--format ...] */
#include "cli/commands.h"
#include "results/compare.h"
#include "common/error.h"
#include "common/json_write.h"
#include "results/result_read.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

/* One side: a run or table folder, or its JSON file (*json: which file). */
static struct cmp_side *load_side(const char *path, char **json, GError **error)
{
	enum result_kind kind;

	*json = result_locate(path, &kind, error);
	if (!*json)
		return NULL;
	if (kind == RESULT_RUN) {
		g_autoptr(run_result) r = result_load(*json, error);

		return r ? cmp_side_from_run(path, *json, r, error) : NULL;
	} else {
		g_autoptr(table) t = table_load(*json, error);

		return t ? cmp_side_from_table(path, t) : NULL;
	}
}

/* A result against itself proves nothing: refuse the same file twice. */
static bool same_file(const char *a, const char *b, GError **error)
{
	GStatBuf sa, sb;

	if (g_stat(a, &sa) || g_stat(b, &sb) || sa.st_dev != sb.st_dev || sa.st_ino != sb.st_ino)
		return false;
	g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT, "BASELINE %s and CANDIDATE %s are "
		    "the same file; give the committed baseline and a new result", a, b);
	return true;
}

static bool write_json(const struct compare *c, const char *path, GError **error)
{
	g_autoptr(JsonNode) root = compare_to_json(c);

	if (!strcmp(path, "-")) {
		g_autofree char *text = json_write_text(root, true);

		printf("%s\n", text);
		return true;
	}
	return json_write_file(root, path, error);
}

static bool write_junit(const struct compare *c, const char *path, GError **error)
{
	g_autofree char *xml = compare_to_junit(c);

	if (!strcmp(path, "-")) {
		fputs(xml, stdout);
		return true;
	}
	return g_file_set_contents(path, xml, -1, error);
}

int cmd_compare(int argc, char **argv)
{
	g_auto(GStrv) thresholds = NULL;
	g_autofree char *format = NULL, *junit = NULL, *json = NULL;
	g_autofree char *base_json = NULL, *cand_json = NULL;
	GOptionEntry entries[] = {
		{ "threshold", 't', 0, G_OPTION_ARG_STRING_ARRAY, &thresholds,
		  "allowed change in the bad direction, in percent: PCT for every figure, "
		  "latency=PCT, bandwidth=PCT, or FIGURE=PCT (e.g. read_gbps=10%); "
		  "repeatable; defaults latency 5%, bandwidth 5%", "SPEC" },
		{ "format", 'f', 0, G_OPTION_ARG_STRING, &format,
		  "what to print: table (default), json or junit", "FORMAT" },
		{ "junit", 0, 0, G_OPTION_ARG_FILENAME, &junit,
		  "also write JUnit XML to FILE (for CI test reports)", "FILE" },
		{ "json", 0, 0, G_OPTION_ARG_FILENAME, &json,
		  "also write the comparison as JSON (schema " COMPARE_SCHEMA ") to FILE", "FILE" },
		{ NULL }
	};
	g_autoptr(GError) err = NULL;
	g_autoptr(compare) c = NULL;
	struct cmp_thresholds th;
	struct cmp_side *base, *cand;
	int rc;

	if (!verb_options(&argc, &argv, "BASELINE CANDIDATE",
			  "Compare two runs (run folders or summary.json) or two tables (table\n"
			  "folders or table.json): figures are matched by topology, host, node or\n"
			  "region, and workload, checks by name, and printed side by side. A\n"
			  "regression: a latency that rose, or a bandwidth that fell, by more than\n"
			  "its threshold; a figure no longer measured; a check that fails in the\n"
			  "candidate and passed or was absent in the baseline; a baseline check the\n"
			  "candidate lacks; a check or row given twice in either. New checks that\n"
			  "pass are listed; rows only one side has are listed, not judged.\n"
			  "Exit status: 0 no regression, 1 a regression, 2 bad input (unreadable,\n"
			  "another schema, a figure that is not a number, the same file twice, a\n"
			  "run against a table, nothing in common, figures on different clocks).", entries))
		return 2;
	if (argc != 3)
		return verb_usage("compare", "give BASELINE and CANDIDATE, e.g. "
			"cxlbed compare results/reference/table results/table-NEW");
	if (format && strcmp(format, "table") && strcmp(format, "json") && strcmp(format, "junit"))
		return verb_usage("compare", "--format %s: want table, json or junit", format);
	cmp_thresholds_init(&th);
	for (char **t = thresholds; t && *t; t++)
		if (!cmp_thresholds_parse(&th, *t, &err)) {
			fprintf(stderr, "cxlbed compare: %s\n", err->message);
			cmp_thresholds_clear(&th);
			return 2;
		}
	base = load_side(argv[1], &base_json, &err);
	cand = base ? load_side(argv[2], &cand_json, &err) : NULL;
	if (base && cand && !same_file(base_json, cand_json, &err))
		c = compare_sides(base, cand, &th, &err);
	else {
		cmp_side_free(base);
		cmp_side_free(cand);
	}
	cmp_thresholds_clear(&th);
	if (!c)
		return verb_usage("compare", "%s", err->message);
	if (!format || !strcmp(format, "table"))
		compare_print(c, stdout);
	else if (!strcmp(format, "json"))
		write_json(c, "-", NULL);
	else
		write_junit(c, "-", NULL);
	rc = c->regressions ? 1 : 0;
	if ((junit && !write_junit(c, junit, &err)) || (json && !write_json(c, json, &err)))
		return verb_usage("compare", "%s", err->message);
	return rc;
}
