/* SPDX-License-Identifier: MIT */
/*
 * Run data in the reports stays text: a host or label that is markup, a
 * run folder that is a script address. Markdown cells keep their table,
 * links are only http(s) or paths beside the page, and what `cxlbed
 * report` redraws from a table (table.md, the page) keeps every figure
 * the table had: devdax rows name their device, the bound column is read
 * back, no row is named that does not exist.
 */
#include "tap.h"
#include "results/escape.h"
#include "results/html.h"
#include "results/result_read.h"

static char *ref(const char *rel)
{
	return g_build_filename(SRCDIR, "results/reference/table", rel, NULL);
}

static void test_markdown(void)
{
	g_autoptr(GString) s = g_string_new(NULL);

	md_text(s, "<script>alert(1)</script>|[x](javascript:y)\nz");
	is_str(s->str, "\\<script\\>alert(1)\\</script\\>\\|\\[x\\](javascript:y) z",
	       "md_text: markup, a cell's pipe, a link and a line break are escaped");
	g_string_truncate(s, 0);
	md_code(s, "hb0/{a|b}`c");
	is_str(s->str, "`` hb0/{a\\|b}`c ``", "md_code: a fence past the backtick, the pipe escaped");
	g_string_truncate(s, 0);
	md_link(s, "x", "javascript:alert(1)");
	is_str(s->str, "x", "md_link: a script address is no link");
}

static void test_href(void)
{
	static const char *const refused[] = {
		"javascript:alert(1)", "JavaScript:alert(1)/report.html", "file:///etc/passwd",
		"data:text/html,x", "/etc/passwd", "//evil.example/x", "../up/report.html",
		"a//b", "http://x/\"onmouseover=", "",
	};
	g_autofree char *rel = report_href("my run #1/report.html");
	g_autofree char *web = report_href("https://example.org/doc?a=1&b=2");
	bool none = true;

	for (size_t i = 0; i < G_N_ELEMENTS(refused); i++) {
		g_autofree char *h = report_href(refused[i]);

		if (h) {
			diag("linked: %s -> %s", refused[i], h);
			none = false;
		}
	}
	ok(none, "no link to another scheme, an absolute path, a parent folder or a broken address");
	is_str(rel, "my%20run%20%231/report.html", "a relative path, each part percent-encoded");
	is_str(web, "https://example.org/doc?a=1&b=2", "an http(s) address as it is");
}

/* The reference table with a hostile run folder and host: the page and
 * table.md keep them as text. */
static void test_hostile_table(void)
{
	g_autofree char *path = ref("table.json");
	g_autoptr(table) t = table_load(path, NULL);
	g_autofree char *page = NULL, *md = NULL;
	struct table_run *run;
	struct table_row *row;

	if (!ok(t != NULL, "reference table.json reads back"))
		return;
	run = g_ptr_array_index(t->runs, 0);
	g_free(run->out_dir);
	run->out_dir = g_strdup("javascript:alert(1)");
	row = g_ptr_array_index(t->rows, 0);
	g_free(row->host);
	row->host = g_strdup("<script>alert(1)</script>|x");
	page = html_table_report(t, NULL, 0);
	md = table_to_markdown(t);
	ok(!strstr(page, "href=\"javascript") && !strstr(page, "<script"),
	   "page: the run folder is no link, the host no script");
	ok(strstr(page, "&lt;script&gt;alert(1)&lt;/script&gt;|x") != NULL, "page: the host as text");
	ok(strstr(md, "| direct | \\<script\\>alert(1)\\</script\\>\\|x | 0 | local |") != NULL,
	   "table.md: the host escaped, its row keeps its cells");
}

/* table.md and the page from table.json: what `cxlbed report` writes. */
static void test_table_redrawn(void)
{
	g_autofree char *path = ref("table.json");
	g_autoptr(table) t = table_load(path, NULL);
	g_autofree char *md = t ? table_to_markdown(t) : NULL;
	guint bound = 0, dax = 0;

	if (!ok(t != NULL, "reference table.json reads back"))
		return;
	for (guint i = 0; i < t->rows->len; i++) {
		const struct table_row *r = g_ptr_array_index(t->rows, i);

		bound += strcmp(table_row_bound(r), "-") != 0;
	}
	is_int(bound, t->rows->len, "cores_read_gbps read back: every row has its bound");
	for (const char *p = md; (p = strstr(p, "| dax0.0 | dax |")); p++)
		dax++;
	is_int(dax, 3, "table.md: the three devdax rows name their device (dax0.0), not node 0");
	ok(!strstr(md, "-1 the idle chase") && !strstr(md, "Load threads -1"),
	   "table.md names no idle-chase row where none exists");
}

int main(void)
{
	plan(14);
	test_markdown();
	test_href();
	test_hostile_table();
	test_table_redrawn();
	return tap_failed ? 1 : 0;
}
