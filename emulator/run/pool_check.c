/* SPDX-License-Identifier: MIT */
#include "run/pool_check.h"
#include "run/guest_enum.h"
#include "run/verify.h"

#include <string.h>

#define TOKEN_BYTES 16
#define TOKEN_OFFSET 4096	/* past offset 0, where stale zeroes would hide a miss */

static const struct pool_host *find_host(const struct pool_host *hosts,
					 guint n, const struct cb_host *h)
{
	for (guint i = 0; i < n; i++)
		if (hosts[i].h == h)
			return &hosts[i];
	return NULL;
}

/*
 * The guest's dax device for the 1-way devdax region holding d, or NULL
 * with *why set. Interleaved pool regions would need the interleave math
 * to find the token; the shipped shape is one device per region.
 */
static const char *dax_of(const struct cb_topology *t, const struct pool_host *ph,
			  const struct cb_device *d, const char **why)
{
	const struct cb_region *reg = topology_device_region(t, d);
	JsonObject *gr;

	if (!reg || reg->mode != CB_REGION_DEVDAX || reg->devices->len != 1) {
		*why = "needs its device as a 1-way devdax region on each host";
		return NULL;
	}
	gr = guest_enum_region(ph->enumeration, reg);
	if (!gr || !json_object_has_member(gr, "dax")) {
		*why = "the guest has no dax device for the region";
		return NULL;
	}
	return json_object_get_string_member(gr, "dax");
}

static char *random_hex(void)
{
	GString *s = g_string_new(NULL);

	for (int i = 0; i < TOKEN_BYTES; i++)
		g_string_append_printf(s, "%02x", g_random_int_range(0, 256));
	return g_string_free(s, FALSE);
}

static void check_pool(struct run_result *r, const struct cb_topology *t,
		       const struct cb_pool *pool, const struct pool_host *hosts,
		       guint nhosts, gint64 deadline)
{
	g_autofree char *name = g_strdup_printf("pool:%s:shared", pool->id);
	g_autofree char *token = random_hex();
	g_autoptr(GString) seen = g_string_new(NULL);
	const struct cb_device *writer = g_ptr_array_index(pool->devices, 0);
	const struct pool_host *wh = find_host(hosts, nhosts, writer->host);
	const char *why = NULL, *dax;
	g_autoptr(GError) err = NULL;
	bool all = true;

	if (!wh || !wh->agent) {
		result_check(r, name, false, "host %s is not up", writer->host->id);
		return;
	}
	dax = dax_of(t, wh, writer, &why);
	if (!dax) {
		result_check(r, name, false, "pool %s: %s (%s:%d)", pool->id, why,
			     pool->src.file, pool->src.line);
		return;
	}
	{
		g_autoptr(JsonObject) args = json_object_new();
		g_autoptr(JsonObject) res = NULL;

		json_object_set_string_member(args, "dax", dax);
		json_object_set_int_member(args, "offset", TOKEN_OFFSET);
		json_object_set_string_member(args, "hex", token);
		res = agent_call(wh->agent, "dax-write", args, deadline, &err);
		if (!res) {
			result_check(r, name, false, "%s writing %s: %s", writer->host->id,
				     dax, err->message);
			return;
		}
	}
	for (guint i = 1; i < pool->devices->len; i++) {
		const struct cb_device *d = g_ptr_array_index(pool->devices, i);
		const struct pool_host *rh = find_host(hosts, nhosts, d->host);
		g_autoptr(JsonObject) args = json_object_new();
		g_autoptr(JsonObject) res = NULL;
		const char *rdax, *got;

		if (!rh || !rh->agent || !(rdax = dax_of(t, rh, d, &why))) {
			g_string_append_printf(seen, "%s%s: %s", seen->len ? "; " : "",
					       d->host->id, rh && rh->agent ? why : "not up");
			all = false;
			continue;
		}
		json_object_set_string_member(args, "dax", rdax);
		json_object_set_int_member(args, "offset", TOKEN_OFFSET);
		json_object_set_int_member(args, "length", TOKEN_BYTES);
		g_clear_error(&err);
		res = agent_call(rh->agent, "dax-read", args, deadline, &err);
		got = res ? json_object_get_string_member_with_default(res, "hex", "") : NULL;
		if (!got || g_ascii_strcasecmp(got, token)) {
			all = false;
			g_string_append_printf(seen, "%s%s read %s", seen->len ? "; " : "",
					       d->host->id, got ? got : err->message);
		} else {
			g_string_append_printf(seen, "%s%s read it through %s",
					       seen->len ? "; " : "", d->host->id, rdax);
		}
	}
	result_check(r, name, all, "%s wrote %s at %s+%d; %s", writer->host->id,
		     token, dax, TOKEN_OFFSET, seen->str);
}

void pool_check_sharing(struct run_result *r, const struct cb_topology *t,
			const struct pool_host *hosts, guint nhosts,
			gint64 deadline_us)
{
	const struct cb_pool *pool;

	cb_foreach(t->pools, const struct cb_pool, pool)
		if (pool->shared && pool->devices->len >= 2)
			check_pool(r, t, pool, hosts, nhosts, deadline_us);
}
