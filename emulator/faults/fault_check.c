/* SPDX-License-Identifier: MIT */
/*
 * A fault schedule against the topology and the scenario (fault_schedule.h):
 * what a fault names must exist and what it writes must fit, before
 * anything boots. Each error names the line of the key at fault; the
 * [fault NAME] line only when no key is (no lending pool at all).
 */
#include "faults/fault_schedule.h"
#include "common/error.h"
#include "topology/path.h"

#include <string.h>

#define FAIL(x, key, ...) \
	(cxlbed_input_error(error, (x)->src.file, (x)->line.key ? (x)->line.key : \
			    (x)->src.line, __VA_ARGS__), false)

/* Kinds that write at an offset in an LD: poison its range, media
 * events the 64 bytes of their record. */
#define EXTENT_KINDS (1u << FK_POISON | 1u << FK_GM_EVENT | 1u << FK_DRAM_EVENT)

static bool is_resource(const char *target)
{
	return g_str_has_prefix(target, "link:") || g_str_has_prefix(target, "media:") ||
	       g_str_has_prefix(target, "bridge:");
}

/* The kinds @x may take: its own, or a random one's candidates. */
static unsigned int kinds_of(const struct fault_spec *x)
{
	return x->kind == FK_RANDOM ? x->kinds : 1u << x->kind;
}

static void add_path(GHashTable *set, const struct cb_path *p)
{
	for (int i = 0; i < p->nhops; i++)
		if (p->hops[i].resource)
			g_hash_table_add(set, g_strdup(p->hops[i].resource));
}

static gint cmp_names(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

GPtrArray *fault_timing_resources(const struct cb_topology *t)
{
	g_autoptr(GHashTable) set = g_hash_table_new_full(g_str_hash, g_str_equal,
							   g_free, NULL);
	GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
	const struct cb_device *d;
	const struct cb_host *h;
	GHashTableIter it;
	gpointer name;

	cb_foreach(t->devices, const struct cb_device, d)
		add_path(set, cb_device_path(d));
	/* an LD's resources exist once it is bound: as the FM would bind it */
	cb_foreach(t->hosts, const struct cb_host, h) {
		g_autoptr(GPtrArray) ports = topology_host_ld_ports(t, h);
		const struct cb_port *p;
		const struct cb_ld *ld;

		cb_foreach(t->lds, const struct cb_ld, ld) {
			if (!topology_pool_lends_to(ld->pool, h))
				continue;
			cb_foreach(ports, const struct cb_port, p) {
				struct cb_device *bound = topology_ld_device(ld, p);

				add_path(set, cb_device_path(bound));
				topology_ld_device_free(bound);
			}
		}
	}
	g_hash_table_iter_init(&it, set);
	while (g_hash_table_iter_next(&it, &name, NULL)) {
		g_hash_table_iter_steal(&it);
		g_ptr_array_add(out, name);
	}
	g_ptr_array_sort(out, cmp_names);
	return out;
}

/* "a, b, c and N more": what a topology has, for a message. */
static char *some_of(const GPtrArray *names)
{
	GString *s = g_string_new(NULL);
	guint shown = MIN(names->len, 8);

	for (guint i = 0; i < shown; i++)
		g_string_append_printf(s, "%s%s", i ? ", " : "",
				       (const char *)g_ptr_array_index(names, i));
	if (names->len > shown)
		g_string_append_printf(s, " and %u more", names->len - shown);
	return g_string_free(s, FALSE);
}

static bool resource_exists(const struct fault_spec *x, const struct cb_topology *t,
			    GError **error)
{
	g_autoptr(GPtrArray) all = fault_timing_resources(t);
	g_autofree char *has = NULL;

	for (guint i = 0; i < all->len; i++)
		if (!strcmp(g_ptr_array_index(all, i), x->target))
			return true;
	has = some_of(all);
	return FAIL(x, target, "[fault %s] target = %s: no timing resource of that name in "
		    "%s; it has %s", x->id, x->target, t->file, *has ? has : "none");
}

/* Does the target exist, and can the fault's kind(s) take it? */
static bool target_fits(const struct fault_spec *x, const struct cb_topology *t,
			GError **error)
{
	const struct cb_pool *pool = topology_find_pool(t, x->target);
	const struct cb_ld *ld = topology_find_ld(t, x->target);
	bool resource = is_resource(x->target);

	if (!strcmp(x->target, "random"))
		return true;
	if (pool && !pool->ld_size)
		return FAIL(x, target, "[fault %s] target = %s: pool %s does not lend LDs; "
			    "faults act on lending pools (ld-size)", x->id, x->target,
			    x->target);
	if (!pool && !ld && !resource)
		return FAIL(x, target, "[fault %s] target = %s: no lending pool or LD of "
			    "that name in %s (or a timing resource: link:NAME, media:NAME, "
			    "bridge:NAME)", x->id, x->target, t->file);
	if (x->kind == FK_KILL_POOL && !pool)
		return FAIL(x, target, "[fault %s] kill-pool-node needs target = a pool "
			    "(a pool node), not %s", x->id, x->target);
	if (resource && !fault_kind_is_link(x->kind) && x->kind != FK_RANDOM)
		return FAIL(x, target, "[fault %s] target = %s is a timing resource: only "
			    "link-degrade and link-flap act on those", x->id, x->target);
	return !resource || resource_exists(x, t, error);
}

/*
 * The LDs the fault may hit (lent to @h if not NULL): the one named, a
 * pool's, any lending pool's for random, the LD or pool behind a
 * link:LD or media:pool:POOL. NULL for another resource: no LD of its own.
 */
static GPtrArray *reachable_lds(const struct fault_spec *x, const struct cb_topology *t,
				const struct cb_host *h)
{
	const char *name = x->target;
	const struct cb_pool *media = g_str_has_prefix(name, "media:pool:") ?
				      topology_find_pool(t, name + 11) : NULL;
	const struct cb_ld *ld;
	GPtrArray *out;

	if (g_str_has_prefix(name, "link:") && topology_find_ld(t, name + 5))
		name += 5;
	else if (media && media->ld_size)
		name += 11;
	else if (is_resource(name))
		return NULL;
	out = g_ptr_array_new();
	cb_foreach(t->lds, const struct cb_ld, ld)
		if ((!strcmp(name, "random") || !strcmp(name, ld->id) ||
		     !strcmp(name, ld->pool->id)) &&
		    (!h || topology_pool_lends_to(ld->pool, h)))
			g_ptr_array_add(out, (gpointer)ld);
	return out;
}

static bool host_fits(const struct fault_spec *x, const struct cb_topology *t,
		      GError **error)
{
	const struct cb_host *h = x->host ? topology_find_host(t, x->host) : NULL;
	g_autoptr(GPtrArray) lds = NULL;

	if (!x->host)
		return true;
	if (!h)
		return FAIL(x, host, "[fault %s] host = %s: no such host in %s", x->id,
			    x->host, t->file);
	lds = reachable_lds(x, t, h);
	if (lds && !lds->len)
		return FAIL(x, host, "[fault %s] host = %s: no LD that target = %s may hit "
			    "is lent to %s (a pool lends to its hosts =, or to every host "
			    "with an empty hotplug root port; docs/pooling.md)", x->id,
			    x->host, x->target, x->host);
	return true;
}

/* The smallest LD of @lds: the one whose end a fault meets first. */
static const struct cb_ld *smallest(const GPtrArray *lds)
{
	const struct cb_ld *min = NULL, *ld;

	cb_foreach(lds, const struct cb_ld, ld)
		if (!min || ld->size < min->size)
			min = ld;
	return min;
}

/*
 * An offset, length or range that does not fit in an LD the fault may hit
 * would be clipped or run past the LD's end when it fires: refused now.
 */
static bool extent_fits(const struct fault_spec *x, const struct cb_topology *t,
			GError **error)
{
	g_autoptr(GPtrArray) lds = NULL;
	g_autofree char *size = NULL, *wrote = NULL;
	const struct cb_ld *ld;
	unsigned int kinds = kinds_of(x);
	/* what the fault writes at its offset: a poison's length, else a record */
	uint64_t bytes = kinds & 1u << FK_POISON ? x->length : 64;
	uint64_t last;

	if (!(kinds & EXTENT_KINDS))
		return true;
	lds = reachable_lds(x, t, x->host ? topology_find_host(t, x->host) : NULL);
	if (!lds || !(ld = smallest(lds)))
		return true;
	size = cfg_format_size(ld->size);
	wrote = cfg_format_size(bytes);
	if (!x->offset_random) {
		g_autofree char *off = cfg_format_size(x->offset);

		if (x->offset >= ld->size || bytes > ld->size - x->offset)
			return FAIL(x, offset, "[fault %s] offset = %s: the %s written there "
				    "would end past %s (%s)%s; give an offset of at most "
				    "%s minus that", x->id, off, wrote, ld->id, size,
				    lds->len > 1 ? ", the smallest LD it may hit" : "",
				    size);
		return true;
	}
	if (x->line.range && x->range > ld->size) {
		g_autofree char *r = cfg_format_size(x->range);

		return FAIL(x, range, "[fault %s] range = %s: larger than %s (%s)%s, "
			    "where the offset is drawn; give at most %s", x->id, r, ld->id,
			    size, lds->len > 1 ? ", the smallest LD it may hit" : "", size);
	}
	last = fault_rng_offset_max(MIN(x->range, ld->size));
	if (last >= ld->size || bytes > ld->size - last) {
		g_autofree char *at = g_strdup_printf("%" G_GUINT64_FORMAT, last);
		g_autofree char *in = cfg_format_size(MIN(x->range, ld->size));

		return FAIL(x, length, "[fault %s] length = %s: with offset = random "
			    "(drawn in range = %s, up to byte %s) it would end past %s "
			    "(%s)%s; give a shorter length or a smaller range", x->id, wrote,
			    in, at, ld->id, size,
			    lds->len > 1 ? ", the smallest LD it may hit" : "");
	}
	return true;
}

bool fault_spec_check(const struct fault_spec *x, const struct cb_topology *t,
		      bool timing, bool (*has_workload)(const void *ctx, const char *id),
		      const void *ctx, GError **error)
{
	bool link = kinds_of(x) & (1u << FK_LINK_DEGRADE | 1u << FK_LINK_FLAP);

	if (!topology_has_lending(t))	/* no key is wrong: the fault is */
		return cxlbed_input_error(error, x->src.file, x->src.line, "[fault %s]: "
					  "topology %s has no lending pool; faults are "
					  "injected by the fabric manager on pool nodes "
					  "(ld-size; docs/faults.md)", x->id, t->file), false;
	if (!target_fits(x, t, error) || !host_fits(x, t, error) ||
	    !extent_fits(x, t, error))
		return false;
	if (x->when.kind == TRIG_PHASE && !has_workload(ctx, x->when.phase))
		return FAIL(x, when, "[fault %s] when = phase:%s: no [workload %s] in "
			    "this scenario", x->id, x->when.phase, x->when.phase);
	if (!timing && x->when.kind == TRIG_MODELED)
		return FAIL(x, at, "[fault %s] at = modeled: needs the timing model "
			    "(timing = off or --no-timing was given)", x->id);
	if (!timing && x->when.kind == TRIG_WRITTEN)
		return FAIL(x, when, "[fault %s] when = written: needs the timing model "
			    "(timing = off or --no-timing was given)", x->id);
	if (!timing && link && x->kind != FK_RANDOM)
		return FAIL(x, kind, "[fault %s] %s changes the timing model's links: it "
			    "needs the timing model (timing = off or --no-timing "
			    "was given)", x->id, fault_kind_name(x->kind));
	return true;
}

bool fault_schedule_check(const struct fault_schedule *s, const struct cb_topology *t,
			  bool timing, bool (*has_workload)(const void *ctx, const char *id),
			  const void *ctx, GError **error)
{
	for (guint i = 0; s && i < s->specs->len; i++)
		if (!fault_spec_check(g_ptr_array_index(s->specs, i), t, timing,
				      has_workload, ctx, error))
			return false;
	return true;
}
