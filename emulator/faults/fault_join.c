/* SPDX-License-Identifier: MIT */
/*
 * Each fault's record and the run's fault checks, from what was injected
 * and what the protected workloads (cxlbed-protect, workloads/protect.c)
 * registered: a failure of an LD a fault reached, after the fault, is
 * that fault's detection on that host. Times, and which clock each is in
 * (docs/faults.md, "Reading a fault record"):
 *   t_s          host wall time, s since the fabric manager started
 *   *_modeled_ns the timing model's clock: the injection is the slowest
 *                running vCPU's time when it was made (fault_clock.c),
 *                detection and resumption are the guest's ROI markers
 *   t_guest_s    the guest's own clock (modeled only with a modeled guest
 *                clock; under plain TCG it is emulation time)
 */
#include "faults/fault_priv.h"
#include "results/fault_rois.h"
#include "common/progress.h"

#include <math.h>
#include <string.h>

#define ROI_EPOCH 3001
#define ROI_DETECT 3002
#define ROI_RESUME 3003
#define ROI_REPAIR 3004

/* Kinds whose every occurrence a runtime holding the LD must notice. */
static bool must_detect(const struct fault_run *r)
{
	switch (r->kind) {
	case FK_KILL_POOL:
	case FK_REVOKE:
	case FK_POISON:
	case FK_UNCOR_ERROR:
		return true;
	case FK_GM_EVENT:
	case FK_DRAM_EVENT:
		return strcmp(r->spec->log, "failure") == 0 || strcmp(r->spec->log, "fatal") == 0;
	case FK_MODULE_EVENT:
		return r->spec->media_status == 3;
	default:
		return false;
	}
}

/*
 * The kernel event a media or poison fault raises, by the name the
 * runtime logs it under (guest/protect/monitor.c); NULL for other kinds.
 */
static const char *traced_as(enum fault_kind k)
{
	switch (k) {
	case FK_POISON:		return "poison";
	case FK_GM_EVENT:	return "general-media";
	case FK_DRAM_EVENT:	return "dram";
	case FK_MODULE_EVENT:	return "memory-module";
	default:		return NULL;
	}
}

/*
 * Did workload @w take @r's kernel event for an LD @r reached? An event
 * whose address holds none of its blocks is noticed without anything to
 * register as lost.
 */
static bool took_event(const struct res_workload *w, const struct fault_run *r)
{
	const char *kind = traced_as(r->kind);
	JsonArray *evs = w->output && json_object_has_member(w->output, "kernel_events") ?
		json_object_get_array_member(w->output, "kernel_events") : NULL;

	for (guint i = 0; kind && evs && i < json_array_get_length(evs); i++) {
		JsonObject *e = json_array_get_object_element(evs, i);
		gint64 sn = json_object_get_int_member_with_default(e, "serial", -1);

		if (g_strcmp0(json_object_get_string_member_with_default(e, "kind", ""), kind))
			continue;
		for (guint k = 0; k < r->lds->len; k++)
			if ((gint64)((const struct fm_ld_at *)g_ptr_array_index(r->lds, k))->serial == sn)
				return true;
	}
	return false;
}

static bool is_protect(const struct res_workload *w)
{
	return w->output && !g_strcmp0(json_object_get_string_member_with_default(
					       w->output, "workload", ""), "protect");
}

static JsonArray *arr(JsonObject *o, const char *k)
{
	return o && json_object_has_member(o, k) ? json_object_get_array_member(o, k) : NULL;
}

/* Did @r reach LD @serial on @host? */
static bool reached(const struct fault_run *r, const char *host, gint64 serial)
{
	const struct fm_ld_at *a;

	cb_foreach(r->lds, const struct fm_ld_at, a)
		if ((gint64)a->serial == serial && !strcmp(a->host, host))
			return true;
	return false;
}

/* Redundancy the workload's scheme survives (m), from its name. */
static int tolerance(const char *scheme)
{
	int a, b;

	if (sscanf(scheme, "rep%d", &a) == 1)
		return a - 1;
	if (sscanf(scheme, "rs%d+%d", &a, &b) == 2)
		return b;
	return 0;
}

static double roi_begin(JsonObject *out, int id, gint64 k)
{
	double b, e;

	return k >= 0 && fault_roi_time(out, id, k, &b, &e) ? b : -1;
}

static double chunk_of(JsonObject *out)
{
	double data = json_object_get_double_member_with_default(out, "data_bytes", 0);
	gint64 blocks = json_object_get_int_member_with_default(out, "final_ok", 0) +
			json_object_get_int_member_with_default(out, "final_lost", 0);

	return blocks ? data / (double)blocks : 0;
}

/* Ops per modeled second of epochs in @state (all states: NULL). */
static double epoch_rate(JsonObject *out, const char *state, int *n)
{
	JsonArray *ep = arr(out, "epochs");
	double ops = 0, ns = 0;

	*n = 0;
	for (guint i = 0; ep && i < json_array_get_length(ep); i++) {
		JsonObject *e = json_array_get_object_element(ep, i);
		double b, en;

		if (state && g_strcmp0(json_object_get_string_member_with_default(e, "state", ""),
				       state))
			continue;
		if (!fault_roi_time(out, ROI_EPOCH, (gint64)i, &b, &en) || en <= b ||
		    !json_object_get_int_member_with_default(e, "ops", 0))
			continue;
		ops += (double)json_object_get_int_member(e, "ops");
		ns += en - b;
		(*n)++;
	}
	return ns > 0 ? ops / ns * 1e9 : -1;
}

/* Repair after modeled time @from: bytes, busy modeled ns, end of the last burst. */
static void repair_after(JsonObject *out, double from, double *bytes, double *busy,
			 double *last_end)
{
	JsonObject *rep = out && json_object_has_member(out, "repair") ?
			  json_object_get_object_member(out, "repair") : NULL;
	JsonArray *bursts = arr(rep, "bursts");

	*bytes = *busy = 0;
	*last_end = -1;
	for (guint i = 0; bursts && i < json_array_get_length(bursts); i++) {
		JsonObject *b = json_array_get_object_element(bursts, i);
		double t0, t1;

		if (!fault_roi_time(out, ROI_REPAIR, (gint64)i, &t0, &t1) || t1 < from)
			continue;
		*bytes += json_object_get_double_member_with_default(b, "bytes", 0);
		*busy += t1 - t0;
		*last_end = MAX(*last_end, t1);
	}
}

static JsonObject *ld_json(const struct fm_ld_at *a)
{
	JsonObject *o = json_object_new();

	json_object_set_string_member(o, "ld", a->ld);
	json_object_set_string_member(o, "pool", a->pool);
	json_object_set_string_member(o, "host", a->host);
	json_object_set_int_member(o, "serial", (gint64)a->serial);
	json_object_set_int_member(o, "size", (gint64)a->size);
	return o;
}

/* The record of @r without what the runtimes saw. */
static JsonObject *base_record(struct faults *f, struct fault_run *r)
{
	JsonObject *o = json_object_new(), *plan = json_object_new(), *inj = json_object_new();
	JsonArray *lds = json_array_new();
	const struct fm_ld_at *a;

	json_object_set_string_member(o, "name", r->spec->id);
	json_object_set_string_member(o, "kind", fault_kind_name(r->kind));
	if (r->spec->kind == FK_RANDOM)
		json_object_set_boolean_member(o, "kind_drawn", TRUE);
	json_object_set_int_member(o, "seed", (gint64)f->sched->seed);
	json_object_set_string_member(o, "target", r->target ? r->target : "");
	json_object_set_object_member(o, "params", json_object_ref(r->params));
	json_object_set_string_member(plan, "when", trigger_kind_name(r->spec->when.kind));
	if (r->spec->when.kind == TRIG_AT || r->spec->when.kind == TRIG_MODELED)
		json_object_set_double_member(plan, "at_s", r->at_s);
	if (r->spec->when.phase)
		json_object_set_string_member(plan, "phase", r->spec->when.phase);
	if (r->spec->when.kind == TRIG_WRITTEN)
		json_object_set_int_member(plan, "written", (gint64)r->spec->when.written);
	if (r->delay_s > 0) {
		json_object_set_double_member(plan, "delay_s", r->delay_s);
		json_object_set_boolean_member(plan, "delay_modeled", r->spec->when.delay_modeled);
	}
	json_object_set_object_member(o, "planned", plan);
	json_object_set_boolean_member(o, "fired", r->fired);
	json_object_set_boolean_member(inj, "ok", r->fired && r->ok);
	if (r->fired) {
		json_object_set_double_member(inj, "t_s", r->t_wall);
		if (r->t_modeled_ns >= 0)
			json_object_set_double_member(inj, "t_modeled_ns", r->t_modeled_ns);
	}
	json_object_set_array_member(inj, "steps", json_array_ref(r->steps));
	json_object_set_object_member(o, "injected", inj);
	cb_foreach(r->lds, const struct fm_ld_at, a)
		json_array_add_object_element(lds, ld_json(a));
	json_object_set_array_member(o, "lds", lds);
	if (r->link_log)
		json_object_set_array_member(o, "link", json_array_ref(r->link_log));
	json_object_set_string_member(o, "clock", "t_s: host wall time since the fabric "
				      "manager started; *_modeled_ns: the timing model's "
				      "clock; t_guest_s: the guest's clock");
	return o;
}

/* The fault a failure of @serial on @host registered at modeled @t is due to. */
static struct fault_run *cause_of(struct faults *f, const char *host, gint64 serial,
				  double t, bool whole)
{
	struct fault_run *best = NULL;

	for (guint i = 0; i < f->runs->len; i++) {
		struct fault_run *r = g_ptr_array_index(f->runs, i);

		bool whole_kind = r->kind == FK_KILL_POOL || r->kind == FK_REVOKE ||
				  r->kind == FK_UNCOR_ERROR || r->kind == FK_MODULE_EVENT;
		bool part_kind = r->kind == FK_POISON || r->kind == FK_GM_EVENT ||
				 r->kind == FK_DRAM_EVENT;

		if (!r->fired || !reached(r, host, serial))
			continue;
		/* a whole LD is not lost to a poisoned line, nor a line to a dead node */
		if (whole ? !whole_kind : !part_kind)
			continue;
		if (t >= 0 && r->t_modeled_ns >= 0 && r->t_modeled_ns > t + 1e6)
			continue;	/* injected after it was seen (1 ms of skew) */
		if (!best || (r->t_modeled_ns >= 0 ? r->t_modeled_ns > best->t_modeled_ns :
			      r->t_wall > best->t_wall))
			best = r;
	}
	return best;
}

/* The guest's live report of this failure, received at host wall t_s. */
static double reported_at(struct faults *f, const char *host, gint64 serial, int nth)
{
	for (guint i = 0; i < json_array_get_length(f->guest_reports); i++) {
		JsonObject *g = json_array_get_object_element(f->guest_reports, i);

		if (!strcmp(json_object_get_string_member_with_default(g, "host", ""), host) &&
		    json_object_get_int_member_with_default(g, "serial", -1) == serial &&
		    nth-- == 0)
			return json_object_get_double_member(g, "t_s");
	}
	return -1;
}

struct joined {
	JsonObject *rec;
	JsonArray *det;
	double lat_min, resumed_max, at_risk, lost, repaired, busy, reprotected;
	JsonArray *effects;	/* one per exposed workload (host, name) */
	double worst;		/* smallest degraded_vs_normal among them; -1 none */
	bool any_modeled;
};

static void add_detection(struct faults *f, struct fault_run *r, struct joined *j,
			  const struct res_workload *w, JsonObject *fail, int nth)
{
	JsonObject *out = w->output, *d = json_object_new();
	gint64 serial = json_object_get_int_member_with_default(fail, "serial", 0);
	double det = roi_begin(out, ROI_DETECT,
			       json_object_get_int_member_with_default(fail, "detect_roi", -1));
	double res = roi_begin(out, ROI_RESUME,
			       json_object_get_int_member_with_default(fail, "resume_roi", -1));
	double chunk = chunk_of(out);
	double lost = (double)json_object_get_int_member_with_default(fail, "blocks_lost", 0) * chunk;
	double rep_bytes, busy, last_end, wall = reported_at(f, w->host, serial, nth);

	json_object_set_string_member(d, "host", w->host);
	json_object_set_string_member(d, "workload", w->name);
	for (const char *const *k = (const char *const[]){ "ld", "pool", "cause", NULL }; *k; k++)
		json_object_set_string_member(d, *k,
			json_object_get_string_member_with_default(fail, *k, ""));
	json_object_set_boolean_member(d, "whole_ld",
		json_object_get_boolean_member_with_default(fail, "whole", FALSE));
	json_object_set_double_member(d, "t_guest_s",
		json_object_get_double_member_with_default(fail, "t_s", -1));
	json_object_set_int_member(d, "bytes_at_risk",
		json_object_get_int_member_with_default(fail, "bytes_at_risk", 0));
	json_object_set_double_member(d, "bytes_lost", lost);
	if (wall >= 0) {
		json_object_set_double_member(d, "reported_t_s", wall);
		json_object_set_double_member(d, "reported_after_s", wall - r->t_wall);
	}
	if (det >= 0) {
		json_object_set_double_member(d, "detected_modeled_ns", det);
		j->any_modeled = true;
		if (r->t_modeled_ns >= 0) {
			double lat = det - r->t_modeled_ns;

			json_object_set_double_member(d, "detection_ns", lat);
			j->lat_min = j->lat_min < 0 ? lat : MIN(j->lat_min, lat);
		}
	}
	if (res >= 0 && det >= 0) {
		json_object_set_double_member(d, "resumed_modeled_ns", res);
		json_object_set_double_member(d, "stall_ns", res - det);
		if (r->t_modeled_ns >= 0)
			j->resumed_max = MAX(j->resumed_max, res - r->t_modeled_ns);
	}
	repair_after(out, det >= 0 ? det : 0, &rep_bytes, &busy, &last_end);
	if (rep_bytes > 0) {
		json_object_set_double_member(d, "repaired_bytes", rep_bytes);
		json_object_set_double_member(d, "repair_busy_ns", busy);
		if (busy > 0)
			json_object_set_double_member(d, "repair_gibps",
						      rep_bytes / busy * 1e9 / (1u << 30));
		if (last_end >= 0 && r->t_modeled_ns >= 0)
			json_object_set_double_member(d, "reprotected_ns", last_end - r->t_modeled_ns);
		j->repaired += rep_bytes;
		j->busy += busy;
		if (last_end >= 0 && r->t_modeled_ns >= 0)
			j->reprotected = MAX(j->reprotected, last_end - r->t_modeled_ns);
	}
	j->at_risk += (double)json_object_get_int_member_with_default(fail, "bytes_at_risk", 0);
	j->lost += lost;
	json_array_add_object_element(j->det, d);
}

/*
 * What the workload's throughput did around the fault (modeled), once per
 * workload in `workloads`; `workload` is the one hit hardest (smallest
 * degraded/normal): a fault that reached several hosts is judged by the
 * one it slowed most.
 */
static void workload_effect(struct joined *j, const struct res_workload *w)
{
	int nn, nd;
	double normal = epoch_rate(w->output, "normal", &nn);
	double degraded = epoch_rate(w->output, "degraded", &nd);
	double ratio = normal > 0 && degraded > 0 ? degraded / normal : -1;
	JsonObject *o;

	for (guint i = 0; i < json_array_get_length(j->effects); i++) {
		JsonObject *e = json_array_get_object_element(j->effects, i);

		if (!strcmp(json_object_get_string_member(e, "host"), w->host) &&
		    !strcmp(json_object_get_string_member(e, "workload"), w->name))
			return;
	}
	o = json_object_new();
	json_object_set_string_member(o, "host", w->host);
	json_object_set_string_member(o, "workload", w->name);
	json_object_set_string_member(o, "scheme",
		json_object_get_string_member_with_default(w->output, "scheme", ""));
	if (normal > 0)
		json_object_set_double_member(o, "normal_ops_per_s", normal);
	if (degraded > 0)
		json_object_set_double_member(o, "degraded_ops_per_s", degraded);
	if (ratio >= 0)
		json_object_set_double_member(o, "degraded_vs_normal", ratio);
	json_object_set_int_member(o, "epochs_normal", nn);
	json_object_set_int_member(o, "epochs_degraded", nd);
	json_object_set_string_member(o, "clock", "ops per modeled second (epoch ROIs)");
	json_array_add_object_element(j->effects, json_object_ref(o));
	if (!json_object_has_member(j->rec, "workload") ||
	    (ratio >= 0 && (j->worst < 0 || ratio < j->worst))) {
		json_object_set_object_member(j->rec, "workload", o);
		if (ratio >= 0)
			j->worst = ratio;
	} else {
		json_object_unref(o);
	}
}

static void check(struct run_result *res, const char *name, bool pass, const char *fmt,
		  ...) G_GNUC_PRINTF(4, 5);
static void check(struct run_result *res, const char *name, bool pass, const char *fmt, ...)
{
	va_list ap;
	g_autofree char *detail = NULL;

	va_start(ap, fmt);
	detail = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	result_check(res, name, pass, "%s", detail);
	progress(NULL, pass ? "fault" : "FAILED", "%s: %s", name, detail);
}

/* Was workload @w running when @r fired, and did it hold an LD @r reached? */
static bool exposed(struct faults *f, const struct fault_run *r, const struct res_workload *w)
{
	JsonArray *lds = arr(w->output, "lds");
	double start, end;

	if (!faults_workload_window(f, w->host, w->name, &start, &end) ||
	    r->t_wall < start || (end >= 0 && r->t_wall > end))
		return false;
	for (guint i = 0; lds && i < json_array_get_length(lds); i++)
		if (reached(r, w->host, json_object_get_int_member_with_default(
				    json_array_get_object_element(lds, i), "serial", -1)))
			return true;
	return false;
}

void fault_join(struct faults *f, struct run_result *res)
{
	g_autofree struct joined *js = g_new0(struct joined, f->runs->len);
	guint64 corrupt = 0;
	const struct res_workload *w;

	for (guint i = 0; i < f->runs->len; i++) {
		js[i].rec = base_record(f, g_ptr_array_index(f->runs, i));
		js[i].det = json_array_new();
		js[i].effects = json_array_new();
		js[i].worst = -1;
		js[i].lat_min = js[i].resumed_max = js[i].reprotected = -1;
	}
	/* every failure a runtime registered, to the fault that caused it */
	cb_foreach(res->workloads, const struct res_workload, w) {
		JsonArray *fails = arr(w->output, "failures");
		g_autoptr(GHashTable) nth = g_hash_table_new(g_direct_hash, g_direct_equal);

		if (!is_protect(w))
			continue;
		corrupt += (guint64)json_object_get_int_member_with_default(w->output, "corrupt", 0);
		for (guint k = 0; fails && k < json_array_get_length(fails); k++) {
			JsonObject *fl = json_array_get_object_element(fails, k);
			gint64 sn = json_object_get_int_member_with_default(fl, "serial", 0);
			double t = roi_begin(w->output, ROI_DETECT,
					     json_object_get_int_member_with_default(fl, "detect_roi", -1));
			struct fault_run *r = cause_of(f, w->host, sn, t,
				json_object_get_boolean_member_with_default(fl, "whole", FALSE));
			int n = GPOINTER_TO_INT(g_hash_table_lookup(nth, GINT_TO_POINTER(sn)));
			guint idx;

			g_hash_table_insert(nth, GINT_TO_POINTER(sn), GINT_TO_POINTER(n + 1));
			if (!r)
				continue;
			g_ptr_array_find(f->runs, r, &idx);
			add_detection(f, r, &js[idx], w, fl, n);
			workload_effect(&js[idx], w);
		}
	}
	for (guint i = 0; i < f->runs->len; i++) {
		struct fault_run *r = g_ptr_array_index(f->runs, i);
		struct joined *j = &js[i];
		g_autofree char *name = g_strdup_printf("fault:%s", r->spec->id);
		guint ndet = json_array_get_length(j->det);

		json_object_set_array_member(j->rec, "detections", j->det);
		json_object_set_array_member(j->rec, "workloads", j->effects);
		json_object_set_boolean_member(j->rec, "detected", ndet > 0);
		if (j->lat_min >= 0)
			json_object_set_double_member(j->rec, "detection_ns", j->lat_min);
		if (j->resumed_max >= 0)
			json_object_set_double_member(j->rec, "resumed_ns", j->resumed_max);
		if (j->repaired > 0) {
			JsonObject *rec = json_object_new();

			json_object_set_double_member(rec, "bytes", j->repaired);
			json_object_set_double_member(rec, "busy_ns", j->busy);
			if (j->busy > 0)
				json_object_set_double_member(rec, "gibps",
							      j->repaired / j->busy * 1e9 / (1u << 30));
			if (j->reprotected >= 0)
				json_object_set_double_member(rec, "reprotected_ns", j->reprotected);
			json_object_set_object_member(j->rec, "recovery", rec);
		}
		json_object_set_double_member(j->rec, "bytes_at_risk", j->at_risk);
		json_object_set_double_member(j->rec, "bytes_lost", j->lost);
		check(res, name, r->fired && r->ok, "%s on %s: %s", fault_kind_name(r->kind),
		      r->target ? r->target : "-", !r->fired ? "never fired (the workloads "
		      "ended first, or its trigger never came)" : r->ok ? "injected" :
		      "an injection step failed (summary.json faults[].injected.steps)");
		/* every exposed runtime noticed what it had to */
		cb_foreach(res->workloads, const struct res_workload, w) {
			g_autofree char *dn = NULL;
			bool seen = false;

			if (!is_protect(w) || !r->fired || !must_detect(r) || !exposed(f, r, w))
				continue;
			for (guint k = 0; k < ndet; k++)
				seen |= !g_strcmp0(json_object_get_string_member(
					json_array_get_object_element(j->det, k), "host"), w->host);
			dn = g_strdup_printf("fault:%s:detected:%s", r->spec->id, w->host);
			if (seen)
				check(res, dn, true, "%s registered the failure", w->name);
			else
				check(res, dn, took_event(w, r), "%s %s", w->name, took_event(w, r) ?
				      "took the kernel's event (no block of its at that address)" :
				      "held a reached LD and never noticed");
		}
		if (r->kind == FK_KILL_POOL && j->resumed_max >= 0) {
			g_autofree char *bn = g_strdup_printf("fault:%s:resumed", r->spec->id);

			check(res, bn, j->resumed_max <= f->sched->detect_bound_s * 1e9,
			      "kill to resumed service %.3f ms modeled (detection %.3f ms), bound "
			      "%.0f ms", j->resumed_max / 1e6, j->lat_min / 1e6,
			      f->sched->detect_bound_s * 1e3);
		}
		g_ptr_array_add(res->faults, j->rec);
	}
	check(res, "faults:no-corrupt-value", corrupt == 0, "%" G_GUINT64_FORMAT " values "
	      "returned as good but wrong, over every protected workload", corrupt);
	/* no protected byte lost, unless more domains failed than the scheme takes */
	cb_foreach(res->workloads, const struct res_workload, w) {
		JsonArray *fails = arr(w->output, "failures");
		g_autoptr(GHashTable) pools = g_hash_table_new(g_str_hash, g_str_equal);
		const char *scheme;
		gint64 lost, refused;
		double lost_then = 0;	/* bytes lost when the LDs failed */
		int m, whole = 0;
		g_autofree char *cn = NULL;

		if (!is_protect(w))
			continue;
		scheme = json_object_get_string_member_with_default(w->output, "scheme", "none");
		lost = json_object_get_int_member_with_default(w->output, "final_lost", 0);
		refused = json_object_get_int_member_with_default(w->output, "reads_lost", 0);
		m = tolerance(scheme);
		for (guint k = 0; fails && k < json_array_get_length(fails); k++) {
			JsonObject *fl = json_array_get_object_element(fails, k);

			lost_then += json_object_get_int_member_with_default(fl, "blocks_lost", 0) *
				     chunk_of(w->output);
			if (json_object_get_boolean_member_with_default(fl, "whole", FALSE)) {
				g_hash_table_add(pools, (gpointer)json_object_get_string_member(fl, "pool"));
				whole++;
			}
		}
		cn = g_strdup_printf("faults:lost:%s:%s", w->host, w->name);
		/*
		 * Unprotected: the loss must have been said, by reads refused or
		 * blocks lost at the end (a block written again after the kill
		 * is whole again, so the end alone can show none).
		 */
		if (m == 0)
			check(res, cn, !whole || lost > 0 || refused > 0, "%s: %.1f MiB lost "
			      "when %d LD(s) failed, %" G_GINT64_FORMAT " reads refused as lost "
			      "(never returned as good); %" G_GINT64_FORMAT " blocks still lost "
			      "at the end (a block written again after the failure is whole "
			      "again)", scheme, lost_then / 1048576.0, whole, refused, lost);
		else
			check(res, cn, lost == 0 || (int)g_hash_table_size(pools) > m,
			      "%s: %" G_GINT64_FORMAT " blocks lost with %u pool node(s) "
			      "failed (it survives %d at a time)", scheme, lost,
			      g_hash_table_size(pools), m);
	}
	res->fault_seed = (gint64)f->sched->seed;
}
