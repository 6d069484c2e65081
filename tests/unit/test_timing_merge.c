/* SPDX-License-Identifier: MIT */
/* From the plugin's ROI report to a workload's modeled figures. */
#include "tap.h"
#include "run/timing_run.h"

static JsonObject *parse(const char *text)
{
	g_autoptr(JsonParser) p = json_parser_new();

	json_parser_load_from_data(p, text, -1, NULL);
	return json_object_ref(json_node_get_object(json_parser_get_root(p)));
}

static double member(JsonObject *o, const char *key)
{
	JsonObject *m = json_object_get_object_member(o, "modeled");

	return m && json_object_has_member(m, key) ? json_object_get_double_member(m, key) : -1;
}

int main(void)
{
	g_autofree char *dir = g_dir_make_tmp("cxlbed-tm-XXXXXX", NULL);
	g_autofree char *report = g_build_filename(dir, "timing-h0.json", NULL);
	g_autoptr(GError) err = NULL;
	JsonObject *out;

	plan(13);
	ok(timing_report_roi_count(report) == 0, "no report yet: 0 ROIs");
	/* One earlier ROI (a previous workload), then this workload's. */
	g_file_set_contents(report,
		"{\"rois\":["
		"{\"id\":1,\"modeled_ns\":999,\"begin_ns\":0,\"end_ns\":999},"
		"{\"id\":1,\"modeled_ns\":220000,\"begin_ns\":1000,\"end_ns\":221000},"
		"{\"id\":2,\"modeled_ns\":1000000,\"begin_ns\":300000,\"end_ns\":1300000},"
		"{\"id\":2,\"modeled_ns\":1000000,\"begin_ns\":500000,\"end_ns\":1500000},"
		"{\"id\":3,\"modeled_ns\":2000000,\"begin_ns\":2000000,\"end_ns\":4000000}]}", -1, NULL);
	is_int(timing_report_roi_count(report), 5, "ROIs counted from the report");

	out = parse("{\"rois\":[{\"id\":1,\"kind\":\"chase\",\"accesses\":1000},"
		    "{\"id\":2,\"kind\":\"read\",\"bytes\":4000000,\"thread\":0},"
		    "{\"id\":2,\"kind\":\"read\",\"bytes\":4000000,\"thread\":1},"
		    "{\"id\":3,\"kind\":\"write\",\"bytes\":3000000}]}");
	ok(timing_merge(out, report, 1, &err), "merge from ROI 1 on");
	ok(member(out, "ns_per_access") > 219.99 && member(out, "ns_per_access") < 220.01,
	   "latency = modeled ns / accesses (220 ns)");
	/* Two readers, 8 MB over the span 300000..1500000 ns = 6.667 GB/s. */
	ok(member(out, "read_gbps") > 6.66 && member(out, "read_gbps") < 6.67,
	   "parallel readers: all bytes over the common modeled span (%.3f)",
	   member(out, "read_gbps"));
	ok(member(out, "write_gbps") > 1.49 && member(out, "write_gbps") < 1.51, "write GB/s");
	json_object_unref(out);

	out = parse("{\"rois\":[{\"id\":7,\"kind\":\"chase\",\"accesses\":10}]}");
	ok(!timing_merge(out, report, 0, &err) && err && strstr(err->message, "ROI 7"),
	   "a ROI missing from the report is an error naming it");
	g_clear_error(&err);
	json_object_unref(out);

	out = parse("{\"rois\":[{\"id\":1,\"kind\":\"chase\",\"accesses\":10}]}");
	ok(timing_merge(out, report, 2, &err) == false, "ROIs before first_roi are not reused");
	g_clear_error(&err);
	json_object_unref(out);

	/* Two mixes separated by a cache-emptying gap, threads ending out of order. */
	g_file_set_contents(report,
		"{\"rois\":["
		"{\"id\":301,\"modeled_ns\":1000,\"begin_ns\":0,\"end_ns\":1000},"
		"{\"id\":300,\"modeled_ns\":2000,\"begin_ns\":0,\"end_ns\":2000},"
		"{\"id\":400,\"modeled_ns\":1000,\"begin_ns\":9000,\"end_ns\":10000}]}", -1, NULL);
	out = parse("{\"rois\":[{\"id\":300,\"kind\":\"mix\",\"mix\":\"2:1\",\"bytes\":2000},"
		    "{\"id\":301,\"kind\":\"mix\",\"mix\":\"2:1\",\"bytes\":2000},"
		    "{\"id\":400,\"kind\":\"mix\",\"mix\":\"1:1\",\"bytes\":3000}]}");
	ok(timing_merge(out, report, 0, &err), "ROIs matched by id though they ended out of order");
	ok(member(out, "mix2_1_gbps") > 1.99 && member(out, "mix2_1_gbps") < 2.01 &&
	   member(out, "mix1_1_gbps") > 2.99 && member(out, "mix1_1_gbps") < 3.01,
	   "each mix its own figure; the gap between phases not counted (%.2f, %.2f)",
	   member(out, "mix2_1_gbps"), member(out, "mix1_1_gbps"));
	json_object_unref(out);

	/* Loaded latency stays apart from idle latency. */
	g_file_set_contents(report,
		"{\"rois\":[{\"id\":1101,\"modeled_ns\":1000,\"begin_ns\":0,\"end_ns\":1000},"
		"{\"id\":2,\"modeled_ns\":1000,\"begin_ns\":0,\"end_ns\":1000}]}", -1, NULL);
	out = parse("{\"load_threads\":1,\"rois\":[{\"id\":1101,\"kind\":\"read\",\"bytes\":4000},"
		    "{\"id\":2,\"kind\":\"chase\",\"accesses\":4}]}");
	ok(timing_merge(out, report, 0, &err) && member(out, "ns_per_access") < 0 &&
	   member(out, "loaded_ns_per_access") > 249 && member(out, "loaded_ns_per_access") < 251,
	   "loaded chaser reported as loaded_ns_per_access, not idle latency");
	ok(member(out, "load_gbps") > 3.99 && member(out, "load_gbps") < 4.01 &&
	   member(out, "read_gbps") < 0, "streamers' bandwidth reported as load_gbps");
	json_object_unref(out);

	out = parse("{\"ns_per_access\":5}");
	ok(timing_merge(out, report, 0, &err) && !json_object_has_member(out, "modeled"),
	   "a workload without ROIs is left as it is");
	json_object_unref(out);
	unlink(report);
	rmdir(dir);
	return done_testing();
}
