/* SPDX-License-Identifier: MIT */
/* The fabric manager's ownership map (fm_map.h). */
#include "fm/fm_map.h"

#include <string.h>

#define MIB(x) ((unsigned long long)((x) >> 20))

static void binding_clear(struct fm_binding *b)
{
	g_free(b->backend);
	g_free(b->mode);
	g_free(b->region);
	g_free(b->dax);
	*b = (struct fm_binding){ .node = -1, .used_bytes = -1 };
}

static void ld_free(gpointer p)
{
	struct fm_ld *e = p;

	binding_clear(&e->b);
	g_free(e);
}

struct fm_map *fm_map_new(const struct cb_topology *t)
{
	struct fm_map *m = g_new0(struct fm_map, 1);
	const struct cb_ld *ld;

	m->t = t;
	m->lds = g_ptr_array_new_with_free_func(ld_free);
	m->port_user = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
					     g_free);
	cb_foreach(t->lds, const struct cb_ld, ld) {
		struct fm_ld *e = g_new0(struct fm_ld, 1);

		e->ld = ld;
		binding_clear(&e->b);
		g_ptr_array_add(m->lds, e);
	}
	return m;
}

void fm_map_free(struct fm_map *m)
{
	if (!m)
		return;
	g_ptr_array_unref(m->lds);
	g_hash_table_unref(m->port_user);
	g_free(m);
}

const char *fm_ld_state_name(enum fm_ld_state s)
{
	static const char *const names[] = {
		[FM_LD_FREE] = "free", [FM_LD_BINDING] = "binding",
		[FM_LD_BOUND] = "bound", [FM_LD_RELEASING] = "releasing",
		[FM_LD_FAILING] = "failing", [FM_LD_FAILED] = "failed",
	};
	return names[s];
}

struct fm_ld *fm_map_find(struct fm_map *m, const char *ld_id)
{
	struct fm_ld *e;

	cb_foreach(m->lds, struct fm_ld, e)
		if (!strcmp(e->ld->id, ld_id))
			return e;
	return NULL;
}

struct fm_ld *fm_map_first_free(struct fm_map *m, const struct cb_pool *pool)
{
	struct fm_ld *e;

	cb_foreach(m->lds, struct fm_ld, e)
		if (e->state == FM_LD_FREE && (!pool || e->ld->pool == pool))
			return e;
	return NULL;
}

struct fm_ld *fm_map_newest_of(struct fm_map *m, const struct cb_host *h,
			       const struct cb_pool *pool)
{
	struct fm_ld *e, *best = NULL;

	cb_foreach(m->lds, struct fm_ld, e)
		if (e->state == FM_LD_BOUND && e->b.host == h &&
		    (!pool || e->ld->pool == pool) &&
		    (!best || e->b.since_s >= best->b.since_s))
			best = e;
	return best;
}

/* Bytes of @w taken by the topology's regions and by bound LDs. */
static uint64_t window_free(const struct fm_map *m, const struct cb_window *w,
			    int *lds_in_it)
{
	uint64_t room = topology_window_room(m->t, w);
	const struct fm_ld *e;

	*lds_in_it = 0;
	cb_foreach(m->lds, const struct fm_ld, e)
		if (e->state != FM_LD_FREE && e->b.window == w) {
			room = room > e->ld->size ? room - e->ld->size : 0;
			(*lds_in_it)++;
		}
	return room;
}

/* A window of @p's bridge with room for @size: an empty one first, so
 * that the LD comes online as a node of its own. */
static const struct cb_window *pick_window(const struct fm_map *m,
					   const struct cb_port *p, uint64_t size)
{
	g_autoptr(GPtrArray) wins = topology_ld_windows(p);
	const struct cb_window *w, *shared = NULL;

	cb_foreach(wins, const struct cb_window, w) {
		int n;

		if (window_free(m, w, &n) < size)
			continue;
		if (!n)
			return w;
		if (!shared)
			shared = w;
	}
	return shared;
}

bool fm_map_plan_bind(struct fm_map *m, const struct fm_ld *e,
		      const struct cb_host *h, const struct cb_port **port,
		      const struct cb_window **window, char **why)
{
	g_autoptr(GPtrArray) ports = NULL;
	const struct cb_port *p;

	if (e->state == FM_LD_FAILED) {
		*why = g_strdup_printf("%s is failed: its pool node %s was killed",
				       e->ld->id, e->ld->pool->id);
		return false;
	}
	if (e->state != FM_LD_FREE) {
		*why = g_strdup_printf("%s is %s %s %s (since %.1f s); unbind it first",
				       e->ld->id, fm_ld_state_name(e->state),
				       e->state == FM_LD_RELEASING ? "from" : "to",
				       e->b.host->id, e->b.since_s);
		return false;
	}
	if (!topology_pool_lends_to(e->ld->pool, h)) {
		*why = g_strdup_printf("pool %s does not lend to %s (its hosts "
				       "key)", e->ld->pool->id, h->id);
		return false;
	}
	ports = topology_host_ld_ports(m->t, h);
	*port = NULL;
	*window = NULL;
	cb_foreach(ports, const struct cb_port, p) {
		if (g_hash_table_contains(m->port_user, p))
			continue;
		*window = pick_window(m, p, e->ld->size);
		if (*window) {
			*port = p;
			return true;
		}
	}
	*why = g_strdup_printf("%s has no free hotplug root port with a window "
			       "that has %lluM of room", h->id, MIB(e->ld->size));
	return false;
}

void fm_map_begin_bind(struct fm_map *m, struct fm_ld *e, const struct cb_host *h,
		       const struct cb_port *port, const struct cb_window *w,
		       const char *mode, double now_s)
{
	binding_clear(&e->b);
	e->state = FM_LD_BINDING;
	e->b.host = h;
	e->b.port = port;
	e->b.window = w;
	e->b.mode = g_strdup(mode);
	e->b.since_s = now_s;
	e->b.backend = g_strdup_printf("%s-mem%u", e->ld->id, e->gen++);
	g_hash_table_insert(m->port_user, (gpointer)port, g_strdup(e->ld->id));
}

void fm_map_bound(struct fm_map *m, struct fm_ld *e)
{
	e->state = FM_LD_BOUND;
}

void fm_map_begin_release(struct fm_map *m, struct fm_ld *e)
{
	e->state = FM_LD_RELEASING;
}

void fm_map_release_failed(struct fm_map *m, struct fm_ld *e)
{
	e->state = FM_LD_BOUND;
}

void fm_map_begin_fail(struct fm_map *m, struct fm_ld *e)
{
	e->state = FM_LD_FAILING;
}

void fm_map_failed(struct fm_map *m, struct fm_ld *e, bool dead, bool port_reusable)
{
	if (e->state != FM_LD_FREE && e->state != FM_LD_FAILED)
		fm_map_freed(m, e, port_reusable);
	if (dead)
		e->state = FM_LD_FAILED;
}

void fm_map_freed(struct fm_map *m, struct fm_ld *e, bool port_reusable)
{
	if (port_reusable)
		g_hash_table_remove(m->port_user, e->b.port);
	else
		g_hash_table_insert(m->port_user, (gpointer)e->b.port,
				    g_strdup_printf("%s (not removed)", e->ld->id));
	binding_clear(&e->b);
	e->state = FM_LD_FREE;
}

struct fm_totals fm_map_totals(const struct fm_map *m, const struct cb_pool *pool,
			       const struct cb_host *h)
{
	struct fm_totals t = { 0 };
	const struct cb_pool *p;
	const struct fm_ld *e;

	cb_foreach(m->t->pools, const struct cb_pool, p)
		if (p->ld_size && (!pool || p == pool))
			t.size += p->size;
	cb_foreach(m->lds, const struct fm_ld, e) {
		uint64_t used;

		if ((pool && e->ld->pool != pool) || e->state == FM_LD_FREE)
			continue;
		if (e->state == FM_LD_FAILED) {
			if (!h)
				t.failed += e->ld->size;
			continue;
		}
		if (h && e->b.host != h)
			continue;
		t.lent += e->ld->size;
		if (e->b.used_bytes < 0)
			t.unknown++;
		used = e->b.used_bytes < 0 ? e->ld->size :
		       MIN((uint64_t)e->b.used_bytes, e->ld->size);
		t.used += used;
	}
	t.free = t.size > t.lent + t.failed ? t.size - t.lent - t.failed : 0;
	t.stranded = t.lent - t.used;
	return t;
}

JsonArray *fm_map_ld_info(const struct fm_map *m)
{
	JsonArray *rows = json_array_new();
	const struct fm_ld *e;

	cb_foreach(m->lds, const struct fm_ld, e) {
		JsonObject *o = json_object_new();

		json_object_set_string_member(o, "ld", e->ld->id);
		json_object_set_string_member(o, "pool", e->ld->pool->id);
		json_object_set_int_member(o, "serial", (gint64)e->ld->serial);
		json_object_set_int_member(o, "offset", (gint64)e->ld->offset);
		json_object_set_int_member(o, "size", (gint64)e->ld->size);
		json_object_set_string_member(o, "state", fm_ld_state_name(e->state));
		if (e->state != FM_LD_FREE && e->state != FM_LD_FAILED) {
			json_object_set_string_member(o, "host", e->b.host->id);
			json_object_set_string_member(o, "port", e->b.port->id);
			json_object_set_string_member(o, "window", e->b.window->id);
			json_object_set_string_member(o, "mode", e->b.mode);
			json_object_set_double_member(o, "since_s", e->b.since_s);
			if (e->b.region)
				json_object_set_string_member(o, "region", e->b.region);
			if (e->b.dax)
				json_object_set_string_member(o, "dax", e->b.dax);
			if (e->b.node >= 0)
				json_object_set_int_member(o, "node", e->b.node);
			if (e->b.used_bytes >= 0)
				json_object_set_int_member(o, "used_bytes", e->b.used_bytes);
		}
		json_array_add_object_element(rows, o);
	}
	return rows;
}

static JsonObject *totals_json(const struct fm_totals *t)
{
	JsonObject *o = json_object_new();

	json_object_set_int_member(o, "lent", (gint64)t->lent);
	json_object_set_int_member(o, "used", (gint64)t->used);
	json_object_set_int_member(o, "stranded", (gint64)t->stranded);
	if (t->unknown)
		json_object_set_int_member(o, "use_unknown_lds", t->unknown);
	return o;
}

JsonObject *fm_map_allocations(const struct fm_map *m)
{
	JsonObject *out = json_object_new();
	JsonObject *hosts = json_object_new();
	const struct cb_host *h;
	const struct cb_pool *p;
	JsonArray *pools = json_array_new();

	cb_foreach(m->t->hosts, const struct cb_host, h) {
		struct fm_totals t = fm_map_totals(m, NULL, h);
		JsonObject *o = totals_json(&t);
		JsonArray *lds = json_array_new();
		const struct fm_ld *e;

		cb_foreach(m->lds, const struct fm_ld, e)
			if (e->state != FM_LD_FREE && e->state != FM_LD_FAILED &&
			    e->b.host == h)
				json_array_add_string_element(lds, e->ld->id);
		json_object_set_array_member(o, "lds", lds);
		json_object_set_object_member(hosts, h->id, o);
	}
	cb_foreach(m->t->pools, const struct cb_pool, p) {
		struct fm_totals t;
		JsonObject *o;

		if (!p->ld_size)
			continue;
		t = fm_map_totals(m, p, NULL);
		o = totals_json(&t);
		json_object_set_string_member(o, "pool", p->id);
		json_object_set_int_member(o, "size", (gint64)t.size);
		json_object_set_int_member(o, "free", (gint64)t.free);
		if (t.failed)
			json_object_set_int_member(o, "failed", (gint64)t.failed);
		json_array_add_object_element(pools, o);
	}
	json_object_set_object_member(out, "hosts", hosts);
	json_object_set_array_member(out, "pools", pools);
	return out;
}
