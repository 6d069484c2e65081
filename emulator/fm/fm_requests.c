/* SPDX-License-Identifier: MIT */
/* One operation for the worker, queued and, when asked, waited for (fm_priv.h). */
#include "fm/fm_priv.h"

struct fm_req *fm_req_new(enum fm_req_kind kind, const char *source)
{
	struct fm_req *r = g_new0(struct fm_req, 1);

	r->kind = kind;
	r->source = g_strdup(source);
	g_mutex_init(&r->m);
	g_cond_init(&r->c);
	return r;
}

void fm_req_free(struct fm_req *r)
{
	if (!r)
		return;
	g_free(r->ld);
	g_free(r->pool);
	g_free(r->host);
	g_free(r->mode);
	g_free(r->phase);
	g_free(r->source);
	if (r->reply)
		json_object_unref(r->reply);
	g_mutex_clear(&r->m);
	g_cond_clear(&r->c);
	g_free(r);
}

JsonObject *fm_submit(struct fm *fm, struct fm_req *r)
{
	JsonObject *reply;

	if (!r->wait) {
		g_async_queue_push(fm->queue, r);
		return NULL;
	}
	g_async_queue_push(fm->queue, r);
	g_mutex_lock(&r->m);
	while (!r->done) {
		g_cond_wait_until(&r->c, &r->m, g_get_monotonic_time() +
				  WORKER_TICK_US);
		/* the worker has gone: take the request back unanswered */
		if (!r->done && g_atomic_int_get(&fm->worker_done) &&
		    g_async_queue_remove(fm->queue, r)) {
			r->reply = json_object_new();
			json_object_set_boolean_member(r->reply, "ok", FALSE);
			json_object_set_string_member(r->reply, "error",
						      "the run is ending");
			r->done = true;
		}
	}
	g_mutex_unlock(&r->m);
	reply = g_steal_pointer(&r->reply);
	fm_req_free(r);
	return reply;
}
