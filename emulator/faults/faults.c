/* SPDX-License-Identifier: MIT */
/*
 * The fault schedule at run time (faults.h): when each fault is due, and
 * its firing; everything runs in the fabric manager's worker thread.
 */
#include "fault_priv.h"
#include "progress.h"

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

struct faults *faults_new(const struct fault_schedule *s, const struct cb_topology *t,
			  const char *rundir, bool timing)
{
	struct faults *f;

	if (!s || !s->specs->len)
		return NULL;
	f = g_new0(struct faults, 1);
	f->sched = s;
	f->t = t;
	f->dir = g_strdup(rundir);
	f->timing = timing;
	f->modeled_origin_ns = -1;
	f->runs = g_ptr_array_new_with_free_func(run_free);
	f->written_origin = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	f->guest_reports = json_array_new();
	g_mutex_init(&f->lock);
	f->windows = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	for (guint i = 0; i < s->specs->len; i++) {
		const struct fault_spec *x = g_ptr_array_index(s->specs, i);
		struct fault_run *r = g_new0(struct fault_run, 1);

		r->spec = x;
		r->rng = fault_rng_for(s->seed, x->id);
		r->kind = x->kind;
		/* the time first, so that a replay draws the same whatever happens */
		r->at_s = x->at_hi > x->at_lo ? fault_rng_between(&r->rng, x->at_lo, x->at_hi) :
			  x->at_lo;
		r->delay_s = x->delay_hi > x->delay_s ?
			     fault_rng_between(&r->rng, x->delay_s, x->delay_hi) : x->delay_s;
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
	g_hash_table_unref(f->written_origin);
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

static void fire(struct faults *f, struct fault_run *r)
{
	r->fired = true;
	r->t_wall = fm_clock_s(f->fm);
	r->t_modeled_ns = fault_modeled_now_ns(f);
	fault_inject(f, r);
	progress(NULL, r->ok ? "fault" : "FAILED", "%s: %s on %s at %.2f s%s",
		 r->spec->id, fault_kind_name(r->kind), r->target ? r->target : "-",
		 r->t_wall, r->ok ? "" : " (an injection step failed; see summary.json)");
}

/* A trigger came: fire now, or after the fault's delay. */
static void trigger(struct faults *f, struct fault_run *r)
{
	if (r->fired || r->armed)
		return;
	if (r->delay_s <= 0) {
		fire(f, r);
		return;
	}
	r->armed = true;
	r->due_wall = fm_clock_s(f->fm) + r->delay_s;
	r->due_modeled_ns = r->spec->delay_modeled ? fault_modeled_now_ns(f) : -1;
	if (r->due_modeled_ns >= 0)
		r->due_modeled_ns += r->delay_s * 1e9;
}

void faults_start(struct faults *f, struct fm *fm)
{
	f->fm = fm;
	for (guint i = 0; i < f->runs->len; i++) {
		struct fault_run *r = g_ptr_array_index(f->runs, i);

		if (r->spec->when == FW_START)
			trigger(f, r);
	}
}

void faults_phase(struct faults *f, const char *phase)
{
	for (guint i = 0; f && i < f->runs->len; i++) {
		struct fault_run *r = g_ptr_array_index(f->runs, i);

		if (r->spec->when == FW_PHASE && !strcmp(r->spec->phase, phase))
			trigger(f, r);
	}
}

void faults_guest_phase(struct faults *f, const char *host, const char *phase)
{
	for (guint i = 0; f && i < f->runs->len; i++) {
		struct fault_run *r = g_ptr_array_index(f->runs, i);

		if (r->spec->when == FW_GUEST && !strcmp(r->spec->phase, phase) &&
		    (!r->spec->host || !strcmp(r->spec->host, host)))
			trigger(f, r);
	}
}

/* Bytes written to the pools a written: trigger watches since it started. */
static uint64_t written_since(struct faults *f, struct fault_run *r)
{
	const char *pool = r->spec->target && topology_find_pool(f->t, r->spec->target) ?
			   r->spec->target : NULL;
	uint64_t now = 0, *origin;
	const struct cb_pool *p;

	cb_foreach(f->t->pools, const struct cb_pool, p)
		if (p->ld_size && (!pool || !strcmp(pool, p->id)))
			now += fault_pool_written(f, p->id);
	origin = g_hash_table_lookup(f->written_origin, r->spec->id);
	if (!origin) {
		origin = g_new(uint64_t, 1);
		*origin = now;
		g_hash_table_insert(f->written_origin, g_strdup(r->spec->id), origin);
	}
	return now - *origin;
}

void faults_tick(struct faults *f)
{
	double modeled = -1;

	if (!f || !f->fm)
		return;
	if (f->timing) {
		modeled = fault_modeled_now_ns(f);
		if (modeled >= 0 && f->modeled_origin_ns < 0)
			f->modeled_origin_ns = modeled;
	}
	for (guint i = 0; i < f->runs->len; i++) {
		struct fault_run *r = g_ptr_array_index(f->runs, i);
		bool due = false;

		if (r->fired) {
			fault_link_tick(f, r);
			continue;
		}
		if (r->armed) {
			if (r->spec->delay_modeled ?
			    (r->due_modeled_ns < 0 ? fm_clock_s(f->fm) >= r->due_wall :
			     modeled >= r->due_modeled_ns) :
			    fm_clock_s(f->fm) >= r->due_wall)
				fire(f, r);
			continue;
		}
		switch (r->spec->when) {
		case FW_WALL:
			due = fm_clock_s(f->fm) >= r->at_s;
			break;
		case FW_MODELED:
			due = modeled >= 0 && f->modeled_origin_ns >= 0 &&
			      modeled - f->modeled_origin_ns >= r->at_s * 1e9;
			break;
		case FW_WRITTEN:
			due = written_since(f, r) >= r->spec->written;
			break;
		case FW_START:
		case FW_PHASE:
		case FW_GUEST:
			break;
		}
		if (due)
			fire(f, r);
	}
}

void faults_guest_report(struct faults *f, const char *host, JsonObject *ev)
{
	JsonObject *o;

	if (!f)
		return;
	o = json_object_new();
	json_object_set_string_member(o, "host", host);
	json_object_set_double_member(o, "t_s", f->fm ? fm_clock_s(f->fm) : 0);
	json_object_set_double_member(o, "t_modeled_ns", fault_modeled_now_ns(f));
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

void faults_workload(struct faults *f, const char *host, const char *name, bool start,
		     double t_s)
{
	g_autofree char *key = NULL;
	double *w;

	if (!f)
		return;
	key = g_strdup_printf("%s/%s", host, name);
	g_mutex_lock(&f->lock);
	w = g_hash_table_lookup(f->windows, key);
	if (!w) {
		w = g_new(double, 2);
		w[0] = t_s;
		w[1] = -1;
		g_hash_table_insert(f->windows, g_steal_pointer(&key), w);
	}
	if (!start)
		w[1] = t_s;
	g_mutex_unlock(&f->lock);
}

bool faults_workload_window(struct faults *f, const char *host, const char *name,
			    double *start, double *end)
{
	g_autofree char *key = g_strdup_printf("%s/%s", host, name);
	double *w;

	g_mutex_lock(&f->lock);
	w = g_hash_table_lookup(f->windows, key);
	if (w) {
		*start = w[0];
		*end = w[1];
	}
	g_mutex_unlock(&f->lock);
	return w != NULL;
}
