/* SPDX-License-Identifier: MIT */
/* The tiering policies' table and hit-ratio plots (policy_report.h). */
#include "results/policy_report.h"
#include "results/escape.h"
#include "results/svg.h"

#include <string.h>

static double num(JsonObject *o, const char *key, double dflt)
{
	JsonNode *n = o && json_object_has_member(o, key) ?
		      json_object_get_member(o, key) : NULL;

	return n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) != G_TYPE_STRING ?
	       json_node_get_double(n) : dflt;
}

static JsonObject *obj(JsonObject *o, const char *key)
{
	return o && json_object_has_member(o, key) &&
	       JSON_NODE_HOLDS_OBJECT(json_object_get_member(o, key)) ?
	       json_object_get_object_member(o, key) : NULL;
}

/* The policies of a `cxlbed-pool` workload's output; NULL for any other. */
JsonArray *policy_report_policies(const struct res_workload *w)
{
	if (!w->output || g_strcmp0(json_object_get_string_member_with_default(
			   w->output, "workload", ""), "pool") ||
	    !json_object_has_member(w->output, "policies") ||
	    !JSON_NODE_HOLDS_ARRAY(json_object_get_member(w->output, "policies")))
		return NULL;
	return json_object_get_array_member(w->output, "policies");
}

/* Local bytes a policy may hold past its limit before its time stops
 * being comparable (page-granular placement rounds up a little). */
#define OVER_LIMIT_SLACK 1.05

static bool over_limit(JsonObject *p)
{
	double limit = num(p, "local_limit", 0);

	return limit > 0 && num(p, "fast_bytes_max", 0) > limit * OVER_LIMIT_SLACK;
}

/*
 * Pages that went both ways, each way at least this share of the data:
 * promoted and then demoted again to make room (ping-pong), which a
 * policy that tiers by recent access does under pressure when nothing
 * stays hot (docs/pooling.md, "GUPS: tpp's share and its scans").
 */
#define PING_PONG_SHARE 0.10

static void say_ping_pong(GString *s, JsonObject *p)
{
	JsonObject *pages = obj(p, "pages");
	double data = num(p, "data_bytes", 0);
	double up = num(pages, "promoted", 0) * 4096, down = num(pages, "demoted", 0) * 4096;

	if (data <= 0 || up < data * PING_PONG_SHARE || down < data * PING_PONG_SHARE)
		return;
	g_string_append_printf(s, "%s%s promoted %.1f MiB and demoted %.1f MiB of a %.1f MiB "
			       "data set: pages went back and forth between the tiers, and its "
			       "time includes those migrations and the hint faults behind them "
			       "(%.0f).", s->len ? " " : "",
			       json_object_get_string_member_with_default(p, "policy", "?"),
			       up / (1024.0 * 1024.0), down / (1024.0 * 1024.0),
			       data / (1024.0 * 1024.0), num(pages, "hint_faults", 0));
}

static JsonObject *policy_named(JsonArray *pols, const char *name)
{
	for (guint i = 0; i < json_array_get_length(pols); i++) {
		JsonObject *p = json_array_get_object_element(pols, i);

		if (p && !g_strcmp0(json_object_get_string_member_with_default(p, "policy", ""),
				    name) && json_object_get_boolean_member_with_default(p, "ok", FALSE))
			return p;
	}
	return NULL;
}

/*
 * The overlap bound of docs/pooling.md: the best a policy can do is
 * max(compute, transfer), compute being all-local's time and transfer
 * libcxlpool's bytes moved at the far path's bandwidth (the output's
 * far_read_mbps: the path's configured read bandwidth, which the timing
 * model models). With libcxlpool's bookkeeping and, where the workload
 * knows it (embed), the oracle's hit ratio.
 */
static void say_bound(GString *s, const struct res_workload *w, JsonArray *pols)
{
	JsonObject *local = policy_named(pols, "all-local"), *lib = policy_named(pols, "libcxlpool");
	JsonObject *rt = obj(lib, "runtime");
	double compute = num(local, "guest_ms", -1), ms = num(lib, "guest_ms", -1);
	double mbps = num(w->output, "far_read_mbps", -1);
	double moved = num(lib, "moved_bytes", -1), oracle = num(lib, "oracle_hit_ratio", -1);
	double transfer, bound;

	if (compute <= 0 || ms <= 0)
		return;
	g_string_append_printf(s, "%sOverlap bound (docs/pooling.md): max(compute, transfer); "
			       "compute %.1f ms (all-local's time", s->len ? " " : "", compute);
	if (mbps > 0 && moved >= 0) {
		transfer = moved / (mbps * 1e6) * 1e3;
		bound = MAX(compute, transfer);
		g_string_append_printf(s, "), transfer %.1f ms (libcxlpool's %.1f MiB moved at the "
				       "far path's %.1f GB/s): bound %.1f ms; libcxlpool took %.1f ms, "
				       "%.2fx the bound.", transfer, moved / (1024.0 * 1024.0),
				       mbps / 1000, bound, ms, ms / bound);
	} else {
		bound = compute;
		g_string_append_printf(s, "; the transfer is not known: this cxlbed-pool did not "
				       "report the far path's bandwidth): at least %.1f ms; libcxlpool "
				       "took %.1f ms, %.2fx that.", compute, ms, ms / bound);
	}
	if (ms < bound)
		g_string_append(s, " All-local's time stands in for the compute, so a policy whose "
			       "run does less work than all-local's comes in under the bound.");
	if (num(rt, "helper_ns", -1) >= 0)
		g_string_append_printf(s, " libcxlpool's bookkeeping (its helper and copy lanes "
				       "outside their copies): %.1f%% of one vCPU over its span.",
				       num(rt, "helper_ns", 0) / 1e4 / ms);
	if (oracle >= 0)
		g_string_append_printf(s, " Oracle hit ratio %.3f (the rows most looked up in this "
				       "very stream kept local); libcxlpool %.3f.", oracle,
				       num(lib, "hit_ratio", -1));
}

char *policy_report_reading(const struct res_workload *w)
{
	JsonArray *pols = policy_report_policies(w);
	GString *s;
	double lo = -1, hi = -1;
	int held = 0;

	if (!pols)
		return NULL;
	s = g_string_new(json_object_get_string_member_with_default(w->output, "reading", ""));
	for (guint i = 0; i < json_array_get_length(pols); i++) {
		JsonObject *p = json_array_get_object_element(pols, i);
		double ms = num(p, "guest_ms", -1);

		say_ping_pong(s, p);
		if (over_limit(p)) {
			g_string_append_printf(s, "%s%s held up to %.1f MiB in local DRAM against "
					       "its limit of %.1f MiB: its time is not comparable "
					       "with the others'.", s->len ? " " : "",
					       json_object_get_string_member_with_default(p, "policy", "?"),
					       num(p, "fast_bytes_max", 0) / (1024.0 * 1024.0),
					       num(p, "local_limit", 0) / (1024.0 * 1024.0));
			continue;
		}
		if (num(p, "local_limit", 0) <= 0 || ms <= 0 ||
		    !json_object_get_boolean_member_with_default(p, "ok", FALSE))
			continue;
		held++;
		if (lo < 0 || ms < lo)
			lo = ms;
		if (ms > hi)
			hi = ms;
	}
	if (held >= 2)
		g_string_append_printf(s, "%sThe %d policies that held the local limit took "
				       "%.1f to %.1f ms: the slowest %.1f%% over the fastest.",
				       s->len ? " " : "", held, lo, hi, 100.0 * (hi - lo) / lo);
	say_bound(s, w, pols);
	if (!s->len)
		return g_string_free(s, TRUE), NULL;
	return g_string_free(s, FALSE);
}

bool policy_report_ran(JsonObject *p)
{
	return json_object_get_boolean_member_with_default(p, "available", TRUE);
}

/* A DAMOS scheme's tuned quota against its goal, as damon-auto reports it. */
static void say_scheme(GString *s, const char *what, JsonObject *sch)
{
	if (!sch)
		return;
	double q = num(sch, "effective_quota_bytes", 0);

	/* a goal-tuned quota starts at one byte: bytes until it is a page */
	if (q < 4096)
		g_string_append_printf(s, " %s: quota tuned to %.0f bytes a window", what, q);
	else
		g_string_append_printf(s, " %s: quota tuned to %.2f MiB a window", what,
				       q / (1024.0 * 1024.0));
	g_string_append_printf(s, " toward %.0f bp, %.2f MiB applied of %.2f MiB tried;",
			       num(sch, "goal_metric_bp", -1),
			       num(sch, "applied_bytes", 0) / (1024.0 * 1024.0),
			       num(sch, "tried_bytes", 0) / (1024.0 * 1024.0));
}

char *policy_report_kernel(const struct res_workload *w)
{
	JsonArray *pols = policy_report_policies(w);
	GString *s;

	if (!pols)
		return NULL;
	s = g_string_new(NULL);
	for (guint i = 0; i < json_array_get_length(pols); i++) {
		JsonObject *p = json_array_get_object_element(pols, i);
		const char *name = json_object_get_string_member_with_default(p, "policy", "?");
		JsonObject *tuned = obj(p, "tuned"), *wts = obj(tuned, "weights");

		if (!policy_report_ran(p)) {
			g_string_append_printf(s, "%s%s is unavailable on this guest kernel: %s.",
					       s->len ? " " : "", name,
					       json_object_get_string_member_with_default(p, "why", "?"));
		} else if (wts) {
			g_string_append_printf(s, "%s%s: the kernel's weights from the nodes' "
					       "bandwidth, local:CXL = %.0f:%.0f (a local share of "
					       "%.3f before the limit).", s->len ? " " : "", name,
					       num(wts, "fast", -1), num(wts, "far", -1),
					       num(tuned, "local_share", -1));
		} else if (obj(tuned, "promote")) {
			g_string_append_printf(s, "%s%s:", s->len ? " " : "", name);
			say_scheme(s, "promotion (goal: used)", obj(tuned, "promote"));
			say_scheme(s, "demotion (goal: free)", obj(tuned, "demote"));
			s->str[s->len - 1] = '.';
		}
	}
	if (!s->len)
		return g_string_free(s, TRUE), NULL;
	return g_string_free(s, FALSE);
}

char *policy_report_svg_name(const struct res_workload *w)
{
	return g_strdup_printf("hit-ratio-%s-%s.svg", w->name, w->host);
}

/*
 * Fast-tier hit ratio over each policy's run: one line per policy, from
 * its `series` ([t_ms, hit ratio, fast bytes, far bytes] per step, t_ms
 * from the policy's start). NULL when no policy has a series.
 */
char *policy_report_svg(const struct res_workload *w)
{
	JsonArray *pols = policy_report_policies(w);
	g_autoptr(GPtrArray) xs = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
	g_autoptr(GPtrArray) ys = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
	g_autofree struct svg_series *series = NULL;
	g_autofree char *sub = NULL;
	GPtrArray *names;
	char *svg;

	if (!pols)
		return NULL;
	names = g_ptr_array_new();
	for (guint i = 0; i < json_array_get_length(pols); i++) {
		JsonObject *p = json_array_get_object_element(pols, i);
		JsonArray *ser = p && json_object_has_member(p, "series") &&
				 JSON_NODE_HOLDS_ARRAY(json_object_get_member(p, "series")) ?
				 json_object_get_array_member(p, "series") : NULL;
		GArray *x, *y;

		if (!ser || !json_array_get_length(ser))
			continue;
		x = g_array_new(FALSE, FALSE, sizeof(double));
		y = g_array_new(FALSE, FALSE, sizeof(double));
		for (guint k = 0; k < json_array_get_length(ser); k++) {
			JsonNode *n = json_array_get_element(ser, k);
			JsonArray *pt = JSON_NODE_HOLDS_ARRAY(n) ? json_node_get_array(n) : NULL;

			if (!pt || json_array_get_length(pt) < 2)
				continue;
			g_array_append_val(x, (double){ json_array_get_double_element(pt, 0) });
			g_array_append_val(y, (double){ json_array_get_double_element(pt, 1) });
		}
		g_ptr_array_add(names, (char *)json_object_get_string_member_with_default(
					p, "policy", "?"));
		g_ptr_array_add(xs, x);
		g_ptr_array_add(ys, y);
	}
	if (!xs->len) {
		g_ptr_array_unref(names);
		return NULL;
	}
	series = g_new0(struct svg_series, xs->len);
	for (guint i = 0; i < xs->len; i++) {
		GArray *x = g_ptr_array_index(xs, i), *y = g_ptr_array_index(ys, i);

		series[i] = (struct svg_series){ g_ptr_array_index(names, i),
						 (double *)x->data, (double *)y->data, x->len };
	}
	sub = g_strdup_printf("%s on %s, local fraction %.2f: share of the step's accesses "
			      "served from the fast tier", json_object_get_string_member_with_default(
				      w->output, "kind", "?"), w->host,
			      json_object_get_double_member_with_default(w->output,
									 "local_fraction", 0));
	svg = svg_line_plot(&(struct svg_plot){
		.title = "Fast-tier hit ratio over time, per policy",
		.subtitle = sub,
		.x_label = "guest ms since the policy's run began",
		.y_label = "hit ratio",
		.series = series, .nseries = xs->len });
	g_ptr_array_unref(names);
	return svg;
}

bool policy_report_write_svgs(const struct run_result *r, const char *dir, GError **error)
{
	for (guint i = 0; i < r->workloads->len; i++) {
		const struct res_workload *w = g_ptr_array_index(r->workloads, i);
		g_autofree char *svg = policy_report_svg(w);
		g_autofree char *name = NULL, *path = NULL;

		if (!svg)
			continue;
		name = policy_report_svg_name(w);
		path = g_build_filename(dir, name, NULL);
		if (!g_file_set_contents(path, svg, -1, error))
			return false;
	}
	return true;
}

static void one_workload(GString *s, const struct res_workload *w, JsonArray *pols)
{
	const char *kind = json_object_get_string_member_with_default(w->output, "kind", "?");
	double base = -1;

	for (guint i = 0; i < json_array_get_length(pols); i++) {
		JsonObject *p = json_array_get_object_element(pols, i);

		if (!g_strcmp0(json_object_get_string_member_with_default(p, "policy", ""),
			       "all-local") && json_object_get_boolean_member_with_default(p, "ok", FALSE))
			base = num(p, "guest_ms", -1);
	}
	g_string_append(s, "\n### ");
	md_text(s, kind);
	g_string_append(s, " on ");
	md_text(s, w->host);
	g_string_append_printf(s, " (local fraction %.2f)\n\n"
			       "| policy | ok | time ms | vs all-local | fast hit ratio | moved MiB | "
			       "prefetch timely/late/useless |\n|---|---|---|---|---|---|---|\n",
			       num(w->output, "local_fraction", 0));
	for (guint i = 0; i < json_array_get_length(pols); i++) {
		JsonObject *p = json_array_get_object_element(pols, i);
		JsonObject *pf = obj(p, "prefetch");
		double ms = num(p, "guest_ms", -1), hit = num(p, "hit_ratio", -1);
		gboolean ok = json_object_get_boolean_member_with_default(p, "ok", FALSE) &&
			      json_object_get_boolean_member_with_default(p, "same_result", FALSE);

		if (!policy_report_ran(p)) {
			g_string_append(s, "| ");
			md_text(s, json_object_get_string_member_with_default(p, "policy", "?"));
			g_string_append(s, " | unavailable (kernel) | – | – | – | – | – |\n");
			continue;
		}
		g_string_append(s, "| ");
		md_text(s, json_object_get_string_member_with_default(p, "policy", "?"));
		g_string_append_printf(s, " | %s |", ok ? "yes" : "**no**");
		if (ms >= 0)
			g_string_append_printf(s, " %.1f |", ms);
		else
			g_string_append(s, " – |");
		if (ms >= 0 && base > 0)
			g_string_append_printf(s, " %.2fx |", ms / base);
		else
			g_string_append(s, " – |");
		if (hit >= 0)
			g_string_append_printf(s, " %.3f |", hit);
		else
			g_string_append(s, " – |");
		g_string_append_printf(s, " %.1f |", num(p, "moved_bytes", 0) / (1024.0 * 1024.0));
		if (pf)
			g_string_append_printf(s, " %.0f/%.0f/%.0f |\n", num(pf, "timely", 0),
					       num(pf, "late", 0), num(pf, "useless", 0));
		else
			g_string_append(s, " – |\n");
	}
	{
		g_autofree char *svg = policy_report_svg(w);
		g_autofree char *name = svg ? policy_report_svg_name(w) : NULL;
		g_autofree char *reading = policy_report_reading(w);
		g_autofree char *kernel = policy_report_kernel(w);

		if (reading) {
			g_string_append_c(s, '\n');
			md_text(s, reading);
			g_string_append_c(s, '\n');
		}
		if (kernel) {
			g_string_append_c(s, '\n');
			md_text(s, kernel);
			g_string_append_c(s, '\n');
		}
		if (svg) {
			g_string_append(s, "\nFast-tier hit ratio over time: ");
			md_link(s, name, name);
			g_string_append(s, ".\n");
		}
	}
}

void policy_report_each(GString *s, const struct run_result *r, const char *heading,
			policy_report_fn fn)
{
	bool any = false;

	for (guint i = 0; i < r->workloads->len; i++) {
		const struct res_workload *w = g_ptr_array_index(r->workloads, i);
		JsonArray *pols = policy_report_policies(w);

		if (!pols)
			continue;
		if (!any)
			g_string_append(s, heading);
		any = true;
		fn(s, w, pols);
	}
}

char *policy_report_note(const struct run_result *r)
{
	return g_strdup_printf("The same workload under each policy (docs/pooling.md). "
			       "Time: each policy's span on the guest's clock, in this run %s; "
			       "moved: pages the kernel migrated plus the runtime's own copies.",
			       result_clock_words(r, "guest"));
}

void policy_report_md(GString *s, const struct run_result *r)
{
	g_autofree char *note = policy_report_note(r);
	g_autofree char *heading = g_strdup_printf("\n## Tiering policies\n\n%s\n", note);

	policy_report_each(s, r, heading, one_workload);
}
