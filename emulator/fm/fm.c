/* SPDX-License-Identifier: MIT */
/*
 * The fabric manager's life in a run (fm.h): connections, the worker that
 * performs one operation at a time, its owner's hooks, the guests' pool
 * demand, and its records at the end.
 */
#include "fm/fm_priv.h"
#include "fm/fm_timing.h"
#include "fm/fm_direct.h"
#include "qemu/argv.h"
#include "common/error.h"
#include "qemu/process.h"
#include "common/progress.h"

#include <sys/socket.h>
#include <string.h>

static void host_free(gpointer p)
{
	struct fm_host *fh = p;

	fm_timing_close(fh);
	agent_free(fh->agent);
	qmp_free(fh->qmp);
	if (fh->log)
		fclose(fh->log);
	g_free(fh);
}

struct fm *fm_new(const struct cb_topology *t, const char *rundir,
		  const struct fm_config *cfg)
{
	struct fm *fm;

	if (!topology_has_lending(t))
		return NULL;
	fm = g_new0(struct fm, 1);
	fm->t = t;
	fm->cfg = *cfg;
	fm->dir = g_strdup(rundir);
	g_mutex_init(&fm->lock);
	fm->map = fm_map_new(t);
	fm->hosts = g_ptr_array_new_with_free_func(host_free);
	fm->queue = g_async_queue_new();
	fm->listen_fd = -1;
	fm->log = json_array_new();
	fm->samples = json_array_new();
	fm->checks = g_ptr_array_new();
	fm->phases = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	fm->want = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	fm->want_how = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					     (GDestroyNotify)json_object_unref);
	return fm;
}

bool fm_connect_host(struct fm *fm, const struct cb_host *h, gint64 deadline_us,
		     GError **error)
{
	g_autofree char *qs = qemu_fm_qmp_socket(fm->dir, h);
	g_autofree char *as = qemu_fm_agent_socket(fm->dir, h);
	g_autofree char *log = g_strdup_printf("%s/fm-%s.log", fm->dir, h->id);
	struct fm_host *fh = g_new0(struct fm_host, 1);

	fh->h = h;
	fh->log = fopen(log, "we");
	g_ptr_array_add(fm->hosts, fh);
	fh->qmp = qmp_connect(qs, fh->log, deadline_us, error);
	if (fh->qmp)
		fh->agent = agent_connect(as, fh->log, deadline_us, error);
	if (!fh->qmp || !fh->agent) {
		g_prefix_error(error, "fabric manager channel: ");
		fh->broken = true;
		return false;
	}
	return true;
}

/* Hand @reply to whoever waits for @r, or drop both. */
static void answer(struct fm_req *r, JsonObject *reply)
{
	if (!r->wait) {
		if (reply)
			json_object_unref(reply);
		fm_req_free(r);
		return;
	}
	g_mutex_lock(&r->m);
	r->reply = reply;
	r->done = true;
	g_cond_signal(&r->c);
	g_mutex_unlock(&r->m);
}

void fm_act(struct fm *fm, const struct fm_action *a)
{
	struct fm_req *r = fm_req_new(a->bind ? FM_REQ_BIND : FM_REQ_UNBIND, a->source);

	r->ld = g_strdup(a->ld);
	r->pool = g_strdup(a->pool);
	r->host = g_strdup(a->host);
	r->mode = g_strdup(a->mode);
	r->expect_refused = a->expect_refused;
	json_object_unref(fm_do(fm, r));
	fm_req_free(r);
}

bool fm_stopping(struct fm *fm)
{
	return g_atomic_int_get(&fm->stop) || qemu_proc_interrupted();
}

/* Messages the guests sent unasked: collect pool-demand from every host. */
static void read_demand(struct fm *fm, struct fm_host *fh)
{
	JsonObject *ev;

	if (fh->broken)
		return;
	for (;;) {
		g_autoptr(GError) err = NULL;
		JsonObject *msg = jsonline_read(fh->agent->conn, g_get_monotonic_time(),
						&err);

		if (!msg) {
			if (!g_error_matches(err, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
				fh->broken = true;
			break;
		}
		if (json_object_has_member(msg, "event"))
			g_queue_push_tail(&fh->agent->events, msg);
		else
			json_object_unref(msg);
	}
	while ((ev = g_queue_pop_head(&fh->agent->events))) {
		const char *name = json_object_get_string_member_with_default(ev, "event", "");

		if ((!strcmp(name, "fault-report") || !strcmp(name, "guest-phase")) &&
		    fm->cfg.hooks.guest_event)
			fm->cfg.hooks.guest_event(fm->cfg.hooks.ctx, fh->h->id, ev);
		if (!strcmp(name, "pool-demand") && (json_object_has_member(ev, "mode") ||
						     json_object_has_member(ev, "avoid")))
			/* what kind of capacity, and from which pools not */
			g_hash_table_insert(fm->want_how, g_strdup(fh->h->id),
					    json_object_ref(ev));
		if (!strcmp(name, "pool-demand")) {
			gint64 bytes = json_object_get_int_member_with_default(ev, "bytes", 0);
			JsonObject *o = json_object_new();
			gint64 *w = g_hash_table_lookup(fm->want, fh->h->id);

			json_object_set_double_member(o, "t_s", fm_now_s(fm));
			json_object_set_string_member(o, "action", "demand");
			json_object_set_string_member(o, "host", fh->h->id);
			json_object_set_int_member(o, "bytes", bytes);
			json_object_set_string_member(o, "source", "guest");
			g_mutex_lock(&fm->lock);
			json_array_add_object_element(fm->log, o);
			g_mutex_unlock(&fm->lock);
			progress(fh->h->id, "fm", "pool-demand %+" G_GINT64_FORMAT " MiB",
				 bytes >> 20);
			if (!w) {
				w = g_new0(gint64, 1);
				g_hash_table_insert(fm->want, g_strdup(fh->h->id), w);
			}
			*w += bytes;
		}
		json_object_unref(ev);
	}
}

static bool ok_of(JsonObject *reply)
{
	return json_object_get_boolean_member_with_default(reply, "ok", FALSE);
}

/*
 * The first free LD a demand may have: not from a pool it asked to avoid
 * (a runtime re-protecting wants a failure domain it does not use yet).
 * Under the FM's lock.
 */
static struct fm_ld *first_free_for(struct fm *fm, JsonObject *how)
{
	JsonArray *avoid = how && json_object_has_member(how, "avoid") ?
			   json_object_get_array_member(how, "avoid") : NULL;
	struct fm_ld *e;

	cb_foreach(fm->map->lds, struct fm_ld, e) {
		bool skip = e->state != FM_LD_FREE;

		for (guint i = 0; !skip && avoid && i < json_array_get_length(avoid); i++)
			skip = !g_strcmp0(json_array_get_string_element(avoid, i),
					  e->ld->pool->id);
		if (!skip)
			return e;
	}
	return NULL;
}

/*
 * demand = grant: a host's offer (negative want) releases its newest LDs,
 * whole LDs only; then what hosts want is bound from free LDs, as long as
 * there are some. What cannot be granted yet waits for the next release.
 */
static void grant_demand(struct fm *fm)
{
	struct fm_host *fh;

	cb_foreach(fm->hosts, struct fm_host, fh) {
		gint64 *w = g_hash_table_lookup(fm->want, fh->h->id);

		while (w && *w < 0 && !g_atomic_int_get(&fm->stop)) {
			struct fm_req *r = fm_req_new(FM_REQ_UNBIND, "demand");
			JsonObject *reply;
			gint64 size;
			struct fm_ld *e;

			g_mutex_lock(&fm->lock);
			e = fm_map_newest_of(fm->map, fh->h, NULL);
			size = e ? (gint64)e->ld->size : 0;
			g_mutex_unlock(&fm->lock);
			if (!e || -*w < size) {
				fm_req_free(r);
				*w = 0;	/* less than an LD to give: nothing to do */
				break;
			}
			r->host = g_strdup(fh->h->id);
			reply = fm_do(fm, r);
			*w += ok_of(reply) ? size : -*w;
			json_object_unref(reply);
			fm_req_free(r);
		}
	}
	cb_foreach(fm->hosts, struct fm_host, fh) {
		gint64 *w = g_hash_table_lookup(fm->want, fh->h->id);

		while (w && *w > 0 && !g_atomic_int_get(&fm->stop)) {
			struct fm_req *r;
			JsonObject *reply;
			struct fm_ld *e;
			gint64 size;
			bool ok;

			JsonObject *how = g_hash_table_lookup(fm->want_how, fh->h->id);

			g_mutex_lock(&fm->lock);
			e = first_free_for(fm, how);
			size = e ? (gint64)e->ld->size : 0;
			g_mutex_unlock(&fm->lock);
			if (!e)
				break;	/* wait for a release */
			r = fm_req_new(FM_REQ_BIND, "demand");
			r->host = g_strdup(fh->h->id);
			r->ld = g_strdup(e->ld->id);
			r->mode = g_strdup(how ? json_object_get_string_member_with_default(
						how, "mode", "ram") : "ram");
			reply = fm_do(fm, r);
			ok = ok_of(reply);
			json_object_unref(reply);
			fm_req_free(r);
			if (!ok)
				break;	/* no port or room now: keep the want */
			*w -= size;
		}
		if (w && *w < 0)
			*w = 0;
	}
}

/* The first start of each workload phase, for the record and for anyone
 * driving the FM from outside (they can wait for it in `status`). */
static void log_phase(struct fm *fm, const char *phase)
{
	g_autofree char *key = g_strdup_printf("phase:%s", phase);
	JsonObject *o;

	if (g_hash_table_contains(fm->phases, key))
		return;
	g_hash_table_add(fm->phases, g_steal_pointer(&key));
	o = json_object_new();
	json_object_set_double_member(o, "t_s", fm_now_s(fm));
	json_object_set_string_member(o, "action", "phase");
	json_object_set_string_member(o, "phase", phase);
	g_mutex_lock(&fm->lock);
	json_array_add_object_element(fm->log, o);
	g_mutex_unlock(&fm->lock);
}

static gpointer worker(gpointer data)
{
	struct fm *fm = data;
	struct fm_req *r;

	while (!g_atomic_int_get(&fm->stop)) {
		struct fm_host *fh;

		r = g_async_queue_timeout_pop(fm->queue, WORKER_TICK_US);
		if (r && r->kind == FM_REQ_PHASE) {
			log_phase(fm, r->phase);
			if (fm->cfg.hooks.phase)
				fm->cfg.hooks.phase(fm->cfg.hooks.ctx, r->phase);
			answer(r, NULL);
		} else if (r) {
			answer(r, fm_do(fm, r));
		}
		if (fm->cfg.hooks.tick)
			fm->cfg.hooks.tick(fm->cfg.hooks.ctx);
		fm_faults_poll(fm);
		cb_foreach(fm->hosts, struct fm_host, fh)
			read_demand(fm, fh);
		if (fm->cfg.grant_demand)
			grant_demand(fm);
		if (fm_now_s(fm) >= fm->next_sample_s) {
			fm_sample(fm);
			fm->next_sample_s = fm_now_s(fm) + fm->cfg.sample_s;
		}
	}
	g_atomic_int_set(&fm->worker_done, 1);
	/* Whoever still waits gets an answer. */
	while ((r = g_async_queue_try_pop(fm->queue))) {
		JsonObject *reply = json_object_new();

		json_object_set_boolean_member(reply, "ok", FALSE);
		json_object_set_string_member(reply, "error", "the run is ending");
		answer(r, reply);
	}
	return NULL;
}

bool fm_start(struct fm *fm, GError **error)
{
	fm->started = true;
	if (!fm_control_start(fm, error))
		return false;
	progress(NULL, "fm", "fabric manager up: %u LDs, control socket %s/fm.sock",
		 fm->t->lds->len, fm->dir);
	fm_sample(fm);
	if (fm->cfg.hooks.start)
		fm->cfg.hooks.start(fm->cfg.hooks.ctx);
	fm->next_sample_s = fm_now_s(fm) + fm->cfg.sample_s;
	fm->worker = g_thread_new("cxlbed-fm", worker, fm);
	return true;
}

void fm_phase(struct fm *fm, const char *name)
{
	struct fm_req *r;

	if (!fm || !fm->worker)
		return;
	r = fm_req_new(FM_REQ_PHASE, "phase");
	r->phase = g_strdup(name);
	fm_submit(fm, r);
}

void fm_stop(struct fm *fm)
{
	if (!fm)
		return;
	g_atomic_int_set(&fm->stop, 1);
	if (qemu_proc_interrupted()) {
		struct fm_host *fh;

		/* Ctrl-C: cut the worker's pending reads short */
		cb_foreach(fm->hosts, struct fm_host, fh) {
			if (fh->qmp)
				shutdown(fh->qmp->conn->fd, SHUT_RDWR);
			if (fh->agent)
				shutdown(fh->agent->conn->fd, SHUT_RDWR);
		}
	}
	if (fm->worker)
		g_thread_join(fm->worker);
	fm->worker = NULL;
	g_atomic_int_set(&fm->worker_done, 1);
	fm_control_stop(fm);
	if (!fm->started)
		return;
	/* the last surprise removals (not after Ctrl-C: QEMU is gone) */
	for (int i = 0; i < 40 && fm_removals_pending(fm) && !qemu_proc_interrupted(); i++) {
		g_usleep(250 * 1000);
		fm_faults_poll(fm);
	}
}

JsonObject *fm_finish(struct fm *fm, struct run_result *res)
{
	JsonObject *pool;

	if (!fm || !fm->started)
		return NULL;
	fm_sample(fm);
	pool = fm_status(fm);
	g_mutex_lock(&fm->lock);
	json_object_set_array_member(pool, "events", json_array_ref(fm->log));
	json_object_set_array_member(pool, "samples", json_array_ref(fm->samples));
	json_object_set_string_member(pool, "clock", "host wall time, seconds "
				      "since the fabric manager started");
	for (guint i = 0; i < fm->checks->len; i++)
		g_ptr_array_add(res->checks, g_ptr_array_index(fm->checks, i));
	g_ptr_array_set_size(fm->checks, 0);
	g_mutex_unlock(&fm->lock);
	return pool;
}

void fm_free(struct fm *fm)
{
	struct fm_req *r;

	if (!fm)
		return;
	while ((r = g_async_queue_try_pop(fm->queue)))
		fm_req_free(r);
	g_async_queue_unref(fm->queue);
	g_ptr_array_unref(fm->hosts);
	fm_map_free(fm->map);
	json_array_unref(fm->log);
	json_array_unref(fm->samples);
	g_ptr_array_unref(fm->checks);
	g_hash_table_unref(fm->phases);
	g_hash_table_unref(fm->want);
	g_hash_table_unref(fm->want_how);
	if (fm->removals)
		g_ptr_array_unref(fm->removals);
	g_mutex_clear(&fm->lock);
	g_free(fm->dir);
	g_free(fm);
}
