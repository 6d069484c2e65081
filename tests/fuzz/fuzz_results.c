/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: any bytes as a summary.json or, when they name
 * cxlbed.table/, a table.json: what cxlbed compare, report and sweep
 * --collect read. Bad input must come back as an input error naming the
 * file, printable; a result that reads must survive what those verbs do
 * with it: compared with itself (no regression but its duplicates), its
 * comparison written as JSON that reads back, its report and table drawn,
 * and written back as summary.json/table.json that reads again.
 */
#include "results/compare.h"
#include "common/error.h"
#include "results/html.h"
#include "common/json_read.h"
#include "common/json_write.h"
#include "results/result_read.h"

#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_FILE "fuzz/result.json"

/* An error as it reaches a terminal: "FILE: ...", UTF-8, no control characters. */
static void check_error(const GError *e)
{
	if (e->domain != CXLBED_ERROR || e->code != CXLBED_ERROR_INPUT ||
	    !g_str_has_prefix(e->message, FUZZ_FILE ":") || !g_utf8_validate(e->message, -1, NULL))
		abort();
	for (const char *p = e->message; *p; p = g_utf8_next_char(p))
		if (g_unichar_iscntrl(g_utf8_get_char(p)))
			abort();
}

/* JSON we write must be JSON we read. */
static void check_json(JsonNode *root)
{
	g_autofree char *text = json_write_text(root, true);
	g_autoptr(JsonNode) back = json_read_text("out", text, -1, NULL);

	if (!back)
		abort();
}

static void check_compare(struct cmp_side *a, struct cmp_side *b)
{
	static FILE *devnull;
	struct cmp_thresholds th;
	g_autoptr(GError) err = NULL;
	g_autoptr(compare) c = NULL;
	g_autoptr(JsonNode) json = NULL;
	g_autofree char *junit = NULL;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	cmp_thresholds_init(&th);
	c = compare_sides(a, b, &th, &err);
	cmp_thresholds_clear(&th);
	if (!c) {
		if (err->domain != CXLBED_ERROR || !strstr(err->message, "nothing to compare"))
			abort();	/* the same result: no clock differs */
		return;
	}
	/* against itself, only what it gives twice fails the gate */
	if (c->regressions != c->duplicates->len)
		abort();
	compare_print(c, devnull);
	json = compare_to_json(c);
	check_json(json);
	junit = compare_to_junit(c);
	if (!g_utf8_validate(junit, -1, NULL))
		abort();
}

static void fuzz_run(const char *text, size_t size)
{
	g_autoptr(GError) err = NULL;
	g_autoptr(run_result) r = result_parse(FUZZ_FILE, text, size, &err);
	g_autoptr(JsonNode) back = NULL;
	g_autofree char *html = NULL, *again_text = NULL;
	g_autoptr(run_result) again = NULL;
	struct cmp_side *a, *b;

	if (!r) {
		check_error(err);
		return;
	}
	a = cmp_side_from_run("a", FUZZ_FILE, r, &err);
	b = a ? cmp_side_from_run("b", FUZZ_FILE, r, NULL) : NULL;
	if (!a)
		check_error(err);
	else
		check_compare(a, b);
	html = html_run_report(r, NULL);
	back = result_to_json(r);
	again_text = json_write_text(back, false);
	again = result_parse("again", again_text, strlen(again_text), NULL);
	if (!again)
		abort();	/* summary.json as written must read */
}

static void fuzz_table(const char *text, size_t size)
{
	g_autoptr(GError) err = NULL;
	g_autoptr(table) t = table_parse(FUZZ_FILE, text, size, &err);
	g_autoptr(JsonNode) back = NULL;
	g_autofree char *html = NULL, *svg = NULL, *md = NULL, *again_text = NULL;
	g_autoptr(table) again = NULL;

	if (!t) {
		check_error(err);
		return;
	}
	check_compare(cmp_side_from_table("a", t), cmp_side_from_table("b", t));
	html = html_table_report(t, NULL, 0);
	svg = table_curves_svg(t);
	md = table_to_markdown(t);
	back = table_to_json(t);
	again_text = json_write_text(back, false);
	again = table_parse("again", again_text, strlen(again_text), NULL);
	if (!again)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (memmem(data, size, "cxlbed.table/", 13))
		fuzz_table((const char *)data, size);
	else
		fuzz_run((const char *)data, size);
	return 0;
}
