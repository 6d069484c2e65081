/* SPDX-License-Identifier: MIT */
#include "results/fault_report.h"
#include "results/escape.h"
#include "results/fault_rois.h"
#include "results/svg.h"
#include "topology/topology.h"

#include <math.h>
#include <string.h>

#define ROI_EPOCH 3001

static bool is_protect(const struct res_workload *w)
{
	return w->output && !g_strcmp0(json_object_get_string_member_with_default(
					       w->output, "workload", ""), "protect");
}

static double num(JsonObject *o, const char *k)
{
	return o && json_object_has_member(o, k) ? json_object_get_double_member(o, k) : -1;
}

/* The modeled time the timeline starts at: the first epoch of any workload. */
static double origin_ns(const struct run_result *r)
{
	double t0 = -1, b, e;
	const struct res_workload *w;

	cb_foreach(r->workloads, const struct res_workload, w)
		if (is_protect(w) && fault_roi_time(w->output, ROI_EPOCH, 0, &b, &e))
			t0 = t0 < 0 ? b : MIN(t0, b);
	return t0;
}

struct marks {
	GArray *m;		/* struct svg_vmark */
	GPtrArray *labels;	/* owned label strings */
};

static void mark(struct marks *ms, double x, const char *colour, const char *fmt, ...)
	G_GNUC_PRINTF(4, 5);
static void mark(struct marks *ms, double x, const char *colour, const char *fmt, ...)
{
	va_list ap;
	char *label;
	struct svg_vmark v;

	va_start(ap, fmt);
	label = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	g_ptr_array_add(ms->labels, label);
	v = (struct svg_vmark){ x, label, colour };
	g_array_append_val(ms->m, v);
}

char *fault_report_svg(const struct run_result *r)
{
	double t0 = origin_ns(r);
	bool modeled = t0 >= 0;
	struct marks ms = { g_array_new(FALSE, FALSE, sizeof(struct svg_vmark)),
			    g_ptr_array_new_with_free_func(g_free) };
	g_autoptr(GPtrArray) xs = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
	g_autoptr(GPtrArray) ys = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	g_autofree struct svg_series *series = NULL;
	char *svg;
	const struct res_workload *w;

	/* throughput per epoch, each workload a series */
	cb_foreach(r->workloads, const struct res_workload, w) {
		JsonArray *ep;
		GArray *x, *y;

		if (!is_protect(w) || !modeled || !json_object_has_member(w->output, "epochs"))
			continue;
		ep = json_object_get_array_member(w->output, "epochs");
		x = g_array_new(FALSE, FALSE, sizeof(double));
		y = g_array_new(FALSE, FALSE, sizeof(double));
		for (guint i = 0; i < json_array_get_length(ep); i++) {
			JsonObject *e = json_array_get_object_element(ep, i);
			double b, en, ops = num(e, "ops");

			if (ops <= 0 || !fault_roi_time(w->output, ROI_EPOCH, (gint64)i, &b, &en) ||
			    en <= b)
				continue;
			g_array_append_val(x, (double){ ((b + en) / 2 - t0) / 1e6 });
			g_array_append_val(y, (double){ ops / (en - b) * 1e6 });
		}
		g_ptr_array_add(names, g_strdup_printf("%s on %s (%s): operations per ms",
			w->name, w->host,
			json_object_get_string_member_with_default(w->output, "scheme", "")));
		g_ptr_array_add(xs, x);
		g_ptr_array_add(ys, y);
	}
	for (guint i = 0; i < r->faults->len; i++) {
		JsonObject *f = g_ptr_array_index(r->faults, i);
		JsonObject *inj = json_object_get_object_member(f, "injected");
		const char *name = json_object_get_string_member(f, "name");
		JsonArray *det = json_object_get_array_member(f, "detections");
		double ti = modeled ? num(inj, "t_modeled_ns") : num(inj, "t_s");

		if (ti < 0)
			continue;
		mark(&ms, modeled ? (ti - t0) / 1e6 : ti, "#d55e00", "%s: %s %s", name,
		     json_object_get_string_member(f, "kind"),
		     json_object_get_string_member(f, "target"));
		for (guint k = 0; det && k < json_array_get_length(det); k++) {
			JsonObject *d = json_array_get_object_element(det, k);
			double td = modeled ? num(d, "detected_modeled_ns") : num(d, "reported_t_s");
			double tr = num(d, "resumed_modeled_ns"), tp = num(d, "reprotected_ns");

			if (td >= 0)
				mark(&ms, modeled ? (td - t0) / 1e6 : td, "#e69f00",
				     "%s detected on %s", name, json_object_get_string_member(d, "host"));
			if (modeled && tr >= 0 && tr - td > 0.02 * 1e6)
				mark(&ms, (tr - t0) / 1e6, "#009e73", "%s: served again", name);
			if (modeled && tp >= 0)
				mark(&ms, (ti + tp - t0) / 1e6, "#0072b2", "%s: re-protected", name);
		}
	}
	series = g_new0(struct svg_series, xs->len);
	for (guint i = 0; i < xs->len; i++) {
		GArray *x = g_ptr_array_index(xs, i), *y = g_ptr_array_index(ys, i);

		series[i] = (struct svg_series){ g_ptr_array_index(names, i),
						 (double *)x->data, (double *)y->data, x->len };
	}
	svg = svg_line_plot(&(struct svg_plot){
		.title = "Faults: what the workloads saw",
		.subtitle = modeled ? "throughput per epoch; injection (red), detection "
			"(orange), served again (green), re-protected (blue)" :
			"no timing model: injection and the runtimes' reports on host wall time",
		.x_label = modeled ? "modeled time (ms)" : "host wall time (s)",
		.y_label = modeled ? "operations per modeled ms" : "",
		.series = series, .nseries = xs->len,
		.marks = (struct svg_vmark *)ms.m->data, .nmarks = ms.m->len });
	g_array_unref(ms.m);
	g_ptr_array_unref(ms.labels);
	return svg;
}

bool fault_report_write_svg(const struct run_result *r, const char *dir)
{
	g_autofree char *svg = fault_report_svg(r);
	g_autofree char *path = g_build_filename(dir, FAULT_SVG_FILE, NULL);

	return g_file_set_contents(path, svg, -1, NULL);
}

static void ms_cell(GString *s, JsonObject *o, const char *k)
{
	double v = num(o, k);

	if (v < 0)
		g_string_append(s, " - |");
	else
		g_string_append_printf(s, " %.3f |", v / 1e6);
}

/* A table cell of @v with two decimals, `-` when there is none (< 0). */
static void num_cell(GString *s, double v, const char *end)
{
	if (v < 0)
		g_string_append_printf(s, " - |%s", end);
	else
		g_string_append_printf(s, " %.2f |%s", v, end);
}

/* "| A | B | C |" (up to four, NULL ends): cells of run data. */
static void cells(GString *s, const char *a, const char *b, const char *c, const char *d)
{
	const char *v[] = { a, b, c, d };

	g_string_append_c(s, '|');
	for (size_t i = 0; i < G_N_ELEMENTS(v) && v[i]; i++)
		md_cell(s, v[i]);
}

/* Detections over every fault: two or more get a row each (fault_hosts_md). */
static guint detections_of(const struct run_result *r)
{
	guint n = 0;

	for (guint i = 0; i < r->faults->len; i++) {
		JsonObject *f = g_ptr_array_index(r->faults, i);

		if (json_object_has_member(f, "detections"))
			n += json_array_get_length(json_object_get_array_member(f, "detections"));
	}
	return n;
}

/* The degraded/normal of @host's @workload in @f's `workloads`, or -1. */
static double effect_of(JsonObject *f, const char *host, const char *workload)
{
	JsonArray *a = json_object_has_member(f, "workloads") ?
		       json_object_get_array_member(f, "workloads") : NULL;

	for (guint i = 0; a && i < json_array_get_length(a); i++) {
		JsonObject *e = json_array_get_object_element(a, i);

		if (!g_strcmp0(json_object_get_string_member_with_default(e, "host", ""), host) &&
		    !g_strcmp0(json_object_get_string_member_with_default(e, "workload", ""),
			       workload))
			return num(e, "degraded_vs_normal");
	}
	return -1;
}

/* Per host: a fault in a shared pool node reaches every host that borrowed from it. */
static void fault_hosts_md(GString *s, const struct run_result *r)
{
	if (detections_of(r) < 2)
		return;
	g_string_append(s, "\nEach host's view (modeled ms after the injection):\n\n"
			"| fault | host | workload | cause | detected after (ms) | served again "
			"after (ms) | repair GiB/s | lost at the failure MiB | degraded / normal |\n"
			"|---|---|---|---|---|---|---|---|---|\n");
	for (guint i = 0; i < r->faults->len; i++) {
		JsonObject *f = g_ptr_array_index(r->faults, i);
		JsonArray *d = json_object_has_member(f, "detections") ?
			       json_object_get_array_member(f, "detections") : NULL;

		for (guint k = 0; d && k < json_array_get_length(d); k++) {
			JsonObject *e = json_array_get_object_element(d, k);
			const char *host = json_object_get_string_member_with_default(e, "host", "");
			const char *wl = json_object_get_string_member_with_default(e, "workload", "");
			double eff = effect_of(f, host, wl);

			cells(s, json_object_get_string_member_with_default(f, "name", ""), host, wl,
			      json_object_get_string_member_with_default(e, "cause", ""));
			ms_cell(s, e, "detection_ns");
			/* stall_ns is there only beside a detection: served again after both */
			if (num(e, "stall_ns") >= 0 && num(e, "detection_ns") >= 0)
				g_string_append_printf(s, " %.3f |", (num(e, "detection_ns") +
						       num(e, "stall_ns")) / 1e6);
			else
				g_string_append(s, " - |");
			num_cell(s, num(e, "repair_gibps"), "");
			g_string_append_printf(s, " %.1f |", num(e, "bytes_lost") / 1048576.0);
			num_cell(s, eff, "\n");
		}
	}
}

void fault_report_md(GString *s, const struct run_result *r)
{
	if (!r->faults->len)
		return;
	g_string_append_printf(s, "\n## Faults\n\nSeed %" G_GINT64_FORMAT " (replay: `cxlbed "
			       "run SCENARIO --fault-seed %" G_GINT64_FORMAT "`). Times after the "
			       "injection are modeled milliseconds (the timing model's clock); "
			       "`-` where there is none (docs/faults.md).\n\n",
			       r->fault_seed, r->fault_seed);
	g_string_append(s, "| fault | kind | target | injected at (s, host) | detected after "
			"(ms) | served again after (ms) | re-protected after (ms) | repair GiB/s "
			"| at risk MiB | lost at the failure MiB | degraded / normal |\n"
			"|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (guint i = 0; i < r->faults->len; i++) {
		JsonObject *f = g_ptr_array_index(r->faults, i);
		JsonObject *inj = json_object_get_object_member(f, "injected");
		JsonObject *rec = json_object_has_member(f, "recovery") ?
				  json_object_get_object_member(f, "recovery") : NULL;
		JsonObject *wl = json_object_has_member(f, "workload") ?
				 json_object_get_object_member(f, "workload") : NULL;

		cells(s, json_object_get_string_member_with_default(f, "name", ""),
		      json_object_get_string_member_with_default(f, "kind", ""),
		      json_object_get_string_member_with_default(f, "target", ""), NULL);
		if (json_object_get_boolean_member(f, "fired"))
			g_string_append_printf(s, " %.2f%s |", num(inj, "t_s"),
					       json_object_get_boolean_member(inj, "ok") ? "" :
					       " (a step failed)");
		else
			g_string_append(s, " never |");
		ms_cell(s, f, "detection_ns");
		ms_cell(s, f, "resumed_ns");
		ms_cell(s, rec, "reprotected_ns");
		num_cell(s, num(rec, "gibps"), "");
		g_string_append_printf(s, " %.1f | %.1f |", num(f, "bytes_at_risk") / 1048576.0,
				       num(f, "bytes_lost") / 1048576.0);
		num_cell(s, num(wl, "degraded_vs_normal"), "\n");
	}
	fault_hosts_md(s, r);
	g_string_append_printf(s, "\n![faults timeline](%s)\n", FAULT_SVG_FILE);
}
