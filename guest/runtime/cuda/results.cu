/* SPDX-License-Identifier: MIT */
/* Checks (the verdict), targets (reported figures), per-mode results and the far-tier summary. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

double overlap_pct(double total_ms, double compute_ms, double transfer_ms)
{
	double exposed = total_ms - compute_ms, pct;

	if (transfer_ms <= 0)
		return 0;
	pct = 100.0 * (1.0 - exposed / transfer_ms);
	return pct < 0 ? 0 : pct > 100 ? 100 : pct;
}

/* ---- checks ---- */
#define MAX_CHECKS 64
static struct { char name[96]; bool pass; char detail[160]; } checks[MAX_CHECKS];
static int nchecks;

void check_add(const char *name, bool pass, const char *fmt, ...)
{
	va_list ap;

	if (nchecks == MAX_CHECKS)
		return;
	snprintf(checks[nchecks].name, sizeof(checks[0].name), "%s", name);
	checks[nchecks].pass = pass;
	va_start(ap, fmt);
	vsnprintf(checks[nchecks].detail, sizeof(checks[0].detail), fmt, ap);
	va_end(ap);
	fprintf(stderr, "cxlbed-gpu: %s %s: %s\n", pass ? "PASS" : "FAIL", name,
		checks[nchecks].detail);
	nchecks++;
}

void checks_json(struct jw *j)
{
	jw_arr(j, "checks");
	for (int i = 0; i < nchecks; i++) {
		jw_obj(j, NULL);
		jw_str(j, "name", checks[i].name);
		jw_bool(j, "pass", checks[i].pass);
		jw_str(j, "detail", checks[i].detail);
		jw_end_obj(j);
	}
	jw_end_arr(j);
}

bool checks_all_pass(void)
{
	for (int i = 0; i < nchecks; i++)
		if (!checks[i].pass)
			return false;
	return true;
}

/* ---- modes ---- */
void stats_from_rt(struct mode_result *m, struct runtime *rt)
{
	m->have_stats = true;
	m->st = rt->st;
	m->transfer_ms = rt_transfer_ns(rt) / 1e6;
	m->host_overlap_pct = rt_overlap_pct(rt);
	m->slots = rt->cfg.nslots;
	m->window = rt->cfg.window;
}

void mode_json(struct jw *j, const struct mode_result *m)
{
	jw_obj(j, NULL);
	jw_str(j, "mode", m->mode);
	if (m->far[0])
		jw_str(j, "far", m->far);
	jw_num(j, "ms", m->ms);
	if (m->have_stats) {
		jw_int(j, "slots", m->slots);
		jw_int(j, "window", m->window);
		jw_int(j, "accesses", (long long)m->st.accesses);
		jw_int(j, "hits", (long long)m->st.hits);
		jw_int(j, "late", (long long)m->st.late);
		jw_int(j, "misses", (long long)m->st.misses);
		jw_int(j, "deviations", (long long)m->st.deviations);
		jw_int(j, "prefetches", (long long)m->st.prefetches);
		jw_int(j, "evictions", (long long)m->st.evictions);
		jw_int(j, "writebacks", (long long)m->st.writebacks);
		jw_int(j, "bytes_in", (long long)m->st.bytes_in);
		jw_int(j, "bytes_out", (long long)m->st.bytes_out);
		jw_num(j, "stall_ms", m->st.stall_ns / 1e6);
		jw_num(j, "transfer_busy_ms", m->transfer_ms);
		jw_num(j, "host_overlap_pct", m->host_overlap_pct);
	}
	jw_end_obj(j);
}

void far_summary_json(struct jw *j, const char *wl, const struct gpu_opts *o,
		      const struct mode_result *m, int nm, double compute_ms,
		      double allhbm_ms, double um_ms)
{
	char name[96];

	jw_arr(j, "summary");
	for (int f = 0; f < o->nfars; f++) {
		const struct mode_result *xo = NULL, *ti = NULL, *de = NULL;
		double bound;

		for (int i = 0; i < nm; i++) {
			if (strcmp(m[i].far, o->fars[f].name))
				continue;
			if (!strcmp(m[i].mode, "transfer-only"))
				xo = &m[i];
			else if (!strcmp(m[i].mode, "tiered"))
				ti = &m[i];
			else if (!strcmp(m[i].mode, "demand"))
				de = &m[i];
		}
		if (!xo || !ti || !de)
			continue;
		bound = xo->ms > compute_ms ? xo->ms : compute_ms;
		jw_obj(j, NULL);
		jw_str(j, "far", o->fars[f].name);
		jw_num(j, "far_latency_ns", (double)o->fars[f].p.latency_ns);
		jw_num(j, "far_gbps", o->fars[f].p.gbps);
		jw_num(j, "compute_only_ms", compute_ms);
		jw_num(j, "transfer_only_ms", xo->ms);
		jw_num(j, "tiered_ms", ti->ms);
		jw_num(j, "demand_ms", de->ms);
		jw_num(j, "tiered_vs_bound", ti->ms / bound);
		jw_num(j, "overlap_pct", overlap_pct(ti->ms, compute_ms, xo->ms));
		jw_num(j, "demand_overlap_pct",
		       overlap_pct(de->ms, compute_ms, xo->ms));
		if (um_ms > 0)
			jw_num(j, "speedup_vs_um", um_ms / ti->ms);
		if (allhbm_ms > 0)
			jw_num(j, "slowdown_vs_all_hbm", ti->ms / allhbm_ms);
		jw_end_obj(j);

		snprintf(name, sizeof(name), "%s.%s tiered / max(compute, transfer)",
			 wl, o->fars[f].name);
		target_add(name, ti->ms / bound, "<=", 1.1,
			   "%.2f ms vs compute %.2f ms, transfer %.2f ms",
			   ti->ms, compute_ms, xo->ms);
		snprintf(name, sizeof(name), "%s.%s overlap %%", wl, o->fars[f].name);
		target_add(name, overlap_pct(ti->ms, compute_ms, xo->ms), "info", 0,
			   "transfer time hidden behind compute (demand fetch: %.0f%%)",
			   overlap_pct(de->ms, compute_ms, xo->ms));
		if (um_ms > 0) {
			/* The >= 2x goal is the layer sweep's; kv and adam
			 * report the figure without one. */
			bool goal = !strcmp(wl, "layers");

			snprintf(name, sizeof(name), "%s.%s speedup vs unified memory",
				 wl, o->fars[f].name);
			target_add(name, um_ms / ti->ms, goal ? ">=" : "info",
				   goal ? 2.0 : 0, "UM %.2f ms, tiered %.2f ms",
				   um_ms, ti->ms);
		}
	}
	jw_end_arr(j);
}

#define MAX_TARGETS 64
static struct {
	char name[96], cmp[8], detail[160];
	double value, goal;
} targets[MAX_TARGETS];
static int ntargets;

void target_add(const char *name, double value, const char *cmp, double goal,
		const char *fmt, ...)
{
	va_list ap;

	if (ntargets == MAX_TARGETS)
		return;
	snprintf(targets[ntargets].name, sizeof(targets[0].name), "%s", name);
	snprintf(targets[ntargets].cmp, sizeof(targets[0].cmp), "%s", cmp);
	targets[ntargets].value = value;
	targets[ntargets].goal = goal;
	va_start(ap, fmt);
	vsnprintf(targets[ntargets].detail, sizeof(targets[0].detail), fmt, ap);
	va_end(ap);
	ntargets++;
}

void targets_json(struct jw *j)
{
	jw_arr(j, "targets");
	for (int i = 0; i < ntargets; i++) {
		const char *c = targets[i].cmp;

		jw_obj(j, NULL);
		jw_str(j, "name", targets[i].name);
		jw_num(j, "value", targets[i].value);
		jw_str(j, "cmp", c);
		if (strcmp(c, "info")) {
			jw_num(j, "goal", targets[i].goal);
			jw_bool(j, "met", !strcmp(c, ">=") ?
				targets[i].value >= targets[i].goal :
				targets[i].value <= targets[i].goal);
		}
		jw_str(j, "detail", targets[i].detail);
		jw_end_obj(j);
	}
	jw_end_arr(j);
}
