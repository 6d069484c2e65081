/* SPDX-License-Identifier: MIT */
/*
 * The faults of a run (faults.h): each one's place in the run's schedule
 * (emulator/schedule: when it is due), its firing, and what the runtimes
 * reported; everything but the workload windows runs in the fabric
 * manager's worker thread.
 */
#include "faults/fault_priv.h"
#include "common/progress.h"

#include <string.h>

static void run_free(gpointer p)
{
	struct fault_run *r = p;

	g_free(r->target);
	if (r->steps)
		json_array_unref(r->steps);
	if (r->params)
		json_object_unref(r->params);
	if (r->lds)
		g_ptr_array_unref(r->lds);
	if (r->resources)
		g_ptr_array_unref(r->resources);
	if (r->link_log)
		json_array_unref(r->link_log);
	g_free(r);
}

static void fire(void *owner, void *action);

struct faults *faults_new(const struct fault_schedule *s, const struct cb_topology *t,
			  const char *rundir, bool timing, const struct run_clock *clock,
			  struct schedule *sched)
{
	struct faults *f;

	if (!s || !s->specs->len)
		return NULL;
	f = g_new0(struct faults, 1);
	f->sched = s;
	f->t = t;
	f->dir = g_strdup(rundir);
	f->timing = timing;
	f->clock = clock;
	f->runs = g_ptr_array_new_with_free_func(run_free);
	f->guest_reports = json_array_new();
	g_mutex_init(&f->lock);
	f->windows = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	for (guint i = 0; i < s->specs->len; i++) {
		const struct fault_spec *x = g_ptr_array_index(s->specs, i);
		struct fault_run *r = g_new0(struct fault_run, 1);
		struct sched_action a = {
			.id = x->id, .when = &x->when, .host = x->host,
			/* written: the target pool's bytes, else every pool's */
			.pool = x->target && topology_find_pool(t, x->target) ? x->target : NULL,
			.fire = fire, .owner = f, .action = r,
		};
		guint n;

		r->spec = x;
		r->rng = sched_rng_for(s->seed, x->id);
		r->kind = x->kind;
		n = schedule_add(sched, &a, &r->rng);
		r->at_s = schedule_at_s(sched, n);
		r->delay_s = schedule_delay_s(sched, n);
		r->t_modeled_ns = -1;
		r->steps = json_array_new();
		r->params = json_object_new();
		r->lds = g_ptr_array_new_with_free_func(fm_ld_at_free);
		g_ptr_array_add(f->runs, r);
	}
	return f;
}

void faults_free(struct faults *f)
{
	if (!f)
		return;
	g_ptr_array_unref(f->runs);
	json_array_unref(f->guest_reports);
	g_hash_table_unref(f->windows);
	g_mutex_clear(&f->lock);
	g_free(f->dir);
	g_free(f);
}

uint64_t faults_seed(const struct faults *f)
{
	return f->sched->seed;
}

/* The schedule's call: @action is due (the FM worker thread). */
static void fire(void *owner, void *action)
{
	struct faults *f = owner;
	struct fault_run *r = action;

	if (!f->fm)
		return;	/* the FM never started: nothing to inject through */
	r->fired = true;
	r->t_wall = run_clock_wall_s(f->clock);
	r->t_modeled_ns = run_clock_modeled_ns(f->clock);
	fault_inject(f, r);
	progress(NULL, r->ok ? "fault" : "FAILED", "%s: %s on %s at %.2f s%s",
		 r->spec->id, fault_kind_name(r->kind), r->target ? r->target : "-",
		 r->t_wall, r->ok ? "" : " (an injection step failed; see summary.json)");
}

void faults_start(struct faults *f, struct fm *fm)
{
	if (f)
		f->fm = fm;
}

void faults_tick(struct faults *f)
{
	struct fault_run *r;

	if (!f)
		return;
	cb_foreach(f->runs, struct fault_run, r)
		if (r->fired)
			fault_link_tick(f, r);
}

void faults_guest_report(struct faults *f, const char *host, JsonObject *ev)
{
	JsonObject *o;

	if (!f)
		return;
	o = json_object_new();
	json_object_set_string_member(o, "host", host);
	json_object_set_double_member(o, "t_s", run_clock_wall_s(f->clock));
	json_object_set_double_member(o, "t_modeled_ns", run_clock_modeled_ns(f->clock));
	{
		GList *members = json_object_get_members(ev);

		for (GList *m = members; m; m = m->next)
			if (strcmp(m->data, "event"))
				json_object_set_member(o, m->data, json_object_dup_member(ev, m->data));
		g_list_free(members);
	}
	json_array_add_object_element(f->guest_reports, o);
	progress(host, "fault", "runtime reports %s %s lost to it (%s)",
		 json_object_get_string_member_with_default(o, "ld", "?"),
		 json_object_get_boolean_member_with_default(o, "whole", FALSE) ?
		 "wholly" : "partly",
		 json_object_get_string_member_with_default(o, "cause", "?"));
}

void faults_finish(struct faults *f, struct run_result *res)
{
	if (!f)
		return;
	for (guint i = 0; i < f->runs->len; i++)
		fault_link_restore(f, g_ptr_array_index(f->runs, i));
	fault_join(f, res);
}
