/* SPDX-License-Identifier: MIT */
/*
 * Link faults in the timing model: the resources a fault names are
 * degraded in the run's shared segment (model_degrade.h), which every
 * host's model reads on each access. link-degrade holds bandwidth x k and
 * latency + n ns for its duration (or to the end of the run); link-flap
 * takes the link down (bandwidth x k, latency + n ns: a retraining link)
 * count times for duration, every period. The schedule of a flap follows
 * host wall time (the FM's tick); its effect is in modeled time. With
 * signal = on, each degradation also raises a correctable error (CRC
 * threshold) on the LDs behind the resource, as a marginal link does.
 */
#include "faults/fault_priv.h"
#include "timing/model_degrade.h"
#include "timing/shm_links.h"

#include <string.h>

/* The resources @target stands for: a pool's media, an LD's link, a name. */
static void resolve(struct faults *f, struct fault_run *r)
{
	const char *t = r->spec->target;
	g_autoptr(GPtrArray) bound = fm_bound_lds(f->fm, NULL);
	struct fm_ld_at *a;

	r->resources = g_ptr_array_new_with_free_func(g_free);
	if (!strcmp(t, "random")) {
		g_autoptr(GPtrArray) fit = g_ptr_array_new();

		cb_foreach(bound, struct fm_ld_at, a)
			if (!r->spec->host || !strcmp(a->host, r->spec->host))
				g_ptr_array_add(fit, a);
		if (fit->len) {
			a = g_ptr_array_index(fit, sched_rng_next(&r->rng) % fit->len);
			t = a->ld;
		}
	}
	if (topology_find_pool(f->t, t))
		g_ptr_array_add(r->resources, g_strdup_printf("media:pool:%s", t));
	else if (topology_find_ld(f->t, t))
		g_ptr_array_add(r->resources, g_strdup_printf("link:%s", t));
	else if (strcmp(t, "random"))
		g_ptr_array_add(r->resources, g_strdup(t));
	r->target = g_strdup(r->resources->len ? g_ptr_array_index(r->resources, 0) : t);
	/* the LDs behind it, for the record and for the correctable error */
	cb_foreach(bound, struct fm_ld_at, a) {
		g_autofree char *media = g_strdup_printf("media:pool:%s", a->pool);
		g_autofree char *link = g_strdup_printf("link:%s", a->ld);

		for (guint i = 0; i < r->resources->len; i++) {
			const char *n = g_ptr_array_index(r->resources, i);

			if (!strcmp(n, media) || !strcmp(n, link)) {
				struct fm_ld_at *c = g_new0(struct fm_ld_at, 1);

				*c = *a;
				c->ld = g_strdup(a->ld);
				c->pool = g_strdup(a->pool);
				c->host = g_strdup(a->host);
				g_ptr_array_add(r->lds, c);
				break;
			}
		}
	}
}

/* Degrade (or with k = 1, n = 0 restore) every resource of @r; how many. */
static int apply(struct faults *f, struct fault_run *r, double k, double ns)
{
	struct tm_shared *s = fm_timing_segment(f->fm);
	int hit = 0, n;

	if (!s)
		return 0;
	n = __atomic_load_n(&s->nres, __ATOMIC_ACQUIRE);
	for (guint i = 0; i < r->resources->len; i++)
		for (int j = 0; j < n && j < TM_MAX_RES; j++)
			if (!strcmp(s->res[j].name, g_ptr_array_index(r->resources, i))) {
				mf_res_degrade(&s->res[j], k, ns);
				hit++;
			}
	return hit;
}

static void log_state(struct faults *f, struct fault_run *r, const char *state)
{
	JsonObject *o = json_object_new();

	json_object_set_double_member(o, "t_s", run_clock_wall_s(f->clock));
	json_object_set_double_member(o, "t_modeled_ns", run_clock_modeled_ns(f->clock));
	json_object_set_string_member(o, "state", state);
	json_array_add_object_element(r->link_log, o);
}

static void signal_error(struct faults *f, struct fault_run *r)
{
	struct fm_ld_at *a;

	if (!r->spec->signal)
		return;
	cb_foreach(r->lds, struct fm_ld_at, a) {
		g_autoptr(JsonObject) args = json_object_new();
		g_autoptr(GError) err = NULL;
		g_autofree char *path = g_strdup_printf("/machine/peripheral/%s", a->ld);
		JsonNode *n;

		json_object_set_string_member(args, "path", path);
		json_object_set_string_member(args, "type", "crc-threshold");
		n = fm_host_qmp(f->fm, a->host, "cxl-inject-correctable-error", args, &err);
		fault_step(r, "cxl-inject-correctable-error (crc-threshold)", a->host, n != NULL,
			   err ? err->message : NULL, 0);
		if (n)
			json_node_unref(n);
	}
}

static void go_down(struct faults *f, struct fault_run *r)
{
	int hit = apply(f, r, r->spec->bandwidth, r->spec->latency_ns);
	g_autofree char *what = g_strdup_printf("%s: bandwidth x %g, latency + %g ns",
						r->target, r->spec->bandwidth,
						r->spec->latency_ns);

	fault_step(r, what, NULL, hit > 0, hit ? NULL : "no such resource in the "
		   "timing segment", 0);
	r->down = true;
	log_state(f, r, "degraded");
	signal_error(f, r);
}

static void go_up(struct faults *f, struct fault_run *r)
{
	apply(f, r, 1, 0);
	r->down = false;
	log_state(f, r, "restored");
}

void fault_link_start(struct faults *f, struct fault_run *r)
{
	double now = run_clock_wall_s(f->clock);

	r->link_log = json_array_new();
	resolve(f, r);
	json_object_set_double_member(r->params, "bandwidth", r->spec->bandwidth);
	json_object_set_double_member(r->params, "latency_ns", r->spec->latency_ns);
	json_object_set_double_member(r->params, "duration_s", r->spec->duration_s);
	if (r->kind == FK_LINK_FLAP) {
		json_object_set_int_member(r->params, "count", r->spec->count);
		json_object_set_double_member(r->params, "period_s", r->spec->period_s);
		r->flaps_left = r->spec->count;
	}
	go_down(f, r);
	if (r->kind == FK_LINK_FLAP) {
		r->flaps_left--;
		r->end_wall = now + r->spec->duration_s;
		r->next_flip_wall = now + r->spec->period_s;
	} else {
		r->end_wall = r->spec->duration_s > 0 ? now + r->spec->duration_s : 0;
	}
}

void fault_link_tick(struct faults *f, struct fault_run *r)
{
	double now;

	if (!fault_kind_is_link(r->kind) || !r->resources || r->restored)
		return;
	now = run_clock_wall_s(f->clock);
	if (r->down && r->end_wall > 0 && now >= r->end_wall) {
		go_up(f, r);
		if (r->kind != FK_LINK_FLAP || !r->flaps_left)
			r->restored = true;
	}
	if (!r->down && r->kind == FK_LINK_FLAP && r->flaps_left && now >= r->next_flip_wall) {
		go_down(f, r);
		r->flaps_left--;
		r->end_wall = now + r->spec->duration_s;
		r->next_flip_wall = now + r->spec->period_s;
	}
}

void fault_link_restore(struct faults *f, struct fault_run *r)
{
	if (!fault_kind_is_link(r->kind) || !r->resources || r->restored)
		return;
	if (r->down)
		go_up(f, r);
	r->restored = true;
}
