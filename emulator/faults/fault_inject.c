/* SPDX-License-Identifier: MIT */
/*
 * One fault's injection (docs/faults.md, "Fault kinds"): choose its
 * target (seeded), then act through the fabric manager's channels:
 *
 *   kill-pool-node   the pool file overwritten (its bytes destroyed for
 *                    every host at once), a memory-module event "all data
 *                    lost" on every host holding one of its LDs, then a
 *                    surprise device_del of each; the pool is dead
 *   revoke-capacity  the LD's bytes destroyed at once, then a surprise
 *                    device_del of it; zeroed, back in the pool
 *   poison           the DPA range in the device's poison list (QMP
 *                    cxl-inject-poison), its bytes destroyed, the guest's
 *                    kernel made to read the poison list and to take the
 *                    pages through memory-failure handling (agent ld-fault)
 *   cor-error, uncor-error   QMP cxl-inject-(un)correctable-error(s)
 *   gm-event, dram-event, module-event   QMP cxl-inject-*-event; an
 *                    uncorrectable media event also destroys its 64 bytes
 *   link-degrade, link-flap  the timing model's resources (fault_link.c)
 */
#include "faults/fault_priv.h"
#include "common/error.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define AGENT_S 30

static double since(gint64 t0)
{
	return (g_get_monotonic_time() - t0) / 1e6;
}

static char *device_path(const char *ld)
{
	return g_strdup_printf("/machine/peripheral/%s", ld);
}

/* QMP @cmd on @ld's host, as one step. */
static bool qmp_step(struct faults *f, struct fault_run *r, const struct fm_ld_at *ld,
		     const char *cmd, JsonObject *args)
{
	g_autoptr(GError) err = NULL;
	gint64 t0 = g_get_monotonic_time();
	JsonNode *n = fm_host_qmp(f->fm, ld->host, cmd, args, &err);
	g_autofree char *what = g_strdup_printf("%s %s", cmd, ld->ld);

	fault_step(r, what, ld->host, n != NULL, err ? err->message : NULL, since(t0));
	if (n)
		json_node_unref(n);
	return n != NULL;
}

static bool agent_step(struct faults *f, struct fault_run *r, const struct fm_ld_at *ld,
		       JsonObject *args, JsonObject **out)
{
	g_autoptr(GError) err = NULL;
	gint64 t0 = g_get_monotonic_time();
	const char *action = json_object_get_string_member(args, "action");
	JsonObject *res = fm_host_agent(f->fm, ld->host, "ld-fault", args, AGENT_S, &err);
	g_autofree char *what = g_strdup_printf("guest %s", action);
	g_autofree char *detail = NULL;

	if (res) {
		JsonNode *n = json_node_alloc();

		json_node_init_object(n, res);
		detail = json_to_string(n, FALSE);
		json_node_unref(n);
	}
	fault_step(r, what, ld->host, res != NULL, err ? err->message : detail, since(t0));
	if (out)
		*out = res;
	else if (res)
		json_object_unref(res);
	return res != NULL;
}

/* Destroy [off, off + len) of @pool's file with seeded noise. */
static bool destroy_bytes(struct faults *f, struct fault_run *r, const char *pool,
			  uint64_t off, uint64_t len)
{
	g_autofree char *path = fm_pool_path(f->fm, pool);
	g_autofree uint64_t *noise = g_malloc(1 << 20);
	uint64_t seed = r->rng;
	int fd = path ? open(path, O_WRONLY | O_CLOEXEC) : -1;
	bool ok = fd >= 0;

	for (size_t i = 0; i < (1 << 20) / 8; i++)
		noise[i] = sched_rng_next(&seed);
	for (uint64_t done = 0; ok && done < len;) {
		size_t n = MIN((uint64_t)1 << 20, len - done);

		ok = pwrite(fd, noise, n, (off_t)(off + done)) == (ssize_t)n;
		done += n;
	}
	if (fd >= 0)
		close(fd);
	return ok;
}

/* A uniformly drawn element of @a (NULL when empty). */
static gpointer draw(struct fault_run *r, GPtrArray *a)
{
	return a->len ? g_ptr_array_index(a, sched_rng_next(&r->rng) % a->len) : NULL;
}

static struct fm_ld_at *copy_ld(const struct fm_ld_at *a)
{
	struct fm_ld_at *c = g_new0(struct fm_ld_at, 1);

	*c = *a;
	c->ld = g_strdup(a->ld);
	c->pool = g_strdup(a->pool);
	c->host = g_strdup(a->host);
	return c;
}

/* The kind a random fault takes: one of its candidates, uniformly. */
static enum fault_kind draw_kind(struct fault_run *r)
{
	int n = __builtin_popcount(r->spec->kinds), pick;

	if (!n)
		return FK_POISON;
	pick = (int)(sched_rng_next(&r->rng) % (uint64_t)n);
	for (int k = 0; k < FK_COUNT; k++)
		if ((r->spec->kinds & (1u << k)) && pick-- == 0)
			return (enum fault_kind)k;
	return FK_POISON;
}

/*
 * The LD a fault on one LD hits: the one named, an LD of the pool named,
 * or any bound LD (on spec->host if given); NULL when none is bound.
 */
static struct fm_ld_at *pick_ld(struct faults *f, struct fault_run *r)
{
	const char *t = r->spec->target;
	const struct cb_ld *named = topology_find_ld(f->t, t);
	g_autoptr(GPtrArray) all = fm_bound_lds(f->fm, NULL);
	g_autoptr(GPtrArray) fit = g_ptr_array_new();
	struct fm_ld_at *a;

	cb_foreach(all, struct fm_ld_at, a) {
		if (named && strcmp(a->ld, t))
			continue;
		if (!named && strcmp(t, "random") && strcmp(a->pool, t))
			continue;
		if (r->spec->host && strcmp(a->host, r->spec->host))
			continue;
		g_ptr_array_add(fit, a);
	}
	a = draw(r, fit);
	return a ? copy_ld(a) : NULL;
}

static const char *pick_pool(struct faults *f, struct fault_run *r)
{
	g_autoptr(GPtrArray) all = fm_bound_lds(f->fm, NULL);
	g_autoptr(GPtrArray) pools = g_ptr_array_new();
	struct fm_ld_at *a;
	const char *p;

	if (strcmp(r->spec->target, "random"))
		return r->spec->target;
	cb_foreach(all, struct fm_ld_at, a) {
		bool seen = false;

		cb_foreach(pools, const char, p)
			seen |= !strcmp(p, a->pool);
		if (!seen && (!r->spec->host || !strcmp(a->host, r->spec->host)))
			g_ptr_array_add(pools, a->pool);
	}
	p = draw(r, pools);
	/* (the names live in the topology, not in @all) */
	return p ? topology_find_pool(f->t, p)->id : NULL;
}

static void kill_pool(struct faults *f, struct fault_run *r, const char *pool)
{
	g_autoptr(GPtrArray) lds = fm_bound_lds(f->fm, pool);
	const struct cb_pool *p = topology_find_pool(f->t, pool);
	struct fm_ld_at *a;
	gint64 t0 = g_get_monotonic_time();
	bool ok;

	/* 1. the media: every byte of the node, bound LDs' slices first */
	cb_foreach(lds, struct fm_ld_at, a)
		g_ptr_array_add(r->lds, copy_ld(a));
	ok = true;
	cb_foreach(lds, struct fm_ld_at, a)
		ok &= destroy_bytes(f, r, pool, a->offset, a->size);
	fault_step(r, "pool file overwritten (bound LDs)", NULL, ok, NULL, since(t0));
	/* 2. the device says so: all data lost */
	cb_foreach(lds, struct fm_ld_at, a) {
		g_autoptr(JsonObject) args = json_object_new();
		g_autofree char *path = device_path(a->ld);

		json_object_set_string_member(args, "path", path);
		json_object_set_string_member(args, "log", "fatal");
		json_object_set_int_member(args, "flags", 1);
		json_object_set_int_member(args, "type", 0);	/* health status change */
		json_object_set_int_member(args, "health-status", 4);	/* replace it */
		json_object_set_int_member(args, "media-status", 3);	/* all data lost */
		json_object_set_int_member(args, "additional-status", 0);
		json_object_set_int_member(args, "life-used", 100);
		json_object_set_int_member(args, "temperature", 45);
		json_object_set_int_member(args, "dirty-shutdown-count", 1);
		json_object_set_int_member(args, "corrected-volatile-error-count", 0);
		json_object_set_int_member(args, "corrected-persistent-error-count", 0);
		qmp_step(f, r, a, "cxl-inject-memory-module-event", args);
	}
	/*
	 * 3. every host loses the device (no release: the node is gone).
	 * Only with remove = on: QEMU 10.0.2 under TCG often aborts
	 * (iotlb_to_section) when the guest's pciehp then takes the region
	 * out of the memory map (docs/faults.md); by default the LDs stay
	 * attached with dead media.
	 */
	json_object_set_boolean_member(r->params, "removed", r->spec->remove);
	cb_foreach(lds, struct fm_ld_at, a) {
		if (!r->spec->remove)
			break;
		g_autoptr(GError) err = NULL;
		gint64 t1 = g_get_monotonic_time();
		g_autofree char *what = g_strdup_printf("surprise removal of %s", a->ld);
		bool removed = fm_surprise_remove(f->fm, a->ld, true, &err);

		fault_step(r, what, a->host, removed, err ? err->message :
			   "device_del sent; the guest's pciehp removes it ~5 s later", since(t1));
	}
	fm_pool_dead(f->fm, pool);
	/* 4. the rest of the node's media, unbound LDs included */
	t0 = g_get_monotonic_time();
	ok = destroy_bytes(f, r, pool, 0, p->size);
	fault_step(r, "pool file overwritten (whole node)", NULL, ok, NULL, since(t0));
	json_object_set_int_member(r->params, "lds_bound", lds->len);
}

/* (fault_check.c made sure an offset given, or drawn, fits the LD) */
static uint64_t pick_offset(struct fault_run *r, const struct fm_ld_at *ld, uint64_t align)
{
	if (!r->spec->offset_random)
		return r->spec->offset;
	return fault_rng_offset(&r->rng, MIN(r->spec->range, ld->size), align);
}

static void poison(struct faults *f, struct fault_run *r, const struct fm_ld_at *ld)
{
	g_autoptr(JsonObject) args = json_object_new();
	g_autoptr(JsonObject) scan = json_object_new();
	g_autoptr(JsonObject) mf = json_object_new();
	g_autofree char *path = device_path(ld->ld);
	uint64_t off = pick_offset(r, ld, 4096), len = r->spec->length;
	gint64 t0;
	bool ok;

	json_object_set_int_member(r->params, "offset", (gint64)off);
	json_object_set_int_member(r->params, "length", (gint64)len);
	json_object_set_int_member(r->params, "hpa", (gint64)(ld->base + off));
	json_object_set_string_member(args, "path", path);
	json_object_set_int_member(args, "start", (gint64)off);
	json_object_set_int_member(args, "length", (gint64)len);
	qmp_step(f, r, ld, "cxl-inject-poison", args);
	t0 = g_get_monotonic_time();
	ok = destroy_bytes(f, r, ld->pool, ld->offset + off, len);
	fault_step(r, "poisoned bytes destroyed", NULL, ok, NULL, since(t0));
	json_object_set_string_member(scan, "action", "poison-scan");
	agent_step(f, r, ld, scan, NULL);
	json_object_set_string_member(mf, "action", "memory-failure");
	json_object_set_int_member(mf, "hpa", (gint64)(ld->base + off));
	json_object_set_int_member(mf, "length", (gint64)len);
	agent_step(f, r, ld, mf, NULL);
}

static void ras_error(struct faults *f, struct fault_run *r, const struct fm_ld_at *ld,
		      bool uncorrectable)
{
	g_autoptr(JsonObject) args = json_object_new();
	g_autofree char *path = device_path(ld->ld);

	json_object_set_string_member(args, "path", path);
	json_object_set_string_member(r->params, "type", r->spec->type);
	if (!uncorrectable) {
		json_object_set_string_member(args, "type", r->spec->type);
		qmp_step(f, r, ld, "cxl-inject-correctable-error", args);
		return;
	}
	{
		JsonArray *errs = json_array_new(), *hdr = json_array_new();
		JsonObject *e = json_object_new();

		for (int i = 0; i < 16; i++)
			json_array_add_int_element(hdr, 0);
		json_object_set_string_member(e, "type", r->spec->type);
		json_object_set_array_member(e, "header", hdr);
		json_array_add_object_element(errs, e);
		json_object_set_array_member(args, "errors", errs);
		qmp_step(f, r, ld, "cxl-inject-uncorrectable-errors", args);
	}
}

static int log_level(const char *log)
{
	static const char *const names[] = { "informational", "warning", "failure", "fatal" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(log, names[i]))
			return i;
	return 2;
}

static void media_event(struct faults *f, struct fault_run *r, const struct fm_ld_at *ld)
{
	g_autoptr(JsonObject) args = json_object_new();
	g_autofree char *path = device_path(ld->ld);
	bool bad = log_level(r->spec->log) >= 2;
	uint64_t off = pick_offset(r, ld, 64);

	json_object_set_string_member(args, "path", path);
	json_object_set_string_member(args, "log", r->spec->log);
	json_object_set_int_member(args, "flags", 1);
	json_object_set_string_member(r->params, "log", r->spec->log);
	if (r->kind == FK_MODULE_EVENT) {
		json_object_set_int_member(args, "type", 0);
		json_object_set_int_member(args, "health-status", r->spec->health_status);
		json_object_set_int_member(args, "media-status", r->spec->media_status);
		json_object_set_int_member(args, "additional-status", 0);
		json_object_set_int_member(args, "life-used", 50);
		json_object_set_int_member(args, "temperature", 45);
		json_object_set_int_member(args, "dirty-shutdown-count", 0);
		json_object_set_int_member(args, "corrected-volatile-error-count", 1);
		json_object_set_int_member(args, "corrected-persistent-error-count", 0);
		json_object_set_int_member(r->params, "media_status", r->spec->media_status);
		qmp_step(f, r, ld, "cxl-inject-memory-module-event", args);
		return;
	}
	json_object_set_int_member(args, "dpa", (gint64)off);
	/* descriptor bit 0: uncorrectable; type 0: ECC error; a host read */
	json_object_set_int_member(args, "descriptor", bad ? 1 : 0);
	json_object_set_int_member(args, "type", 0);
	json_object_set_int_member(args, "transaction-type", 1);
	json_object_set_int_member(r->params, "offset", (gint64)off);
	json_object_set_int_member(r->params, "hpa", (gint64)(ld->base + off));
	if (bad) {
		/* what the event reports lost is lost */
		gint64 t0 = g_get_monotonic_time();
		bool ok = destroy_bytes(f, r, ld->pool, ld->offset + off, 64);

		fault_step(r, "the event's 64 bytes destroyed", NULL, ok, NULL, since(t0));
	}
	qmp_step(f, r, ld, r->kind == FK_GM_EVENT ? "cxl-inject-general-media-event" :
		 "cxl-inject-dram-event", args);
}

void fault_inject(struct faults *f, struct fault_run *r)
{
	struct fm_ld_at *ld = NULL;
	const char *pool;

	r->ok = true;
	if (r->kind == FK_RANDOM)
		r->kind = draw_kind(r);
	json_object_set_string_member(r->params, "kind", fault_kind_name(r->kind));
	if (fault_kind_is_link(r->kind)) {
		if (!f->timing) {
			fault_step(r, "link fault", NULL, false, "no timing model in this run",
				   0);
			return;
		}
		fault_link_start(f, r);
		return;
	}
	if (r->kind == FK_KILL_POOL) {
		pool = pick_pool(f, r);
		if (!pool) {
			fault_step(r, "choose a pool node", NULL, false,
				   "no pool has an LD bound to any host", 0);
			return;
		}
		r->target = g_strdup(pool);
		kill_pool(f, r, pool);
		return;
	}
	ld = pick_ld(f, r);
	if (!ld) {
		fault_step(r, "choose an LD", NULL, false, "no LD that fits the target "
			   "is bound to a host now", 0);
		return;
	}
	r->target = g_strdup(ld->ld);
	g_ptr_array_add(r->lds, ld);
	switch (r->kind) {
	case FK_REVOKE: {
		g_autoptr(GError) err = NULL;
		gint64 t0 = g_get_monotonic_time();
		bool ok;

		/*
		 * Taken away means gone now: the guest's pciehp removes the
		 * device only after its ~5 s attention delay, in guest time,
		 * which is modeled time and outlasts many workloads (seen: a
		 * KV run of 0.4 modeled s read its data back intact).
		 */
		ok = destroy_bytes(f, r, ld->pool, ld->offset, ld->size);
		fault_step(r, "the LD's bytes destroyed (taken away)", NULL, ok, NULL, since(t0));
		t0 = g_get_monotonic_time();
		ok = fm_surprise_remove(f->fm, ld->ld, false, &err);

		fault_step(r, "surprise removal (revoked)", ld->host, ok,
			   err ? err->message : "device_del sent; zeroed and back in "
			   "the pool once QEMU removed it", since(t0));
		break;
	}
	case FK_POISON:
		poison(f, r, ld);
		break;
	case FK_COR_ERROR:
	case FK_UNCOR_ERROR:
		ras_error(f, r, ld, r->kind == FK_UNCOR_ERROR);
		break;
	case FK_GM_EVENT:
	case FK_DRAM_EVENT:
	case FK_MODULE_EVENT:
		media_event(f, r, ld);
		break;
	default:
		break;
	}
}
