// SPDX-License-Identifier: MIT
/* A KV-share decode run's figures and ratios (kv_figures.h). */
#include "results/kv_figures.h"

#include "common/json_get.h"

#include <string.h>

const struct kv_published kv_published[] = {
	{ "two GPU servers sharing a CXL pool, OPT-6.7B inference, against 200G RDMA",
	  "cxl-dma", "rdma-200g", false, 3.8 },
	{ "the same against 100G RDMA", "cxl-dma", "rdma-100g", false, 6.5 },
	{ "Beluga (SIGMOD 2026), KV-cache reuse: time to first token 89.6% lower than over RDMA",
	  "cxl-dma", "rdma-200g", false, 1 / (1 - 0.896) },
	{ "Beluga (SIGMOD 2026): vLLM throughput against RDMA",
	  "cxl-dma", "rdma-200g", true, 7.35 },
	{ "a CXL memory box with LMCache and vLLM: wall time (3.7-3.8x)",
	  "cxl-dma", "rdma-200g", false, 3.75 },
};
const int kv_npublished = sizeof(kv_published) / sizeof(*kv_published);

JsonObject *kv_decode_output(const struct res_workload *w)
{
	JsonObject *o = w->output;

	if (!o || g_strcmp0(json_object_get_string_member_with_default(o, "workload", ""),
			    "kvshare") ||
	    g_strcmp0(json_object_get_string_member_with_default(o, "role", ""), "decode") ||
	    !json_get_array(o, "paths"))
		return NULL;
	return o;
}

static double num(JsonObject *o, const char *key)
{
	return json_object_get_double_member_with_default(o, key, 0);
}

bool kv_path_fig(JsonObject *out, const char *name, struct kv_path_fig *f)
{
	JsonArray *paths = json_get_array(out, "paths");

	for (guint i = 0; paths && i < json_array_get_length(paths); i++) {
		JsonObject *p = json_array_get_object_element(paths, i);

		if (!p || g_strcmp0(json_object_get_string_member_with_default(p, "path", ""), name))
			continue;
		*f = (struct kv_path_fig){
			.path = json_object_get_string_member(p, "path"),
			.ttft_median_us = num(p, "ttft_median_us"),
			.ttft_p99_us = num(p, "ttft_p99_us"),
			.ttft_mean_us = num(p, "ttft_mean_us"),
			.requests_per_s = num(p, "requests_per_s"),
			.requests = json_get_int(p, "requests", 0),
			.hits = json_get_int(p, "hits", 0),
			.checksum_errors = json_get_int(p, "checksum_errors", 0),
			.fetch_us = -1,
		};
		if (!g_strcmp0(name, "recompute"))
			f->fetch_us = num(out, "prefix_tokens") *
				      num(out, "compute_ns_per_token") / 1e3;
		else if (f->hits > 0 && json_object_has_member(p, "fetch_median_us"))
			f->fetch_us = num(p, "fetch_median_us");
		return true;
	}
	return false;
}

double kv_lead(JsonObject *out, const char *cxl, const char *other, bool throughput)
{
	struct kv_path_fig c, o;

	if (!kv_path_fig(out, cxl, &c) || !kv_path_fig(out, other, &o))
		return -1;
	if (throughput)
		return o.requests_per_s > 0 ? c.requests_per_s / o.requests_per_s : -1;
	return c.ttft_median_us > 0 ? o.ttft_median_us / c.ttft_median_us : -1;
}

static const char *const column_figures[] = { "ttft_median_us", "ttft_p99_us",
					       "requests_per_s" };

/* fn(name, path's object, figure, ctx) for each column of @r; stops when
 * it returns true. */
static bool each_column(const struct run_result *r,
			bool (*fn)(const char *, JsonObject *, const char *, void *),
			void *ctx)
{
	for (guint i = 0; r && i < r->workloads->len; i++) {
		const struct res_workload *w = g_ptr_array_index(r->workloads, i);
		JsonArray *paths = json_get_array(kv_decode_output(w), "paths");

		for (guint p = 0; paths && p < json_array_get_length(paths); p++) {
			JsonObject *o = json_array_get_object_element(paths, p);
			const char *path = json_object_get_string_member_with_default(o, "path", "?");

			for (guint f = 0; f < G_N_ELEMENTS(column_figures); f++) {
				g_autofree char *n = g_strdup_printf("%s.%s.%s", w->name, path,
								     column_figures[f]);

				if (fn(n, o, column_figures[f], ctx))
					return true;
			}
		}
	}
	return false;
}

static bool add_name(const char *name, JsonObject *o, const char *figure, void *ctx)
{
	GPtrArray *names = ctx;

	for (guint k = 0; k < names->len; k++)
		if (!strcmp(g_ptr_array_index(names, k), name))
			return false;
	g_ptr_array_add(names, g_strdup(name));
	return false;
}

void kv_columns(const struct run_result *r, GPtrArray *names)
{
	each_column(r, add_name, names);
}

struct column_want {
	const char *name;
	double *v;
};

static bool value_of(const char *name, JsonObject *o, const char *figure, void *ctx)
{
	struct column_want *c = ctx;

	if (strcmp(name, c->name) || !json_object_has_member(o, figure))
		return false;
	*c->v = json_object_get_double_member(o, figure);
	return true;
}

bool kv_column(const struct run_result *r, const char *name, double *v)
{
	struct column_want c = { name, v };

	return each_column(r, value_of, &c);
}
