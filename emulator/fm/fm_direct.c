/* SPDX-License-Identifier: MIT */
/*
 * The fabric manager's side of fault injection (fm_direct.h): the bound
 * LDs, QMP and agent requests on a host's FM channels, and surprise
 * removal of an LD, followed in the worker's tick until QEMU has removed
 * the device. All of it runs in the FM's worker thread.
 */
#include "fm/fm_direct.h"
#include "fm/fm_priv.h"
#include "fm/fm_timing.h"
#include "qemu/argv.h"
#include "common/error.h"
#include "common/progress.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define REMOVAL_WAIT_S 30

/* A surprise removal under way. */
struct removal {
	char *ld, *host, *backend;
	bool dead;		/* the pool node is dead (else: revoked) */
	double since_s;
};

static void removal_free(gpointer p)
{
	struct removal *r = p;

	g_free(r->ld);
	g_free(r->host);
	g_free(r->backend);
	g_free(r);
}

void fm_ld_at_free(gpointer p)
{
	struct fm_ld_at *a = p;

	g_free(a->ld);
	g_free(a->pool);
	g_free(a->host);
	g_free(a);
}

GPtrArray *fm_bound_lds(struct fm *fm, const char *pool)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(fm_ld_at_free);
	struct fm_ld *e;

	g_mutex_lock(&fm->lock);
	cb_foreach(fm->map->lds, struct fm_ld, e) {
		struct fm_ld_at *a;

		if (e->state != FM_LD_BOUND || (pool && strcmp(e->ld->pool->id, pool)))
			continue;
		a = g_new0(struct fm_ld_at, 1);
		a->ld = g_strdup(e->ld->id);
		a->pool = g_strdup(e->ld->pool->id);
		a->host = g_strdup(e->b.host->id);
		a->serial = e->ld->serial;
		a->offset = e->ld->offset;
		a->size = e->ld->size;
		a->base = e->b.base;
		g_ptr_array_add(out, a);
	}
	g_mutex_unlock(&fm->lock);
	return out;
}

char *fm_pool_path(struct fm *fm, const char *pool)
{
	const struct cb_pool *p = topology_find_pool(fm->t, pool);

	return p ? qemu_pool_file(fm->dir, p) : NULL;
}

static struct fm_host *usable_host(struct fm *fm, const char *host, GError **error)
{
	struct fm_host *fh = fm_host_of(fm, host);

	if (!fh || fh->broken) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN, "no fabric-manager "
			    "channel to %s", host);
		return NULL;
	}
	return fh;
}

JsonNode *fm_host_qmp(struct fm *fm, const char *host, const char *cmd,
		      JsonObject *args, GError **error)
{
	struct fm_host *fh = usable_host(fm, host, error);

	return fh ? fm_qmp_do(fh, cmd, args, error) : NULL;
}

JsonObject *fm_host_agent(struct fm *fm, const char *host, const char *cmd,
			  JsonObject *args, int timeout_s, GError **error)
{
	struct fm_host *fh = usable_host(fm, host, error);

	return fh ? agent_call(fh->agent, cmd, args, g_get_monotonic_time() +
			       (gint64)timeout_s * G_USEC_PER_SEC, error) : NULL;
}

bool fm_surprise_remove(struct fm *fm, const char *ld, bool dead, GError **error)
{
	g_autoptr(JsonObject) args = json_object_new();
	g_autoptr(JsonNode) n = NULL;
	struct fm_ld *e;
	struct fm_host *fh;
	struct removal *r;

	g_mutex_lock(&fm->lock);
	e = fm_map_find(fm->map, ld);
	if (!e || e->state != FM_LD_BOUND) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN, "%s is %s: nothing "
			    "to take away", ld, e ? fm_ld_state_name(e->state) : "unknown");
		g_mutex_unlock(&fm->lock);
		return false;
	}
	fh = fm_host_of(fm, e->b.host->id);
	r = g_new0(struct removal, 1);
	r->ld = g_strdup(ld);
	r->host = g_strdup(e->b.host->id);
	r->backend = g_strdup(e->b.backend);
	r->dead = dead;
	r->since_s = fm_now_s(fm);
	fm_map_begin_fail(fm->map, e);
	g_mutex_unlock(&fm->lock);
	/* the model stops decoding it at once; the guest has it ~5 s more */
	if (fh)
		fm_timing_unbound(fm, fh, e);
	json_object_set_string_member(args, "id", ld);
	n = fh && !fh->broken ? fm_qmp_do(fh, "device_del", args, error) : NULL;
	if (!n && fh && !fh->broken) {
		/* QEMU refused: the LD stays its host's */
		g_mutex_lock(&fm->lock);
		fm_map_release_failed(fm->map, e);
		g_mutex_unlock(&fm->lock);
		removal_free(r);
		return false;
	}
	if (!fm->removals)
		fm->removals = g_ptr_array_new_with_free_func(removal_free);
	g_ptr_array_add(fm->removals, r);
	return true;
}

void fm_pool_dead(struct fm *fm, const char *pool)
{
	struct fm_ld *e;

	g_mutex_lock(&fm->lock);
	cb_foreach(fm->map->lds, struct fm_ld, e)
		if (!strcmp(e->ld->pool->id, pool) && e->state == FM_LD_FREE)
			fm_map_failed(fm->map, e, true, true);
	g_mutex_unlock(&fm->lock);
}

/* A revoked LD goes back to the pool zeroed: the next host sees nothing. */
static void scrub(struct fm *fm, const struct cb_ld *ld)
{
	g_autofree char *path = qemu_pool_file(fm->dir, ld->pool);
	g_autofree char *zero = g_malloc0(1 << 20);
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	for (uint64_t off = 0; fd >= 0 && off < ld->size; off += 1 << 20)
		if (pwrite(fd, zero, MIN((uint64_t)1 << 20, ld->size - off),
			   (off_t)(ld->offset + off)) < 0)
			break;
	if (fd >= 0)
		close(fd);
}

void fm_faults_poll(struct fm *fm)
{
	for (guint i = 0; fm->removals && i < fm->removals->len;) {
		struct removal *r = g_ptr_array_index(fm->removals, i);
		struct fm_host *fh = fm_host_of(fm, r->host);
		int present = fh && !fh->broken ? fm_device_present(fh, r->ld) : -1;
		bool late = fm_now_s(fm) - r->since_s > REMOVAL_WAIT_S;
		struct fm_ld *e;

		if (present == 1 && !late) {
			i++;
			continue;
		}
		if (present == 0)
			fm_drop_backend(fh, r->backend);	/* fails on 10.0.2: see pooling.md */
		g_mutex_lock(&fm->lock);
		e = fm_map_find(fm->map, r->ld);
		if (e && !r->dead && present == 0)
			scrub(fm, e->ld);
		if (e)
			fm_map_failed(fm->map, e, r->dead, present == 0);
		g_mutex_unlock(&fm->lock);
		progress(r->host, "fault", "%s %s after %.1f s%s", r->ld,
			 present == 0 ? "removed by QEMU" : "still listed by QEMU",
			 fm_now_s(fm) - r->since_s, r->dead ? "" :
			 present == 0 ? "; zeroed and back in the pool" : "");
		g_ptr_array_remove_index(fm->removals, i);
	}
}

guint fm_removals_pending(struct fm *fm)
{
	return fm->removals ? fm->removals->len : 0;
}
