/* SPDX-License-Identifier: MIT */
/* A run session (session.h): the clock, the schedule, and who acts. */
#include "run/session.h"
#include "results/fault_report.h"
#include "faults/faults.h"
#include "fm/fm.h"
#include "run/guest_view.h"
#include "results/pool_report.h"
#include "qemu/process.h"
#include "common/progress.h"
#include "schedule/schedule.h"

#include <string.h>

struct run_session {
	const struct scenario *scn;
	char *dir;
	struct run_clock clock;
	struct schedule *sched;	/* events first, then faults */
	struct fm *fm;
	struct faults *faults;	/* NULL: no [fault] in the scenario */
	GHashTable *fired;	/* event ids that acted */
};

static struct tm_shared *segment(void *ctx)
{
	struct run_session *rs = ctx;

	return rs->fm ? fm_timing_segment(rs->fm) : NULL;
}

/* The schedule's call: event @action is due (the FM worker thread, or
 * the start before it). Not once the run is ending. */
static void fire_event(void *owner, void *action)
{
	struct run_session *rs = owner;
	const struct scn_event *e = action;
	g_autofree char *source = g_strdup_printf("event:%s", e->id);
	struct fm_action a = {
		.source = source, .bind = !strcmp(e->action, "bind"), .ld = e->ld,
		.pool = e->pool, .host = e->host, .mode = e->mode,
		.expect_refused = e->expect_refused,
	};

	if (fm_stopping(rs->fm))
		return;
	g_hash_table_add(rs->fired, g_strdup(e->id));
	fm_act(rs->fm, &a);
}

static void on_start(void *ctx)
{
	struct run_session *rs = ctx;

	if (!qemu_proc_interrupted())
		faults_start(rs->faults, rs->fm);
	schedule_start(rs->sched);
}

static void on_phase(void *ctx, const char *phase)
{
	struct run_session *rs = ctx;

	schedule_phase(rs->sched, phase);
}

static void on_tick(void *ctx)
{
	struct run_session *rs = ctx;

	schedule_tick(rs->sched);
	faults_tick(rs->faults);
}

static void on_guest_event(void *ctx, const char *host, JsonObject *ev)
{
	struct run_session *rs = ctx;
	const char *name = json_object_get_string_member_with_default(ev, "event", "");

	if (!strcmp(name, "fault-report"))
		faults_guest_report(rs->faults, host, ev);
	else if (!strcmp(name, "guest-phase"))
		schedule_guest_phase(rs->sched, host,
				     json_object_get_string_member_with_default(ev, "phase", ""));
}

/*
 * The LD's CDAT reached the guest: the kernel's read latency for its
 * region is our path's, as for the regions of the topology
 * (coordinates:HOST:REGION, verify.c).
 */
static void on_bound(void *ctx, const struct cb_host *h, const struct cb_ld *ld,
		     const struct cb_device *dev, JsonObject *res)
{
	struct run_session *rs = ctx;
	g_autofree char *name = g_strdup_printf("coordinates:%s:%s", h->id, ld->id);
	long want = guest_view_kernel_latency(dev, CB_READ);
	gint64 got = json_object_get_int_member_with_default(res, "read_latency_ns", -1);

	fm_check(rs->fm, name, guest_view_latency_fits(dev, CB_READ, got), "guest read "
		 "latency %" G_GINT64_FORMAT ", CDAT/HMAT path sum %ld (incl. the "
		 "kernel's per-link term, as the run's kernel adds it: docs/kernels.md)",
		 got, want);
}

struct run_session *run_session_new(const struct scenario *s, const struct cb_topology *t,
				    const char *rundir)
{
	struct run_session *rs;
	struct fm_config cfg = {
		.grant_demand = s->fm_grant_demand, .sample_s = s->fm_sample_s,
		.hooks = { .start = on_start, .phase = on_phase, .tick = on_tick,
			   .guest_event = on_guest_event, .bound = on_bound },
	};
	/* events draw from the faults' seed, a stream of their own each */
	uint64_t seed = s->faults ? s->faults->seed : 1;
	const struct scn_event *e;

	if (!topology_has_lending(t))
		return NULL;
	rs = g_new0(struct run_session, 1);
	rs->scn = s;
	rs->dir = g_strdup(rundir);
	rs->clock = (struct run_clock){ .segment = segment, .ctx = rs };
	rs->sched = schedule_new(&rs->clock, t);
	rs->fired = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	cfg.clock = &rs->clock;
	cfg.hooks.ctx = rs;
	rs->fm = fm_new(t, rundir, &cfg);
	cb_foreach(s->events, const struct scn_event, e) {
		struct sched_action a = {
			.id = e->id, .when = &e->when, .fire = fire_event, .owner = rs,
			.action = (void *)e,
		};
		uint64_t rng = sched_rng_for(seed, e->id);

		schedule_add(rs->sched, &a, &rng);
	}
	/* the model's segment decides whether modeled times exist */
	rs->faults = faults_new(s->faults, t, rundir, true, &rs->clock, rs->sched);
	return rs;
}

bool run_session_connect(struct run_session *rs, const struct cb_host *h,
			 gint64 deadline_us, GError **error)
{
	return fm_connect_host(rs->fm, h, deadline_us, error);
}

bool run_session_start(struct run_session *rs, GError **error)
{
	run_clock_start(&rs->clock);
	return fm_start(rs->fm, error);
}

void run_session_phase(struct run_session *rs, const char *name)
{
	if (rs)
		fm_phase(rs->fm, name);
}

void run_session_workload(struct run_session *rs, const char *host, const char *name,
			  bool start)
{
	if (rs)
		faults_workload(rs->faults, host, name, start, run_clock_wall_s(&rs->clock));
}

/* Events that never fired fail their check: the scenario said they would.
 * The events are the schedule's first actions, in their order. */
static void check_unfired(struct run_session *rs)
{
	const struct scn_event *e;

	cb_foreach(rs->scn->events, const struct scn_event, e) {
		g_autofree char *name = NULL;

		if (g_hash_table_contains(rs->fired, e->id))
			continue;
		name = g_strdup_printf("fm:event:%s", e->id);
		if (qemu_proc_interrupted())
			fm_check(rs->fm, name, false, "did not fire: the run was interrupted "
				 "by SIG%s first (%s:%d)", sigabbrev_np(qemu_proc_interrupted()),
				 e->src.file, e->src.line);
		else if (e->when.kind == TRIG_AT)
			fm_check(rs->fm, name, false, "did not fire: the workloads ended at "
				 "%.1f s, before at = %.1f s (%s:%d)",
				 run_clock_wall_s(&rs->clock), schedule_at_s(rs->sched, e_i_),
				 e->src.file, e->src.line);
		else if (e->when.kind == TRIG_START || e->when.kind == TRIG_PHASE)
			fm_check(rs->fm, name, false, "did not fire: %s never began (%s:%d)",
				 e->when.phase ? e->when.phase : "the run", e->src.file,
				 e->src.line);
		else
			fm_check(rs->fm, name, false, "did not fire: its trigger (%s%s%s) "
				 "never came before the workloads ended (%s:%d)",
				 trigger_kind_name(e->when.kind), e->when.phase ? ":" : "",
				 e->when.phase ? e->when.phase : "", e->src.file, e->src.line);
	}
}

void run_session_stop(struct run_session *rs, struct run_result *res)
{
	g_autoptr(GError) err = NULL;
	JsonObject *pool;

	if (!rs)
		return;
	fm_stop(rs->fm);
	if (!rs->clock.t0)
		return;	/* never started */
	faults_finish(rs->faults, res);
	if (rs->faults)
		fault_report_write_svg(res, rs->dir);	/* the fault timeline */
	check_unfired(rs);
	pool = fm_finish(rs->fm, res);
	if (!pool)
		return;
	if (!pool_report_write_svg(pool, res->faults, rs->dir, &err))
		progress(NULL, "FAILED", "pool utilisation plot: %s", err->message);
	else
		json_object_set_string_member(pool, "svg", POOL_SVG_FILE);
	if (res->pool)
		json_object_unref(res->pool);
	res->pool = pool;
}

void run_session_free(struct run_session *rs)
{
	if (!rs)
		return;
	faults_free(rs->faults);
	fm_free(rs->fm);
	schedule_free(rs->sched);
	g_hash_table_unref(rs->fired);
	g_free(rs->dir);
	g_free(rs);
}
