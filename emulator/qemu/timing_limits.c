/* SPDX-License-Identifier: MIT */
#include "qemu/timing_limits.h"
#include "common/error.h"
#include "topology/path.h"
#include "timing/shm_links.h"

#include <string.h>

/* Count @name among the run's resources; false past the segment's room. */
static bool add_resource(GHashTable *seen, const char *name,
			 const struct cb_src *src, GError **error)
{
	if (strlen(name) >= MF_NAME) {
		cxlbed_input_error(error, src->file, src->line, "the timing "
				   "model's resource '%s' has a name of %zu "
				   "bytes, more than its %d; use shorter names",
				   name, strlen(name), MF_NAME - 1);
		return false;
	}
	if (g_hash_table_contains(seen, name))
		return true;
	if (g_hash_table_size(seen) >= TM_MAX_RES) {
		cxlbed_input_error(error, src->file, src->line, "the timing "
				   "model holds %d bandwidth resources (DRAM, "
				   "bridges, links, media, QoS caps) for a whole "
				   "run, and '%s' is one more; use fewer hosts "
				   "or devices, or run with --no-timing",
				   TM_MAX_RES, name);
		return false;
	}
	g_hash_table_add(seen, g_strdup(name));
	return true;
}

static bool check_device(const struct cb_device *d, GHashTable *seen,
			 GError **error)
{
	const struct cb_path *p = cb_device_path(d);
	int via = 0;

	for (int i = 0; i < p->nhops; i++) {
		const struct cb_hop *h = &p->hops[i];

		if (h->cap_resource) {
			via++;
			if (!add_resource(seen, h->cap_resource, &d->src, error))
				return false;
		}
		if (h->resource) {
			via++;
			if (!add_resource(seen, h->resource, &d->src, error))
				return false;
		}
	}
	if (via > MF_MAX_PATH) {
		cxlbed_input_error(error, d->src.file, d->src.line, "device %s's "
				   "path crosses %d bandwidth resources and the "
				   "timing model follows at most %d; use fewer "
				   "switch levels or QoS caps on it", d->id, via,
				   MF_MAX_PATH);
		return false;
	}
	return true;
}

bool timing_check_limits(const struct cb_topology *t, GError **error)
{
	g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash,
							   g_str_equal,
							   g_free, NULL);
	const struct cb_host *h;
	const struct cb_device *d;

	cb_foreach(t->hosts, const struct cb_host, h) {
		g_autofree char *dram = g_strdup_printf("dram:%s", h->id);

		if (h_i_ >= TM_MAX_HOSTS) {
			cxlbed_input_error(error, h->src.file, h->src.line,
					   "host %s is host %u; the timing model "
					   "takes at most %d hosts in one run: use "
					   "fewer, or run with --no-timing", h->id,
					   h_i_ + 1, TM_MAX_HOSTS);
			return false;
		}
		if (h->cpus > TM_MAX_VCPUS) {
			cxlbed_input_error(error, h->src.file, h->src.line,
					   "host %s has %d vCPUs; the timing model "
					   "takes at most %d per host: lower cpus, "
					   "or run with --no-timing", h->id, h->cpus,
					   TM_MAX_VCPUS);
			return false;
		}
		if (!add_resource(seen, dram, &h->src, error))
			return false;
	}
	cb_foreach(t->devices, const struct cb_device, d)
		if (!check_device(d, seen, error))
			return false;
	return true;
}
