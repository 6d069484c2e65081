/* SPDX-License-Identifier: MIT */
/*
 * cxlbed compare without QEMU: the committed reference table against
 * itself and against copies with one figure moved, thresholds, checks,
 * bad input, and the JUnit and JSON forms.
 */
#include <stdlib.h>

#include "tap.h"
#include "results/compare.h"
#include "common/error.h"
#include "results/result_read.h"

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
	c = compare_sides(cmp_side_from_table("t", a), cmp_side_from_run("r", "r", r, NULL), &th, &err);
	ok(!c && err && err->code == CXLBED_ERROR_INPUT && strstr(err->message, "compare a run with a run"),
	   "a table against a run: bad input");
	g_clear_error(&err);
	for (guint i = 0; i < b->rows->len; i++) {
		struct table_row *row = g_ptr_array_index(b->rows, i);

		g_free(row->topology);
		row->topology = g_strdup_printf("other%u", i);	/* each its own: no row twice */
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
	c = compare_sides(cmp_side_from_run("a", "a", a, NULL), cmp_side_from_run("b", "b", b, NULL), &th, NULL);
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

static struct compare *cmp_runs(struct run_result *a, struct run_result *b)
{
	struct cmp_thresholds th;
	struct compare *c;

	cmp_thresholds_init(&th);
	c = compare_sides(cmp_side_from_run("base", "base/summary.json", a, NULL),
			  cmp_side_from_run("cand", "cand/summary.json", b, NULL), &th, NULL);
	cmp_thresholds_clear(&th);
	return c;
}

static const struct cmp_check *check_of(const struct compare *c, const char *name)
{
	for (guint i = 0; c && i < c->checks->len; i++) {
		const struct cmp_check *k = g_ptr_array_index(c->checks, i);

		if (!strcmp(k->name, name))
			return k;
	}
	return NULL;
}

/* Where run @r holds check @name (the reference's order is its runner's). */
static guint check_index(const struct run_result *r, const char *name)
{
	for (guint i = 0; i < r->checks->len; i++)
		if (!strcmp(((const struct res_check *)g_ptr_array_index(r->checks, i))->name, name))
			return i;
	printf("Bail out! the reference run has no check %s\n", name);
	exit(1);
}

static char *printed(const struct compare *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	compare_print(c, f);
	fclose(f);
	return text;
}

static struct res_workload *workload(struct run_result *r, const char *name, int node)
{
	for (guint i = 0; i < r->workloads->len; i++) {
		struct res_workload *w = g_ptr_array_index(r->workloads, i);

		if (!strcmp(w->name, name) && w->node == node)
			return w;
	}
	return NULL;
}

/* A second chase row on @node, its figure @ns, ahead of the first (the bad copy first). */
static void repeat_chase(struct run_result *r, int node, double ns)
{
	struct res_workload *w = workload(r, "chase", node);
	struct res_workload *copy = result_add_workload(r, w->host, w->name, w->program, w->node);
	JsonObject *modeled = json_object_new();

	json_object_set_double_member(modeled, "ns_per_access", ns);
	copy->output = json_object_new();
	json_object_set_object_member(copy->output, "modeled", modeled);
	copy->ok = true;
	g_ptr_array_insert(r->workloads, 0, g_ptr_array_steal_index(r->workloads,
								     r->workloads->len - 1));
}

/* Issue 34 #2: each way a candidate got worse that compare let pass. */
static void test_gate_checks(void)
{
	g_autoptr(run_result) a = ref_run();
	guint nchecks = a ? a->checks->len : 0;
	static const char *const new_failures[] = { "qemu:h0", "interrupted" };

	if (!ok(a != NULL, "reference default run read"))
		return;
	for (guint i = 0; i < G_N_ELEMENTS(new_failures); i++) {
		g_autoptr(run_result) b = ref_run();
		g_autoptr(compare) c = NULL;
		g_autofree char *text = NULL;
		const struct cmp_check *k;

		result_check(b, new_failures[i], false, "QEMU ended before teardown");
		c = cmp_runs(a, b);
		k = check_of(c, new_failures[i]);
		text = c ? printed(c) : NULL;
		ok(c && c->regressions == 1 && k && k->status == CHK_NEW_FAILS && k->regressed,
		   "a check the baseline lacks failing in the candidate (%s) fails the gate",
		   new_failures[i]);
		ok(text && strstr(text, "new in the candidate, FAILS") &&
		   strstr(text, "verdict: regression"), "and the table says so");
	}
	{
		g_autoptr(run_result) b = ref_run();
		g_autoptr(compare) c = NULL;
		g_autofree char *text = NULL;

		result_check(b, "extra:h0", true, "a check this cxlbed adds");
		c = cmp_runs(a, b);
		text = c ? printed(c) : NULL;
		ok(c && c->regressions == 0 && check_of(c, "extra:h0") &&
		   check_of(c, "extra:h0")->status == CHK_NEW,
		   "a new check that passes is new, not a regression");
		g_autofree char *counts = g_strdup_printf("checks: %u in both, 1 new, 0 lost; "
							   "0 fail in the candidate", nchecks);

		ok(text && strstr(text, counts) &&
		   strstr(text, "check extra:h0: new in the candidate, passes"),
		   "and it is counted and named, not ignored");
	}
	{
		g_autoptr(run_result) b = ref_run();
		g_autoptr(compare) c = NULL;

		g_ptr_array_remove_index(b->checks, check_index(b, "enumeration:h0:ports"));
		c = cmp_runs(a, b);
		ok(c && c->regressions == 1 && check_of(c, "enumeration:h0:ports") &&
		   check_of(c, "enumeration:h0:ports")->status == CHK_LOST,
		   "a check the candidate dropped is LOST: the gate fails");
		g_clear_pointer(&c, compare_free);
		g_ptr_array_set_size(b->checks, 0);
		c = cmp_runs(a, b);
		ok(c && c->regressions == nchecks,
		   "a candidate without any check: every one LOST (%u of %u)",
		   c ? c->regressions : 0, nchecks);
	}
	{
		g_autoptr(run_result) b = ref_run();
		g_autoptr(compare) c = NULL;
		g_autofree char *text = NULL;
		const struct cmp_dup *d;

		/* the failing copy first, the passing one after it */
		g_ptr_array_insert(b->checks, 0, g_new0(struct res_check, 1));
		((struct res_check *)g_ptr_array_index(b->checks, 0))->name = g_strdup("boot:h0");
		((struct res_check *)g_ptr_array_index(b->checks, 0))->detail = g_strdup("failed");
		c = cmp_runs(a, b);
		d = c && c->duplicates->len ? g_ptr_array_index(c->duplicates, 0) : NULL;
		text = c ? printed(c) : NULL;
		ok(c && c->regressions == 1 && d && !strcmp(d->name, "boot:h0") &&
		   !strcmp(d->side, "candidate") && d->copies == 2 && !check_of(c, "boot:h0"),
		   "a check given twice fails the gate, neither copy picked");
		ok(text && strstr(text, "regressed: check 'boot:h0' given 2 times in the candidate"),
		   "and the table names it");
	}
	{
		g_autoptr(run_result) b = ref_run();
		g_autoptr(run_result) fixed = ref_run();
		g_autoptr(run_result) broken = ref_run();
		g_autoptr(compare) c = NULL, d = NULL;

		guint k = check_index(b, "timing:h0:region-base:r0");

		((struct res_check *)g_ptr_array_index(broken->checks, k))->pass = false;
		((struct res_check *)g_ptr_array_index(b->checks, k))->pass = false;
		c = cmp_runs(broken, b);
		ok(c && c->regressions == 0 &&
		   check_of(c, "timing:h0:region-base:r0")->status == CHK_STILL_FAILS,
		   "a check failing in both is said, not a regression");
		d = cmp_runs(broken, fixed);
		ok(d && d->regressions == 0 &&
		   check_of(d, "timing:h0:region-base:r0")->status == CHK_FIXED, "a fixed check passes");
	}
}

static void test_gate_rows(void)
{
	g_autoptr(run_result) a = ref_run();
	g_autoptr(run_result) b = ref_run(), n = ref_run(), s = ref_run();
	g_autoptr(compare) c = NULL, d = NULL;
	g_autoptr(GError) err = NULL;
	const struct cmp_figure *g;
	struct cmp_side *side;

	repeat_chase(b, 1, 999.0);
	c = cmp_runs(a, b);
	ok(c && c->regressions == 1 && c->duplicates->len == 1 &&
	   !strcmp(((struct cmp_dup *)g_ptr_array_index(c->duplicates, 0))->name,
		   "default h0 node 1 chase") &&
	   !figure(c, "default", "node 1", "ns_per_access"),
	   "a workload row given twice (the bad copy first) fails the gate, neither copy judged");

	for (guint i = 0; i < n->hosts->len; i++) {
		struct res_host *h = g_ptr_array_index(n->hosts, i);

		for (guint j = 0; j < h->nodes->len; j++)
			((struct res_node *)g_ptr_array_index(h->nodes, j))->latency_ns *= 1.10;
	}
	d = cmp_runs(a, n);
	g = d ? figure(d, "default", "node 1", "latency_ns") : NULL;
	ok(d && g && !strcmp(g->base->workload, "nodes[]") && g->status == CMP_REGRESSED &&
	   d->regressions == 2, "node table latency +10%%: nodes[] latency_ns regressed on both nodes");

	json_object_set_string_member(json_object_get_object_member(workload(s, "chase", 1)->output,
								     "modeled"), "ns_per_access", "250");
	side = cmp_side_from_run("s", "s/summary.json", s, &err);
	ok(!side && err &&
	   err->code == CXLBED_ERROR_INPUT &&
	   g_str_has_prefix(err->message, "s/summary.json: workloads[1].output.modeled.ns_per_access: "
			    "a figure, want a number or null, found a string"),
	   "a figure given as a string is bad input naming the file and member (%s)",
	   err ? err->message : "");
}

static void test_gate_tables(void)
{
	g_autoptr(table) a = ref_table(), b = ref_table(), two = ref_table(), dup = ref_table();
	g_autoptr(compare) c = NULL, d = NULL, e = NULL;
	struct table_curve *curve;
	struct table_point last;

	/* a table of two of the reference's six topologies: what CI runs */
	for (guint i = two->rows->len; i-- > 0;)
		if (strcmp(((struct table_row *)g_ptr_array_index(two->rows, i))->topology, "direct") &&
		    strcmp(((struct table_row *)g_ptr_array_index(two->rows, i))->topology, "default"))
			g_ptr_array_remove_index(two->rows, i);
	for (guint i = two->runs->len; i-- > 0;)
		if (strcmp(((struct table_run *)g_ptr_array_index(two->runs, i))->topology, "direct") &&
		    strcmp(((struct table_run *)g_ptr_array_index(two->runs, i))->topology, "default"))
			g_ptr_array_remove_index(two->runs, i);
	c = cmp_tables(a, two, NULL, NULL);
	ok(c && c->regressions == 0 && c->only_base->len > 0,
	   "a table of two topologies against the six: the others' runs are not lost");
	g_ptr_array_set_size(b->runs, 0);
	d = cmp_tables(a, b, NULL, NULL);
	ok(d && d->regressions == a->runs->len && check_of(d, "run:direct") &&
	   check_of(d, "run:direct")->status == CHK_LOST,
	   "a table whose rows are there but its runs[] not: every run check LOST");
	curve = g_ptr_array_index(dup->curves, 0);
	last = g_array_index(curve->points, struct table_point, curve->points->len - 1);
	g_array_append_val(curve->points, last);
	e = cmp_tables(a, dup, NULL, NULL);
	ok(e && e->regressions == 1 && e->duplicates->len == 1 &&
	   !strcmp(((struct cmp_dup *)g_ptr_array_index(e->duplicates, 0))->what, "figure"),
	   "a loaded curve with one load given twice: a duplicate figure");
}

/* A guest kernel as summary.json records it (guest_kernel_to_json's members). */
static JsonObject *kernel_json(const char *release, const char *version)
{
	JsonObject *k = json_object_new();

	json_object_set_string_member(k, "release", release);
	json_object_set_string_member(k, "source", "debian");
	json_object_set_string_member(k, "version", version);
	return k;
}

/*
 * One scenario on two kernels (a sweep's kernel axis, docs/kernels.md):
 * every row matches its counterpart, place by place, and the comparison
 * says which kernel each side ran; the same kernel says nothing more.
 */
static void test_kernels(void)
{
	g_autoptr(run_result) a = ref_run(), b = ref_run(), c = ref_run(), old = ref_run();
	g_autoptr(compare) diff = NULL, same = NULL;
	g_autofree char *text = NULL, *json = NULL;
	g_autoptr(JsonNode) node = NULL;

	if (!a || !b || !c || !old) {
		for (int i = 0; i < 4; i++)
			ok(0, "reference run loads");
		return;
	}
	/* the reference records its kernel now: set each side's, and none for @old */
	for (int i = 0; i < 4; i++)
		g_clear_pointer(&(i == 0 ? a : i == 1 ? b : i == 2 ? c : old)->guest_kernel,
				json_object_unref);
	a->guest_kernel = kernel_json("6.12.95+deb12-amd64", "6.12.95-1~bpo12+1");
	b->guest_kernel = kernel_json("7.3.4+deb13-amd64", "7.3.4-1~bpo13+1");
	c->guest_kernel = kernel_json("6.12.95+deb12-amd64", "6.12.95-1~bpo12+1");
	diff = cmp_runs(a, b);
	ok(diff && diff->figures->len > 0 && !diff->only_base->len && !diff->only_cand->len &&
	   !diff->regressions, "6.12 against 7.3: every row matched, nothing lost or new");
	ok(diff && diff->kernels_differ && strstr(diff->base->kernel, "6.12.95") &&
	   strstr(diff->cand->kernel, "7.3.4"), "... and the kernels recorded as different");
	text = diff ? printed(diff) : NULL;
	node = diff ? compare_to_json(diff) : NULL;
	json = node ? json_to_string(node, FALSE) : NULL;
	ok(text && strstr(text, "kernel    baseline 6.12.95+deb12-amd64 (Debian 6.12.95-1~bpo12+1); "
			  "candidate 7.3.4+deb13-amd64 (Debian 7.3.4-1~bpo13+1) (different kernels") &&
	   json && strstr(json, "\"kernels\":{\"baseline\":\"6.12.95+deb12-amd64 (Debian "
			  "6.12.95-1~bpo12+1)\",\"candidate\":\"7.3.4+deb13-amd64 (Debian "
			  "7.3.4-1~bpo13+1)\",\"differ\":true}"),
	   "the table and the JSON name both kernels");
	same = cmp_runs(c, old);
	ok(same && !same->kernels_differ && !same->cand->kernel,
	   "a result from before kernels were recorded: not recorded, no difference claimed");
	if (text && !strstr(text, "kernel    baseline"))
		diag("%s", text);
}

int main(void)
{
	plan(43);
	test_tables();
	test_lost_and_checks();
	test_bad_input();
	test_runs_and_forms();
	test_gate_checks();
	test_gate_rows();
	test_gate_tables();
	test_kernels();
	return tap_failed ? 1 : 0;
}
