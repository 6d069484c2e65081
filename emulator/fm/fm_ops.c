/* SPDX-License-Identifier: MIT */
/*
 * One fabric-manager operation from request to record, in the worker:
 *
 * bind ("Bind vPPB"): refuse what the ownership map forbids; else QMP
 * object-add of a memory-backend-file (share=on, the LD's slice of the
 * pool file), device_add of a cxl-type3 on the chosen hotplug root port
 * with the LD's serial and CDAT, then the guest agent's attach-ld (a
 * 1-way region in the chosen window, online movable or devdax).
 *
 * unbind ("Unbind vPPB", waiting for the host): the agent's release-ld
 * (the runtime gives the LD back, the kernel migrates its pages off, the
 * region goes, the slot is powered down: the host's eject); then the FM
 * checks that QEMU removed the device (device_del when it did not) and
 * drops the memory backend.
 *
 * Every operation lands in pool.events[] and, where it decides the
 * run's verdict, in a check (docs/pooling.md).
 */
#include "fm/fm_priv.h"
#include "qemu/argv.h"
#include "qemu/cdat.h"
#include "common/error.h"
#include "fm/fm_timing.h"
#include "common/progress.h"
#include "qemu/table_skew.h"
#include "qemu/process.h"

#include <string.h>

#define QMP_S 10
#define ATTACH_S 90
#define RELEASE_S 150
#define EJECT_WAIT_S 5
#define DEVICE_DEL_WAIT_S 20

static gint64 in_s(int s)
{
	return g_get_monotonic_time() + (gint64)s * G_USEC_PER_SEC;
}

/* What became of a request, for the log and the checks. */
struct outcome {
	char *ld, *host;
	bool refused, invalid;
};

static void refuse(struct outcome *o, GError **error, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);
static void refuse(struct outcome *o, GError **error, const char *fmt, ...)
{
	va_list ap;
	g_autofree char *msg = NULL;

	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	o->refused = true;
	g_set_error_literal(error, CXLBED_ERROR, CXLBED_ERROR_RUN, msg);
}

/*
 * The LD request @r names, or @fallback when it names none (a free one,
 * the host's newest); NULL and why: no such LD (invalid) or none to take
 * (@none: refused). Under the FM's lock.
 */
static struct fm_ld *named_ld(struct fm *fm, const struct fm_req *r,
			      struct fm_ld *fallback, const char *none,
			      struct outcome *o, GError **error)
{
	struct fm_ld *e = r->ld ? fm_map_find(fm->map, r->ld) : fallback;

	if (e) {
		g_free(o->ld);
		o->ld = g_strdup(e->ld->id);
		return e;
	}
	if (r->ld) {
		o->invalid = true;
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT,
			    "no logical device %s", r->ld);
	} else {
		refuse(o, error, "%s", none);
	}
	return NULL;
}

JsonNode *fm_qmp_do(struct fm_host *fh, const char *cmd, JsonObject *args,
		    GError **error)
{
	GError *err = NULL;
	JsonNode *n = qmp_execute(fh->qmp, cmd, args, in_s(QMP_S), &err);

	/* (a caller that wants no message must still learn of a dead monitor) */
	if (!n && !g_error_matches(err, G_IO_ERROR, G_IO_ERROR_FAILED))
		fh->broken = true;	/* the monitor itself went away */
	if (err)
		g_propagate_error(error, err);
	return n;
}

/* Is QEMU's device @id still there? -1 when QMP cannot say. */
int fm_device_present(struct fm_host *fh, const char *id)
{
	g_autoptr(JsonObject) args = json_object_new();
	g_autoptr(JsonNode) n = NULL;
	JsonArray *a;

	json_object_set_string_member(args, "path", "/machine/peripheral");
	n = fm_qmp_do(fh, "qom-list", args, NULL);
	if (!n || !JSON_NODE_HOLDS_ARRAY(n))
		return -1;
	a = json_node_get_array(n);
	for (guint i = 0; i < json_array_get_length(a); i++)
		if (!g_strcmp0(json_object_get_string_member_with_default(
				json_array_get_object_element(a, i), "name", ""), id))
			return 1;
	return 0;
}

static bool wait_gone(struct fm_host *fh, const char *id, int seconds)
{
	gint64 end = in_s(seconds);

	do {
		if (fm_device_present(fh, id) == 0)
			return true;
		g_usleep(100 * 1000);
	} while (g_get_monotonic_time() < end && !fh->broken && !qemu_proc_interrupted());
	return false;
}

/*
 * Get device @id out of QEMU: the guest's eject has usually done it; if
 * not, device_del (the attention button: the guest's pciehp waits 5 s).
 */
static bool remove_device(struct fm_host *fh, const char *id, const char **how)
{
	g_autoptr(JsonObject) args = json_object_new();
	g_autoptr(JsonNode) n = NULL;

	*how = "guest eject";
	if (wait_gone(fh, id, EJECT_WAIT_S))
		return true;
	*how = "device_del";
	json_object_set_string_member(args, "id", id);
	n = fm_qmp_do(fh, "device_del", args, NULL);
	return n && wait_gone(fh, id, DEVICE_DEL_WAIT_S);
}

/*
 * QEMU 10.0.2 never clears a cxl-type3 backend's "mapped" mark when the
 * device goes (ct3_exit), so object-del fails with "in use"; the backend
 * then stays, unreachable, and the next binding takes a fresh id.
 */
bool fm_drop_backend(struct fm_host *fh, const char *backend)
{
	g_autoptr(JsonObject) args = json_object_new();
	g_autoptr(JsonNode) n = NULL;

	json_object_set_string_member(args, "id", backend);
	n = fm_qmp_do(fh, "object-del", args, NULL);
	return n != NULL;
}

static bool qemu_plug(struct fm *fm, struct fm_host *fh, const struct cb_ld *ld,
		      const struct cb_device *dev, const char *backend,
		      GError **error)
{
	g_autofree char *file = qemu_pool_file(fm->dir, ld->pool);
	g_autofree char *cdat = g_strdup_printf("%s/cdat-%s-%s.bin", fm->dir,
						ld->id, fh->h->id);
	g_autoptr(JsonObject) mem = json_object_new();
	g_autoptr(JsonObject) dv = json_object_new();
	g_autoptr(JsonNode) n1 = NULL, n2 = NULL;
	g_autofree char *width = g_strdup_printf("%d", dev->link.width);

	struct table_skew skew = { 0 };

	/* the boot-time devices' deliberate test skew, if any (checked at start) */
	table_skew_parse(g_getenv(TABLE_SKEW_ENV), &skew, NULL);
	if (!cdat_write(dev, cdat, skew.cdat_ns, error))
		return false;
	json_object_set_string_member(mem, "qom-type", "memory-backend-file");
	json_object_set_string_member(mem, "id", backend);
	json_object_set_string_member(mem, "mem-path", file);
	json_object_set_boolean_member(mem, "share", TRUE);
	json_object_set_int_member(mem, "offset", (gint64)ld->offset);
	json_object_set_int_member(mem, "size", (gint64)ld->size);
	n1 = fm_qmp_do(fh, "object-add", mem, error);
	if (!n1)
		return false;
	json_object_set_string_member(dv, "driver", "cxl-type3");
	json_object_set_string_member(dv, "bus", dev->port->id);
	json_object_set_string_member(dv, "id", ld->id);
	json_object_set_string_member(dv, "volatile-memdev", backend);
	json_object_set_int_member(dv, "sn", (gint64)ld->serial);
	json_object_set_string_member(dv, "cdat", cdat);
	json_object_set_string_member(dv, "x-speed", qemu_speed_name(dev->link.speed_gts));
	json_object_set_string_member(dv, "x-width", width);
	n2 = fm_qmp_do(fh, "device_add", dv, error);
	if (!n2) {
		fm_drop_backend(fh, backend);	/* not mapped yet: it goes */
		return false;
	}
	return true;
}

static JsonObject *do_bind(struct fm *fm, const struct fm_req *r,
			   struct outcome *o, GError **error)
{
	const struct cb_host *h = r->host ? topology_find_host(fm->t, r->host) : NULL;
	const struct cb_pool *pool = r->pool ? topology_find_pool(fm->t, r->pool) : NULL;
	const char *mode = r->mode ? r->mode : "ram";
	const struct cb_port *port;
	const struct cb_window *win;
	g_autofree char *why = NULL, *backend = NULL, *none = NULL;
	struct cb_device *dev = NULL;
	struct fm_host *fh;
	struct fm_ld *e;
	JsonObject *args, *res;
	gint64 t0 = g_get_monotonic_time();
	double qmp_s;

	o->host = g_strdup(r->host);
	o->ld = g_strdup(r->ld);
	if (!h || (r->pool && (!pool || !pool->ld_size)) ||
	    (strcmp(mode, "ram") && strcmp(mode, "devdax"))) {
		o->invalid = true;
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT, "bind needs a "
			    "known host, a lending pool and mode ram or devdax "
			    "(host %s, pool %s, mode %s)", r->host ? r->host : "-",
			    r->pool ? r->pool : "-", mode);
		return NULL;
	}
	g_mutex_lock(&fm->lock);
	none = g_strdup_printf("%s has no free LD", pool ? pool->id : "the pool");
	e = named_ld(fm, r, r->ld ? NULL : fm_map_first_free(fm->map, pool), none,
		     o, error);
	if (!e) {
		g_mutex_unlock(&fm->lock);
		return NULL;
	}
	if (!fm_map_plan_bind(fm->map, e, h, &port, &win, &why)) {
		g_mutex_unlock(&fm->lock);
		refuse(o, error, "%s", why);
		return NULL;
	}
	fh = fm_host_of(fm, h->id);
	if (!fh || fh->broken) {
		g_mutex_unlock(&fm->lock);
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN, "no fabric-manager "
			    "channel to %s (did it boot?)", h->id);
		return NULL;
	}
	fm_map_begin_bind(fm->map, e, h, port, win, mode, fm_now_s(fm));
	backend = g_strdup(e->b.backend);
	g_mutex_unlock(&fm->lock);

	dev = topology_ld_device(e->ld, port);
	if (!qemu_plug(fm, fh, e->ld, dev, backend, error)) {
		topology_ld_device_free(dev);
		g_mutex_lock(&fm->lock);
		fm_map_freed(fm->map, e, true);
		g_mutex_unlock(&fm->lock);
		return NULL;
	}
	qmp_s = (g_get_monotonic_time() - t0) / 1e6;
	args = json_object_new();
	json_object_set_int_member(args, "serial", (gint64)e->ld->serial);
	json_object_set_string_member(args, "id", e->ld->id);
	json_object_set_int_member(args, "window", win->index);
	json_object_set_int_member(args, "granularity", win->granularity);
	json_object_set_string_member(args, "mode", mode);
	json_object_set_int_member(args, "timeout_s", ATTACH_S - 10);
	res = agent_call(fh->agent, "attach-ld", args, in_s(ATTACH_S), error);
	json_object_unref(args);
	if (!res) {
		/* Take back what the guest may half hold, so the port frees. */
		g_autoptr(JsonObject) rel = json_object_new();
		g_autoptr(JsonObject) gone = NULL;
		const char *how;
		bool removed;

		json_object_set_int_member(rel, "serial", (gint64)e->ld->serial);
		gone = agent_call(fh->agent, "release-ld", rel, in_s(RELEASE_S), NULL);
		removed = remove_device(fh, e->ld->id, &how);
		g_prefix_error(error, "attach in %s: ", h->id);
		topology_ld_device_free(dev);
		g_mutex_lock(&fm->lock);
		fm_map_freed(fm->map, e, removed);
		g_mutex_unlock(&fm->lock);
		return NULL;
	}
	g_mutex_lock(&fm->lock);
	e->b.region = g_strdup(json_object_get_string_member_with_default(res, "region", NULL));
	e->b.dax = g_strdup(json_object_get_string_member_with_default(res, "dax", NULL));
	e->b.node = strcmp(mode, "ram") ? -1 :
		json_object_get_int_member_with_default(res, "node", -1);
	e->b.base = json_object_get_int_member_with_default(res, "base", 0);
	fm_map_bound(fm->map, e);
	g_mutex_unlock(&fm->lock);
	fm_timing_bound(fm, fh, e, dev);
	if (fm->cfg.hooks.bound)
		fm->cfg.hooks.bound(fm->cfg.hooks.ctx, h, e->ld, dev, res);
	topology_ld_device_free(dev);
	json_object_set_string_member(res, "ld", e->ld->id);
	json_object_set_string_member(res, "host", h->id);
	json_object_set_string_member(res, "port", port->id);
	json_object_set_string_member(res, "window", win->id);
	json_object_set_string_member(res, "backend", backend);
	json_object_set_double_member(res, "qmp_s", qmp_s);
	return res;
}

static JsonObject *do_unbind(struct fm *fm, const struct fm_req *r,
			     struct outcome *o, GError **error)
{
	const struct cb_host *h = r->host ? topology_find_host(fm->t, r->host) : NULL;
	g_autofree char *id = NULL, *backend = NULL, *none = NULL;
	JsonObject *args, *res;
	struct fm_host *fh;
	struct fm_ld *e;
	const char *how;
	bool removed, dropped;
	guint64 serial;

	o->host = g_strdup(r->host);
	o->ld = g_strdup(r->ld);
	if ((r->host && !h) || (!r->host && !r->ld)) {
		o->invalid = true;
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT, "unbind needs a "
			    "logical device or a known host");
		return NULL;
	}
	g_mutex_lock(&fm->lock);
	none = h ? g_strdup_printf("%s holds no LD", h->id) : NULL;
	e = named_ld(fm, r, r->ld ? NULL : fm_map_newest_of(fm->map, h, NULL), none,
		     o, error);
	if (!e) {
		g_mutex_unlock(&fm->lock);
		return NULL;
	}
	if (e->state != FM_LD_BOUND || (h && e->b.host != h)) {
		bool held = e->b.host != NULL;	/* not free, not failed */

		refuse(o, error, "%s is %s%s%s%s", e->ld->id, fm_ld_state_name(e->state),
		       held ? " (" : "", held ? e->b.host->id : "", held ? ")" : "");
		g_mutex_unlock(&fm->lock);
		return NULL;
	}
	g_free(o->host);
	o->host = g_strdup(e->b.host->id);
	fh = fm_host_of(fm, e->b.host->id);
	fm_map_begin_release(fm->map, e);
	id = g_strdup(e->ld->id);
	backend = g_strdup(e->b.backend);
	serial = e->ld->serial;
	g_mutex_unlock(&fm->lock);

	args = json_object_new();
	json_object_set_int_member(args, "serial", (gint64)serial);
	json_object_set_int_member(args, "timeout_s", RELEASE_S - 30);
	res = fh && !fh->broken ?
		agent_call(fh->agent, "release-ld", args, in_s(RELEASE_S), error) : NULL;
	json_object_unref(args);
	if (!res) {
		if (error && !*error)
			g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN,
				    "no fabric-manager channel to %s", o->host);
		g_prefix_error(error, "%s did not release %s: ", o->host, id);
		g_mutex_lock(&fm->lock);
		fm_map_release_failed(fm->map, e);
		g_mutex_unlock(&fm->lock);
		return NULL;
	}
	fm_timing_unbound(fm, fh, e);
	removed = remove_device(fh, id, &how);
	dropped = removed && fm_drop_backend(fh, backend);
	g_mutex_lock(&fm->lock);
	fm_map_freed(fm->map, e, removed);
	g_mutex_unlock(&fm->lock);
	json_object_set_string_member(res, "ld", id);
	json_object_set_string_member(res, "host", o->host);
	json_object_set_string_member(res, "removed_by", removed ? how : "nothing");
	json_object_set_boolean_member(res, "backend_dropped", dropped);
	if (!removed) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN, "%s released %s "
			    "but QEMU did not remove the device from its port; the "
			    "port stays taken", o->host, id);
		json_object_unref(res);
		return NULL;
	}
	return res;
}

/* The log entry, the checks and the progress line of one operation. */
static void record(struct fm *fm, const struct fm_req *r, const struct outcome *o,
		   JsonObject *res, const GError *err, double t_s, double wall_s)
{
	const char *action = r->kind == FM_REQ_BIND ? "bind" : "unbind";
	const char *result = res ? "ok" : o->refused ? "refused" :
			     o->invalid ? "invalid" : "failed";
	const char *detail = err ? err->message : "";
	JsonObject *entry = json_object_new();
	bool is_event = g_str_has_prefix(r->source, "event:");

	json_object_set_double_member(entry, "t_s", t_s);
	json_object_set_string_member(entry, "action", action);
	json_object_set_string_member(entry, "ld", o->ld ? o->ld : "");
	json_object_set_string_member(entry, "host", o->host ? o->host : "");
	json_object_set_string_member(entry, "result", result);
	json_object_set_string_member(entry, "source", r->source);
	json_object_set_double_member(entry, "wall_s", wall_s);
	if (err)
		json_object_set_string_member(entry, "detail", detail);
	if (res && r->kind == FM_REQ_UNBIND)
		json_object_set_int_member(entry, "migrated_bytes",
			json_object_get_int_member_with_default(res, "migrated_bytes", -1));
	g_mutex_lock(&fm->lock);
	json_array_add_object_element(fm->log, entry);
	g_mutex_unlock(&fm->lock);

	if (is_event) {
		g_autofree char *name = g_strdup_printf("fm:%s", r->source);
		bool pass = r->expect_refused ? o->refused : res != NULL;

		fm_check(fm, name, pass, "%s %s %s %s: %s%s%s (%.2f s)", action,
			 o->ld ? o->ld : "-", r->kind == FM_REQ_BIND ? "to" : "from",
			 o->host ? o->host : "-", result,
			 err ? ": " : "", detail, wall_s);
	}
	if (o->refused && (r->expect_refused || !is_event)) {
		g_autofree char *name = g_strdup_printf("fm:refused:%s:%s",
							o->ld ? o->ld : "-",
							o->host ? o->host : "-");

		fm_check(fm, name, true, "%s refused and reported: %s", action, detail);
	} else if (!res && !o->refused && !o->invalid && !is_event) {
		g_autofree char *name = g_strdup_printf("fm:%s:%s:%s", action,
							o->ld ? o->ld : "-",
							o->host ? o->host : "-");

		fm_check(fm, name, false, "%s", detail);
	}
	progress(o->host, "fm", "%s %s: %s%s%s (%.2f s, %s)", action,
		 o->ld ? o->ld : "-", result, err ? ": " : "", detail, wall_s,
		 r->source);
}

JsonObject *fm_do(struct fm *fm, const struct fm_req *r)
{
	struct outcome o = { 0 };
	g_autoptr(GError) err = NULL;
	double t_s = fm_now_s(fm);
	gint64 w0 = g_get_monotonic_time();
	JsonObject *res, *reply = json_object_new();
	double wall;

	res = r->kind == FM_REQ_BIND ? do_bind(fm, r, &o, &err) :
				       do_unbind(fm, r, &o, &err);
	wall = (g_get_monotonic_time() - w0) / 1e6;
	if (res)
		json_object_set_double_member(res, "wall_s", wall);
	record(fm, r, &o, res, err, t_s, wall);
	json_object_set_boolean_member(reply, "ok", res != NULL);
	if (res)
		json_object_set_object_member(reply, "result", res);
	else
		json_object_set_string_member(reply, "error", err->message);
	if (o.refused)
		json_object_set_boolean_member(reply, "refused", TRUE);
	if (o.invalid)	/* the request itself was bad: no such LD, host, pool or mode */
		json_object_set_boolean_member(reply, "invalid", TRUE);
	if (res)
		fm_sample(fm);
	if (r->kind == FM_REQ_UNBIND && res)
		fm->unbinds++;
	else if (res)
		fm->binds++;
	g_free(o.ld);
	g_free(o.host);
	return reply;
}

/* Ask each host what its LDs hold, then take one sample per pool. */
void fm_sample(struct fm *fm)
{
	struct fm_host *fh;
	const struct cb_pool *p;

	cb_foreach(fm->hosts, struct fm_host, fh) {
		g_autoptr(JsonObject) args = json_object_new();
		g_autoptr(JsonObject) res = NULL;
		JsonArray *serials = json_array_new();
		JsonArray *rows;
		struct fm_ld *e;

		g_mutex_lock(&fm->lock);
		cb_foreach(fm->map->lds, struct fm_ld, e)
			if (e->state == FM_LD_BOUND && e->b.host == fh->h)
				json_array_add_int_element(serials, (gint64)e->ld->serial);
		g_mutex_unlock(&fm->lock);
		json_object_set_array_member(args, "serials", serials);
		if (fh->broken || !json_array_get_length(serials))
			continue;
		res = agent_call(fh->agent, "ld-usage", args, in_s(10), NULL);
		rows = res && json_object_has_member(res, "lds") ?
			json_object_get_array_member(res, "lds") : NULL;
		g_mutex_lock(&fm->lock);
		for (guint i = 0; rows && i < json_array_get_length(rows); i++) {
			JsonObject *row = json_array_get_object_element(rows, i);
			guint64 sn = json_object_get_int_member_with_default(row, "serial", 0);

			cb_foreach(fm->map->lds, struct fm_ld, e)
				if (e->ld->serial == sn && e->state == FM_LD_BOUND &&
				    e->b.host == fh->h)
					e->b.used_bytes = json_object_get_int_member_with_default(
						row, "used_bytes", -1);
		}
		g_mutex_unlock(&fm->lock);
	}
	g_mutex_lock(&fm->lock);
	cb_foreach(fm->t->pools, const struct cb_pool, p) {
		struct fm_totals t;
		JsonObject *s, *hosts;
		const struct cb_host *h;

		if (!p->ld_size)
			continue;
		t = fm_map_totals(fm->map, p, NULL);
		s = json_object_new();
		hosts = json_object_new();
		json_object_set_double_member(s, "t_s", fm_now_s(fm));
		json_object_set_string_member(s, "pool", p->id);
		json_object_set_int_member(s, "size", (gint64)t.size);
		json_object_set_int_member(s, "lent", (gint64)t.lent);
		json_object_set_int_member(s, "used", (gint64)t.used);
		json_object_set_int_member(s, "free", (gint64)t.free);
		json_object_set_int_member(s, "stranded", (gint64)t.stranded);
		if (t.unknown)
			json_object_set_int_member(s, "use_unknown_lds", t.unknown);
		cb_foreach(fm->t->hosts, const struct cb_host, h) {
			struct fm_totals ht;
			JsonObject *ho;

			if (!topology_pool_lends_to(p, h))
				continue;
			ht = fm_map_totals(fm->map, p, h);
			ho = json_object_new();
			json_object_set_int_member(ho, "lent", (gint64)ht.lent);
			json_object_set_int_member(ho, "used", (gint64)ht.used);
			json_object_set_object_member(hosts, h->id, ho);
		}
		json_object_set_object_member(s, "hosts", hosts);
		json_array_add_object_element(fm->samples, s);
	}
	g_mutex_unlock(&fm->lock);
}
