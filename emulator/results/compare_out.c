/* SPDX-License-Identifier: MIT */
/* A comparison shown: the terminal table, compare.json, JUnit XML. */
#include "results/compare.h"
#include "results/svg.h"

#include <math.h>
#include <string.h>

static const char *value_text(char *buf, size_t len, const struct cmp_fact *f)
{
	if (!f || f->value < 0)
		g_strlcpy(buf, "-", len);
	else
		g_snprintf(buf, len, f->kind == CMP_LATENCY ? "%.1f" : "%.3f", f->value);
	return buf;
}

static const struct cmp_fact *fact_of(const struct cmp_figure *g)
{
	return g->base ? g->base : g->cand;
}

/* "+5%" for latency (up is bad), "-5%" for bandwidth (down is bad). */
static const char *limit_text(char *buf, size_t len, const struct cmp_figure *g)
{
	g_snprintf(buf, len, "%s%g%%", fact_of(g)->kind == CMP_LATENCY ? "+" : "-",
		   round(g->threshold * 1000) / 10);
	return buf;
}

static const char *change_text(char *buf, size_t len, const struct cmp_figure *g)
{
	if (isnan(g->change))
		g_strlcpy(buf, "-", len);
	else if (isinf(g->change))
		g_strlcpy(buf, "new", len);
	else
		g_snprintf(buf, len, "%+.1f%%", g->change * 100);
	return buf;
}

static const char *verdict_word(const struct compare *c)
{
	return c->regressions ? "regression" : "pass";
}

/* What became of a check, in words. */
static const char *check_text(const struct cmp_check *k)
{
	switch (k->status) {
	case CHK_PASS:
		return "passes in both";
	case CHK_FIXED:
		return "failed in the baseline, passes in the candidate";
	case CHK_STILL_FAILS:
		return "fails in the baseline and in the candidate";
	case CHK_NEW:
		return "new in the candidate, passes";
	case CHK_REGRESSED:
		return "passed in the baseline, FAILS in the candidate";
	case CHK_NEW_FAILS:
		return "new in the candidate, FAILS";
	case CHK_LOST:
		return "in the baseline, LOST in the candidate (no such check)";
	}
	return "?";
}

static char *dup_text(const struct cmp_dup *d)
{
	return g_strdup_printf("%s '%s' given %u times in the %s: which copy counts cannot be told",
			       d->what, d->name, d->copies, d->side);
}

/* How many checks both have, are new, lost, failing; then each that is not plain. */
static void print_checks(const struct compare *c, FILE *out)
{
	guint both = 0, added = 0, lost = 0, failed = 0;

	if (!c->checks->len)
		return;
	for (guint i = 0; i < c->checks->len; i++) {
		const struct cmp_check *k = g_ptr_array_index(c->checks, i);

		both += k->in_base && k->in_cand;
		added += !k->in_base;
		lost += !k->in_cand;
		failed += k->in_cand && !k->cand_pass;
	}
	fprintf(out, "\nchecks: %u in both, %u new, %u lost; %u fail in the candidate\n",
		both, added, lost, failed);
	for (guint i = 0; i < c->checks->len; i++) {
		const struct cmp_check *k = g_ptr_array_index(c->checks, i);

		if (k->status != CHK_PASS)
			fprintf(out, "check %s: %s\n", k->name, check_text(k));
	}
}

void compare_print(const struct compare *c, FILE *out)
{
	int tw = 8, hw = 4, ww = 5, kw = 8, fw = 6;

	for (guint i = 0; i < c->figures->len; i++) {
		const struct cmp_fact *f = fact_of(g_ptr_array_index(c->figures, i));

		tw = MAX(tw, (int)strlen(f->topology));
		hw = MAX(hw, (int)strlen(f->host));
		ww = MAX(ww, (int)strlen(f->where));
		kw = MAX(kw, (int)strlen(f->workload));
		fw = MAX(fw, (int)strlen(f->figure));
	}
	fprintf(out, "baseline  %s\ncandidate %s\nfigures: %s (%s)\n", c->base->label,
		c->cand->label, c->clock ? c->clock : "-", c->base->schema);
	fprintf(out, "kernel    baseline %s; candidate %s%s\n\n",
		c->base->kernel ? c->base->kernel : "not recorded",
		c->cand->kernel ? c->cand->kernel : "not recorded",
		c->kernels_differ ? " (different kernels: rows are matched by place and "
		"workload, each side's figures are its kernel's)" : "");
	fprintf(out, "%-*s %-*s %-*s %-*s %-*s %10s %10s %8s %6s  %s\n", tw, "topology", hw,
		"host", ww, "where", kw, "workload", fw, "figure", "baseline", "candidate",
		"change", "limit", "status");
	for (guint i = 0; i < c->figures->len; i++) {
		const struct cmp_figure *g = g_ptr_array_index(c->figures, i);
		const struct cmp_fact *f = fact_of(g);
		char b[32], k[32], ch[32], lim[32];

		fprintf(out, "%-*s %-*s %-*s %-*s %-*s %10s %10s %8s %6s  %s\n", tw, f->topology,
			hw, f->host, ww, f->where, kw, f->workload, fw, f->figure,
			value_text(b, sizeof(b), g->base), value_text(k, sizeof(k), g->cand),
			change_text(ch, sizeof(ch), g), limit_text(lim, sizeof(lim), g),
			cmp_status_word(g->status));
	}
	print_checks(c, out);
	for (guint i = 0; i < c->duplicates->len; i++) {
		g_autofree char *why = dup_text(g_ptr_array_index(c->duplicates, i));

		fprintf(out, "DUPLICATE: %s\n", why);
	}
	for (guint i = 0; i < c->only_base->len; i++)
		fprintf(out, "only in the baseline: %s\n", (char *)g_ptr_array_index(c->only_base, i));
	for (guint i = 0; i < c->only_cand->len; i++)
		fprintf(out, "only in the candidate: %s\n", (char *)g_ptr_array_index(c->only_cand, i));
	fprintf(out, "\nverdict: %s (%u regressed, %u improved, %u figures compared)\n",
		verdict_word(c), c->regressions, c->improvements, c->figures->len);
	/* every reason the gate fails, one line each */
	for (guint i = 0; i < c->figures->len; i++) {
		const struct cmp_figure *g = g_ptr_array_index(c->figures, i);
		g_autofree char *row = NULL;
		char ch[32], lim[32];

		if (g->status != CMP_REGRESSED && g->status != CMP_LOST)
			continue;
		row = cmp_row_name(g->base);
		fprintf(out, "regressed: %s %s %s (limit %s)\n", row, g->base->figure,
			g->status == CMP_LOST ? "no longer measured" : change_text(ch, sizeof(ch), g),
			limit_text(lim, sizeof(lim), g));
	}
	for (guint i = 0; i < c->checks->len; i++) {
		const struct cmp_check *k = g_ptr_array_index(c->checks, i);

		if (k->regressed)
			fprintf(out, "regressed: check %s: %s\n", k->name, check_text(k));
	}
	for (guint i = 0; i < c->duplicates->len; i++) {
		g_autofree char *why = dup_text(g_ptr_array_index(c->duplicates, i));

		fprintf(out, "regressed: %s\n", why);
	}
}

static void set_value(JsonObject *o, const char *key, const struct cmp_fact *f)
{
	if (f && f->value >= 0)
		json_object_set_double_member(o, key, f->value);
	else
		json_object_set_null_member(o, key);
}

/* A check's pass on one side: true, false, or null where the side has no such check. */
static void set_pass(JsonObject *o, const char *key, bool has, bool pass)
{
	if (has)
		json_object_set_boolean_member(o, key, pass);
	else
		json_object_set_null_member(o, key);
}

JsonNode *compare_to_json(const struct compare *c)
{
	JsonObject *root = json_object_new();
	JsonArray *figs = json_array_new(), *checks = json_array_new();
	JsonArray *ob = json_array_new(), *oc = json_array_new(), *dups = json_array_new();
	JsonNode *node = json_node_new(JSON_NODE_OBJECT);

	json_object_set_string_member(root, "schema", COMPARE_SCHEMA);
	json_object_set_string_member(root, "baseline", c->base->label);
	json_object_set_string_member(root, "candidate", c->cand->label);
	json_object_set_string_member(root, "compares", c->base->schema);
	json_object_set_string_member(root, "clock", c->clock ? c->clock : "-");
	{
		JsonObject *k = json_object_new();

		if (c->base->kernel)
			json_object_set_string_member(k, "baseline", c->base->kernel);
		else
			json_object_set_null_member(k, "baseline");
		if (c->cand->kernel)
			json_object_set_string_member(k, "candidate", c->cand->kernel);
		else
			json_object_set_null_member(k, "candidate");
		json_object_set_boolean_member(k, "differ", c->kernels_differ);
		json_object_set_object_member(root, "kernels", k);
	}
	for (guint i = 0; i < c->figures->len; i++) {
		const struct cmp_figure *g = g_ptr_array_index(c->figures, i);
		const struct cmp_fact *f = fact_of(g);
		JsonObject *o = json_object_new();

		json_object_set_string_member(o, "topology", f->topology);
		json_object_set_string_member(o, "host", f->host);
		json_object_set_string_member(o, "where", f->where);
		json_object_set_string_member(o, "workload", f->workload);
		json_object_set_string_member(o, "figure", f->figure);
		json_object_set_string_member(o, "kind", f->kind == CMP_LATENCY ? "latency" : "bandwidth");
		set_value(o, "baseline", g->base);
		set_value(o, "candidate", g->cand);
		if (isfinite(g->change))
			json_object_set_double_member(o, "change", g->change);
		else
			json_object_set_null_member(o, "change");
		json_object_set_double_member(o, "threshold", g->threshold);
		json_object_set_string_member(o, "status", cmp_status_word(g->status));
		json_array_add_object_element(figs, o);
	}
	for (guint i = 0; i < c->checks->len; i++) {
		const struct cmp_check *k = g_ptr_array_index(c->checks, i);
		JsonObject *o = json_object_new();

		json_object_set_string_member(o, "name", k->name);
		set_pass(o, "baseline_pass", k->in_base, k->base_pass);
		set_pass(o, "candidate_pass", k->in_cand, k->cand_pass);
		json_object_set_string_member(o, "status", cmp_check_word(k->status));
		json_object_set_boolean_member(o, "regressed", k->regressed);
		json_array_add_object_element(checks, o);
	}
	for (guint i = 0; i < c->duplicates->len; i++) {
		const struct cmp_dup *d = g_ptr_array_index(c->duplicates, i);
		JsonObject *o = json_object_new();

		json_object_set_string_member(o, "side", d->side);
		json_object_set_string_member(o, "kind", d->what);
		json_object_set_string_member(o, "name", d->name);
		json_object_set_int_member(o, "copies", d->copies);
		json_array_add_object_element(dups, o);
	}
	for (guint i = 0; i < c->only_base->len; i++)
		json_array_add_string_element(ob, g_ptr_array_index(c->only_base, i));
	for (guint i = 0; i < c->only_cand->len; i++)
		json_array_add_string_element(oc, g_ptr_array_index(c->only_cand, i));
	json_object_set_array_member(root, "figures", figs);
	json_object_set_array_member(root, "checks", checks);
	json_object_set_array_member(root, "duplicates", dups);
	json_object_set_array_member(root, "only_in_baseline", ob);
	json_object_set_array_member(root, "only_in_candidate", oc);
	json_object_set_int_member(root, "regressions", c->regressions);
	json_object_set_int_member(root, "improvements", c->improvements);
	json_object_set_string_member(root, "verdict", verdict_word(c));
	json_node_take_object(node, root);
	return node;
}

static void junit_attr(GString *s, const char *name, const char *value)
{
	g_autofree char *e = svg_escape(value);

	g_string_append_printf(s, " %s=\"%s\"", name, e);
}

/* A test case: a <failure> with @msg when @failed, else @msg as its output. */
static void junit_case(GString *s, const char *cls, const char *name, bool failed,
		       const char *msg)
{
	g_string_append(s, "<testcase");
	junit_attr(s, "classname", cls);
	junit_attr(s, "name", name);
	if (failed) {
		g_string_append(s, "><failure");
		junit_attr(s, "type", "regression");
		junit_attr(s, "message", msg);
		g_string_append(s, "/></testcase>\n");
	} else {
		g_autofree char *e = svg_escape(msg);

		g_string_append_printf(s, "><system-out>%s</system-out></testcase>\n", e);
	}
}

/*
 * One test case per figure (classname: topology.host.where.workload), per
 * check (classname "checks") and per duplicate ("duplicates"); each reason
 * the gate fails is a <failure>.
 */
char *compare_to_junit(const struct compare *c)
{
	GString *s = g_string_new("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
	guint tests = c->figures->len + c->checks->len + c->duplicates->len;

	junit_attr(s, "name", "cxlbed compare");
	g_string_append_printf(s, " tests=\"%u\" failures=\"%u\">\n<testsuite", tests, c->regressions);
	{
		g_autofree char *name = g_strdup_printf("%s vs %s", c->cand->label, c->base->label);

		junit_attr(s, "name", name);
	}
	g_string_append_printf(s, " tests=\"%u\" failures=\"%u\" errors=\"0\" skipped=\"0\">\n",
			       tests, c->regressions);
	for (guint i = 0; i < c->figures->len; i++) {
		const struct cmp_figure *g = g_ptr_array_index(c->figures, i);
		const struct cmp_fact *f = fact_of(g);
		g_autofree char *cls = g_strdup_printf("%s.%s.%s.%s", f->topology, f->host, f->where,
						       f->workload);
		char b[32], k[32], ch[32], lim[32];
		g_autofree char *msg = g_strdup_printf("%s: baseline %s, candidate %s, change %s, limit %s: %s",
						       f->figure, value_text(b, sizeof(b), g->base),
						       value_text(k, sizeof(k), g->cand),
						       change_text(ch, sizeof(ch), g),
						       limit_text(lim, sizeof(lim), g),
						       cmp_status_word(g->status));

		junit_case(s, cls, f->figure, g->status == CMP_REGRESSED || g->status == CMP_LOST,
			   msg);
	}
	for (guint i = 0; i < c->checks->len; i++) {
		const struct cmp_check *k = g_ptr_array_index(c->checks, i);

		junit_case(s, "checks", k->name, k->regressed, check_text(k));
	}
	for (guint i = 0; i < c->duplicates->len; i++) {
		const struct cmp_dup *d = g_ptr_array_index(c->duplicates, i);
		g_autofree char *name = g_strdup_printf("%s %s (%s)", d->what, d->name, d->side);
		g_autofree char *why = dup_text(d);

		junit_case(s, "duplicates", name, true, why);
	}
	g_string_append(s, "</testsuite>\n</testsuites>\n");
	return g_string_free(s, FALSE);
}
