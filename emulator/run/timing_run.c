/* SPDX-License-Identifier: MIT */
#include "run/timing_run.h"
#include "run/guest_enum.h"
#include "qemu/argv.h"
#include "common/paths.h"
#include "qemu/timing_config.h"
#include "run/verify.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

char *timing_shm_name(const char *run_id)
{
	return g_strdup_printf("/cxlbed-%s", run_id);
}

char *timing_plugin_arg(const struct cb_host *h, const char *dir,
			const char *run_id, guint nhosts, bool guest_clock)
{
	g_autofree char *cfg = timing_config_path(dir, h);
	g_autofree char *report = timing_report_path(dir, h);
	g_autofree char *shm = timing_shm_name(run_id);

	g_autofree char *clock = guest_clock ?
		g_strdup_printf(",clock_fd=%d", CXLBED_CLOCK_PLUGIN_FD) : NULL;
	/* for experiments: more plugin options, e.g. CXLBED_TIMING_ARGS=kernel=off */
	const char *more = g_getenv("CXLBED_TIMING_ARGS");

	return g_strdup_printf("%s,config=%s,report=%s,shm=%s,hosts=%u%s%s%s",
			       cxlbed_path(TIMING_PLUGIN), cfg, report, shm, nhosts,
			       clock ? clock : "", more && *more ? "," : "",
			       more && *more ? more : "");
}

char *timing_run_prepare(const struct cb_topology *t, const struct cb_host *h,
			 const char *dir, const char *run_id, guint nhosts,
			 bool guest_clock, uint64_t skew_ns, GError **error)
{
	g_autofree char *cfg = timing_config_path(dir, h);
	g_autofree char *report = timing_report_path(dir, h);
	g_autofree char *shm = timing_shm_name(run_id);
	struct timing_config_opts o = { .report = report, .shm = shm, .skew_ns = skew_ns };
	const char *plugin = cxlbed_path(TIMING_PLUGIN);

	if (!g_file_test(plugin, G_FILE_TEST_EXISTS)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
			    "timing plugin %s not built: run make", plugin);
		return NULL;
	}
	if (!timing_config_write_opts(t, h, &o, cfg, error))
		return NULL;
	return timing_plugin_arg(h, dir, run_id, nhosts, guest_clock);
}

bool timing_run_create_segment(const char *run_id, GError **error)
{
	g_autofree char *shm = timing_shm_name(run_id);
	/* Empty: each host's plugin sizes and maps it (shm_links.c). */
	int fd = shm_open(shm, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0) {
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno),
			    "shared timing segment %s: %s%s", shm, g_strerror(errno),
			    errno == EEXIST ? " (another run holds it)" : "");
		return false;
	}
	close(fd);
	return true;
}

void timing_run_cleanup(const char *run_id)
{
	g_autofree char *shm = timing_shm_name(run_id);

	shm_unlink(shm);
}

/* Modeled [begin, end) intervals of the ROIs of one kind. */
struct intervals {
	GArray *iv;		/* double pairs */
	double bytes;
};

static void intervals_add(GHashTable *by_key, const char *key, double bytes,
			  double begin, double end)
{
	struct intervals *in = g_hash_table_lookup(by_key, key);
	double pair[2] = { begin, end };

	if (!in) {
		in = g_new0(struct intervals, 1);
		in->iv = g_array_new(FALSE, FALSE, sizeof(pair));
		g_hash_table_insert(by_key, g_strdup(key), in);
	}
	g_array_append_val(in->iv, pair);
	in->bytes += bytes;
}

static void intervals_free(gpointer p)
{
	struct intervals *in = p;

	g_array_unref(in->iv);
	g_free(in);
}

static gint cmp_begin(gconstpointer a, gconstpointer b)
{
	const double *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/*
 * Bytes over the union of the intervals: parallel threads share one
 * stretch of modeled time, and the gaps between phases (cache emptying,
 * set-up) are not counted against the bandwidth.
 */
static double intervals_gbps(struct intervals *in)
{
	double covered = 0, cur_b = 0, cur_e = -1;

	g_array_sort(in->iv, cmp_begin);
	for (guint i = 0; i < in->iv->len; i++) {
		double *p = &g_array_index(in->iv, double, 2 * i);

		if (p[0] > cur_e) {
			if (cur_e > cur_b)
				covered += cur_e - cur_b;
			cur_b = p[0];
			cur_e = p[1];
		} else {
			cur_e = MAX(cur_e, p[1]);
		}
	}
	if (cur_e > cur_b)
		covered += cur_e - cur_b;
	return covered > 0 ? in->bytes / covered : -1;
}

/* "read", "write", "mix21" (from mix "2:1"), ... */
static char *bandwidth_key(JsonObject *w, const char *kind)
{
	const char *mix = json_object_get_string_member_with_default(w, "mix", NULL);
	g_autofree char *label = NULL;

	if (g_strcmp0(kind, "mix") || !mix)
		return g_strdup(kind);
	label = g_strdup(mix);
	g_strdelimit(label, ":", '_');
	return g_strconcat("mix", label, NULL);
}

/* The first report ROI at or after first with this id not yet taken. */
static JsonObject *take_roi(JsonArray *rois, guint first, gint64 id, GArray *taken)
{
	for (guint i = first; i < json_array_get_length(rois); i++) {
		JsonObject *r = json_array_get_object_element(rois, i);

		if (g_array_index(taken, gboolean, i - first) ||
		    json_object_get_int_member_with_default(r, "id", -2) != id)
			continue;
		g_array_index(taken, gboolean, i - first) = TRUE;
		return r;
	}
	return NULL;
}

bool timing_merge(JsonObject *output, const char *report, guint first_roi,
		  GError **error)
{
	g_autoptr(JsonParser) p = json_parser_new();
	JsonArray *rois = timing_report_rois(p, report);
	g_autoptr(GHashTable) bw = NULL;
	g_autoptr(GArray) taken = NULL;
	JsonArray *want, *matched;
	JsonObject *modeled;
	/* A chaser running beside streamers measures loaded latency. */
	bool loaded = json_object_has_member(output, "load_threads");
	double chase_ns = 0, chase_accesses = 0;
	GHashTableIter it;
	gpointer key, val;

	if (!json_object_has_member(output, "rois"))
		return true;	/* a workload without ROIs has nothing modeled */
	if (!rois || json_array_get_length(rois) < first_roi) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
			    "timing report %s has no new ROIs", report);
		return false;
	}
	want = json_object_get_array_member(output, "rois");
	taken = g_array_new(FALSE, TRUE, sizeof(gboolean));
	g_array_set_size(taken, json_array_get_length(rois) - first_roi);
	bw = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, intervals_free);
	modeled = json_object_new();
	matched = json_array_new();
	json_object_set_array_member(modeled, "rois", matched);
	for (guint i = 0; i < json_array_get_length(want); i++) {
		JsonObject *w = json_array_get_object_element(want, i);
		gint64 id = json_object_get_int_member_with_default(w, "id", -1);
		const char *kind = json_object_get_string_member_with_default(w, "kind", "");
		JsonObject *got = take_roi(rois, first_roi, id, taken);

		if (!got) {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
				    "ROI %" G_GINT64_FORMAT " (%s) not in the timing report",
				    id, kind);
			json_object_unref(modeled);
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

			chase_ns += ns;
			chase_accesses += acc;
			if (acc > 0)
				json_object_set_double_member(m, "ns_per_access", ns / acc);
		} else if (!g_strcmp0(kind, "command") || !g_strcmp0(kind, "span")) {
			/* a whole command's run, or a span of work (a pooling
			 * policy's run): its time is the figure; a command's
			 * lines from memory say whether it outgrew the cache
			 * (command_workload.h) */
			if (!g_strcmp0(kind, "command") && json_object_has_member(got, "mem_reads_local"))
				json_object_set_int_member(m, "memory_lines_read",
					json_object_get_int_member_with_default(got, "mem_reads_local", 0) +
					json_object_get_int_member_with_default(got, "mem_reads_cxl", 0));
		} else {
			g_autofree char *k = bandwidth_key(w, kind);

			intervals_add(bw, k, bytes, begin, end);
			if (loaded)
				intervals_add(bw, "load", bytes, begin, end);
		}
		if (bytes > 0 && ns > 0)
			json_object_set_double_member(m, "gbps", bytes / ns);
		json_array_add_object_element(matched, m);
	}
	if (chase_accesses > 0)
		json_object_set_double_member(modeled, loaded ? "loaded_ns_per_access" :
					      "ns_per_access", chase_ns / chase_accesses);
	g_hash_table_iter_init(&it, bw);
	while (g_hash_table_iter_next(&it, &key, &val)) {
		g_autofree char *name = g_strconcat(key, "_gbps", NULL);
		double g = intervals_gbps(val);

		if (g >= 0 && (!loaded || !strcmp(key, "load")))
			json_object_set_double_member(modeled, name, g);
	}
	json_object_set_object_member(output, "modeled", modeled);
	return true;
}

bool timing_check_region_bases(struct run_result *r, const struct cb_host *h,
			       JsonObject *en)
{
	const struct cb_region *reg;
	bool all = true;

	cb_foreach(h->regions, const struct cb_region, reg) {
		JsonObject *gr = guest_enum_region(en, reg);
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
