/* SPDX-License-Identifier: MIT */
/*
 * cxlbed compare without QEMU: the committed reference table against
 * itself and against copies with one figure moved, thresholds, checks,
 * bad input, and the JUnit and JSON forms.
 */
#include "tap.h"
#include "compare.h"
#include "error.h"
#include "result_read.h"

static struct table *ref_table(void)
{
	g_autofree char *p = g_build_filename(SRCDIR, "results/reference/table/table.json", NULL);

	return table_load(p, NULL);
}

static struct run_result *ref_run(void)
{
	g_autofree char *p = g_build_filename(SRCDIR, "results/reference/table/default/summary.json", NULL);

	return result_load(p, NULL);
}

static struct table_row *find_row(struct table *t, const char *topo, int node)
{
	for (guint i = 0; i < t->rows->len; i++) {
		struct table_row *r = g_ptr_array_index(t->rows, i);

		if (!g_strcmp0(r->topology, topo) && !r->dax && r->node == node)
			return r;
	}
	return NULL;
}

static struct compare *cmp_tables(struct table *a, struct table *b, const char *const *th,
				  GError **err)
{
	struct cmp_thresholds t;
	struct compare *c;

	cmp_thresholds_init(&t);
	for (; th && *th; th++)
		cmp_thresholds_parse(&t, *th, NULL);
	c = compare_sides(cmp_side_from_table("base", a), cmp_side_from_table("cand", b), &t, err);
	cmp_thresholds_clear(&t);
	return c;
}

static const struct cmp_figure *figure(const struct compare *c, const char *topo,
				       const char *where, const char *name)
{
	for (guint i = 0; i < c->figures->len; i++) {
		const struct cmp_figure *g = g_ptr_array_index(c->figures, i);

		if (g->base && !strcmp(g->base->topology, topo) && !strcmp(g->base->where, where) &&
		    !strcmp(g->base->figure, name))
			return g;
	}
	return NULL;
}

static void test_tables(void)
{
	g_autoptr(table) a = ref_table(), b = ref_table(), c = ref_table();
	g_autoptr(compare) same = NULL, slow = NULL, loose = NULL, fast = NULL;
	const char *const loose_th[] = { "latency=15%", NULL };
	const char *const fig_th[] = { "latency_ns=11", NULL };
	const struct cmp_figure *g;

	if (!ok(a && b && c, "reference table read three times"))
		return;
	same = cmp_tables(a, b, NULL, NULL);
	ok(same && same->regressions == 0 && same->improvements == 0 && same->figures->len > 50,
	   "the reference against itself: no regression (%u figures)", same ? same->figures->len : 0);
	ok(same && !g_strcmp0(same->clock, "modeled"), "figures on the modeled clock");

	find_row(b, "direct", 1)->latency_ns *= 1.10;
	slow = cmp_tables(a, b, NULL, NULL);
	g = slow ? figure(slow, "direct", "node 1", "latency_ns") : NULL;
	ok(slow && slow->regressions == 1 && g && g->status == CMP_REGRESSED,
	   "direct node 1 latency +10%%: one regression, on that figure");
	ok(g && g->change > 0.099 && g->change < 0.101, "its change is +10%%");
	loose = cmp_tables(a, b, loose_th, NULL);
	ok(loose && loose->regressions == 0, "--threshold latency=15%%: no regression");
	g_clear_pointer(&loose, compare_free);
	loose = cmp_tables(a, b, fig_th, NULL);
	ok(loose && loose->regressions == 0, "--threshold latency_ns=11: per-figure override");

	find_row(c, "default", 1)->read_gbps *= 1.20;	/* faster: improvement */
	find_row(c, "default", 0)->write_gbps *= 0.96;	/* within 5% */
	fast = cmp_tables(a, c, NULL, NULL);
	ok(fast && fast->regressions == 0 && fast->improvements == 1,
	   "bandwidth +20%% improves, -4%% is within");
	g = fast ? figure(fast, "default", "node 1", "read_gbps") : NULL;
	ok(g && g->status == CMP_IMPROVED, "the improvement is default node 1 read_gbps");
}

static void test_lost_and_checks(void)
{
	g_autoptr(table) a = ref_table(), b = ref_table();
	g_autoptr(compare) c = NULL;

	find_row(b, "cascade", 0)->write_gbps = -1;	/* no longer measured */
	((struct table_run *)g_ptr_array_index(b->runs, 1))->passed = false;
	c = cmp_tables(a, b, NULL, NULL);
	ok(c && figure(c, "cascade", "node 0", "write_gbps")->status == CMP_LOST,
	   "a figure measured before and not now is LOST");
	ok(c && c->regressions == 2, "LOST and a run that passed and now fails: 2 regressions");
}

static void test_bad_input(void)
{
	g_autoptr(table) a = ref_table(), b = ref_table();
	g_autoptr(run_result) r = ref_run();
	g_autoptr(GError) err = NULL;
	struct cmp_thresholds th;
	struct compare *c;

	cmp_thresholds_init(&th);
	c = compare_sides(cmp_side_from_table("t", a), cmp_side_from_run("r", r), &th, &err);
	ok(!c && err && err->code == CXLBED_ERROR_INPUT && strstr(err->message, "compare a run with a run"),
	   "a table against a run: bad input");
	g_clear_error(&err);
	for (guint i = 0; i < b->rows->len; i++) {
		struct table_row *row = g_ptr_array_index(b->rows, i);

		g_free(row->topology);
		row->topology = g_strdup("other");
	}
	c = cmp_tables(a, b, NULL, &err);
	ok(!c && err && strstr(err->message, "nothing to compare"), "no row in common: bad input");
	g_clear_error(&err);
	for (guint i = 0; i < b->rows->len; i++) {
		struct table_row *row = g_ptr_array_index(b->rows, i);

		g_free(row->topology);
		row->topology = g_strdup(((struct table_row *)g_ptr_array_index(a->rows, i))->topology);
		g_free(row->clock);
		row->clock = g_strdup("guest");
	}
	c = cmp_tables(a, b, NULL, &err);
	ok(!c && err && strstr(err->message, "clock"), "modeled against guest clock: bad input");
	g_clear_error(&err);
	ok(!cmp_thresholds_parse(&th, "latency=fast", &err) && err, "a bad --threshold is refused");
	g_clear_error(&err);
	ok(cmp_thresholds_parse(&th, "7%", NULL) && th.latency == 0.07 && th.bandwidth == 0.07,
	   "--threshold 7%% sets both kinds");
	cmp_thresholds_clear(&th);
}

static void test_runs_and_forms(void)
{
	g_autoptr(run_result) a = ref_run(), b = ref_run();
	struct cmp_thresholds th;
	g_autoptr(compare) c = NULL;
	g_autofree char *xml = NULL;
	g_autoptr(JsonNode) json = NULL;
	struct res_check *k;

	if (!ok(a && b, "reference default run read twice"))
		return;
	k = g_ptr_array_index(b->checks, 0);
	k->pass = false;
	for (guint i = 0; i < b->workloads->len; i++) {
		struct res_workload *w = g_ptr_array_index(b->workloads, i);

		if (!strcmp(w->name, "chase") && w->node == 1)
			json_object_set_double_member(json_object_get_object_member(w->output, "modeled"),
						      "ns_per_access", 250.0);
	}
	cmp_thresholds_init(&th);
	c = compare_sides(cmp_side_from_run("a", a), cmp_side_from_run("b", b), &th, NULL);
	cmp_thresholds_clear(&th);
	ok(c && c->regressions == 2, "runs: a slower chase and a check that now fails (%u)",
	   c ? c->regressions : 0);
	xml = c ? compare_to_junit(c) : NULL;
	ok(xml && strstr(xml, "failures=\"2\"") &&
	   strstr(xml, "classname=\"default.h0.node 1.chase\" name=\"ns_per_access\"><failure"),
	   "JUnit: two failures, one on the chase row");
	json = c ? compare_to_json(c) : NULL;
	ok(json && !strcmp(json_object_get_string_member(json_node_get_object(json), "verdict"),
			   "regression"), "JSON verdict regression");
}

int main(void)
{
	plan(20);
	test_tables();
	test_lost_and_checks();
	test_bad_input();
	test_runs_and_forms();
	return tap_failed ? 1 : 0;
}
