/* SPDX-License-Identifier: MIT */
#include "timing_run.h"
#include "paths.h"
#include "timing_config.h"
#include "verify.h"

#include <fcntl.h>
#include <gio/gio.h>
#include <sys/mman.h>

static char *shm_name(const char *run_id)
{
	return g_strdup_printf("/cxlbed-%s", run_id);
}

char *timing_report_path(const char *dir, const struct cb_host *h)
{
	return g_strdup_printf("%s/timing-%s.json", dir, h->id);
}

char *timing_run_prepare(const struct cb_topology *t, const struct cb_host *h,
			 const char *dir, const char *run_id, guint nhosts,
			 GError **error)
{
	g_autofree char *cfg = g_strdup_printf("%s/timing-%s.cfg", dir, h->id);
	g_autofree char *report = timing_report_path(dir, h);
	g_autofree char *shm = shm_name(run_id);
	struct timing_config_opts o = { .report = report, .shm = shm };
	const char *plugin = cxlbed_path(TIMING_PLUGIN);

	if (!g_file_test(plugin, G_FILE_TEST_EXISTS)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
			    "timing plugin %s not built: run make", plugin);
		return NULL;
	}
	if (!timing_config_write_opts(t, h, &o, cfg, error))
		return NULL;
	return g_strdup_printf("%s,config=%s,report=%s,shm=%s,hosts=%u", plugin,
			       cfg, report, shm, nhosts);
}

void timing_run_cleanup(const char *run_id)
{
	g_autofree char *shm = shm_name(run_id);

	shm_unlink(shm);
}

static JsonArray *report_rois(JsonParser *p, const char *report)
{
	JsonNode *root;
	JsonObject *o;

	if (!json_parser_load_from_file(p, report, NULL) ||
	    !(root = json_parser_get_root(p)) || !JSON_NODE_HOLDS_OBJECT(root))
		return NULL;
	o = json_node_get_object(root);
	if (!json_object_has_member(o, "rois"))
		return NULL;
	return json_object_get_array_member(o, "rois");
}

guint timing_report_roi_count(const char *report)
{
	g_autoptr(JsonParser) p = json_parser_new();
	JsonArray *rois = report_rois(p, report);

	return rois ? json_array_get_length(rois) : 0;
}

struct span {
	double bytes, begin, end;
};

static void span_add(struct span *s, double bytes, double begin, double end)
{
	if (!s->bytes && !s->end) {
		s->begin = begin;
		s->end = end;
	}
	s->bytes += bytes;
	s->begin = MIN(s->begin, begin);
	s->end = MAX(s->end, end);
}

static void set_gbps(JsonObject *m, const char *key, const struct span *s)
{
	if (s->end > s->begin)
		json_object_set_double_member(m, key, s->bytes / (s->end - s->begin));
}

bool timing_merge(JsonObject *output, const char *report, guint first_roi,
		  GError **error)
{
	g_autoptr(JsonParser) p = json_parser_new();
	JsonArray *rois = report_rois(p, report);
	JsonArray *want;
	JsonObject *modeled;
	JsonArray *matched;
	guint next;
	double chase_ns = 0, chase_accesses = 0;
	struct span rd = { 0 }, wr = { 0 }, mix = { 0 };

	if (!json_object_has_member(output, "rois"))
		return true;	/* a workload without ROIs has nothing modeled */
	if (!rois) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
			    "timing report %s has no ROIs", report);
		return false;
	}
	want = json_object_get_array_member(output, "rois");
	modeled = json_object_new();
	matched = json_array_new();
	next = first_roi;
	for (guint i = 0; i < json_array_get_length(want); i++) {
		JsonObject *w = json_array_get_object_element(want, i);
		gint64 id = json_object_get_int_member_with_default(w, "id", -1);
		const char *kind = json_object_get_string_member_with_default(w, "kind", "");
		JsonObject *got = NULL;

		for (; next < json_array_get_length(rois) && !got; next++) {
			JsonObject *r = json_array_get_object_element(rois, next);

			if (json_object_get_int_member_with_default(r, "id", -2) == id)
				got = r;
		}
		if (!got) {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
				    "ROI %" G_GINT64_FORMAT " (%s) not in the timing report",
				    id, kind);
			json_object_unref(modeled);
			json_array_unref(matched);
			return false;
		}
		double ns = json_object_get_double_member_with_default(got, "modeled_ns", 0);
		double begin = json_object_get_double_member_with_default(got, "begin_ns", 0);
		double end = json_object_get_double_member_with_default(got, "end_ns", begin + ns);
		double bytes = json_object_get_double_member_with_default(w, "bytes", 0);
		JsonObject *m = json_object_new();

		json_object_set_int_member(m, "id", id);
		json_object_set_string_member(m, "kind", kind);
		json_object_set_double_member(m, "modeled_ns", ns);
		if (!g_strcmp0(kind, "chase")) {
			double acc = json_object_get_double_member_with_default(w, "accesses", 0);

			/* The loaded chaser is the same measure under load. */
			chase_ns += ns;
			chase_accesses += acc;
			if (acc > 0)
				json_object_set_double_member(m, "ns_per_access", ns / acc);
		} else if (!g_strcmp0(kind, "read")) {
			span_add(&rd, bytes, begin, end);
		} else if (!g_strcmp0(kind, "write")) {
			span_add(&wr, bytes, begin, end);
		} else {
			span_add(&mix, bytes, begin, end);
		}
		if (bytes > 0 && ns > 0)
			json_object_set_double_member(m, "gbps", bytes / ns);
		json_array_add_object_element(matched, m);
	}
	if (chase_accesses > 0)
		json_object_set_double_member(modeled, "ns_per_access",
					      chase_ns / chase_accesses);
	set_gbps(modeled, "read_gbps", &rd);
	set_gbps(modeled, "write_gbps", &wr);
	set_gbps(modeled, "mix_gbps", &mix);
	json_object_set_array_member(modeled, "rois", matched);
	json_object_set_object_member(output, "modeled", modeled);
	return true;
}

bool timing_check_region_bases(struct run_result *r, const struct cb_host *h,
			       JsonObject *en)
{
	const struct cb_region *reg;
	bool all = true;

	cb_foreach(h->regions, const struct cb_region, reg) {
		JsonObject *gr = verify_guest_region(en, reg);
		g_autofree char *name = g_strdup_printf("timing:%s:region-base:%s",
							h->id, reg->id);
		uint64_t want = timing_region_base(h, reg);
		gint64 got = gr ? json_object_get_int_member_with_default(gr, "start", -1) : -1;

		all &= result_check(r, name, got == (gint64)want,
				    "model decodes %s from 0x%" G_GINT64_MODIFIER "x, guest "
				    "placed it at 0x%" G_GINT64_MODIFIER "x", reg->id,
				    want, (guint64)got);
	}
	return all;
}
