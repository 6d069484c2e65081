/* SPDX-License-Identifier: MIT */
/* summary.json: the machine-readable contract (schema cxlbed.result/1). */
#include "results/result.h"
#include "common/json_write.h"

#include <math.h>

/* Unmeasured figures are null, never a made-up zero; nor is infinity a figure. */
static void set_measure(JsonBuilder *b, const char *key, double v)
{
	json_builder_set_member_name(b, key);
	if (v < 0 || !isfinite(v))
		json_builder_add_null_value(b);
	else
		json_builder_add_double_value(b, round(v * 1000) / 1000);
}

static void set_str(JsonBuilder *b, const char *key, const char *v)
{
	json_builder_set_member_name(b, key);
	if (v)
		json_builder_add_string_value(b, v);
	else
		json_builder_add_null_value(b);
}

/* One of the result's JSON objects as a value (the node takes a reference). */
static void add_object(JsonBuilder *b, JsonObject *o)
{
	JsonNode *n = json_node_new(JSON_NODE_OBJECT);

	json_node_set_object(n, o);
	json_builder_add_value(b, n);
}

static void add_node(JsonBuilder *b, const struct res_node *n)
{
	json_builder_begin_object(b);
	json_builder_set_member_name(b, "node");
	if (n->dax)
		json_builder_add_null_value(b);	/* a dax view has no node */
	else
		json_builder_add_int_value(b, n->node);
	set_str(b, "kind", n->kind);
	if (n->dax)
		set_str(b, "dax", n->dax);
	set_str(b, "path", n->path);
	set_str(b, "region", n->region);
	json_builder_set_member_name(b, "mem_bytes");
	json_builder_add_int_value(b, (gint64)n->mem_bytes);
	set_measure(b, "latency_ns", n->latency_ns);
	set_measure(b, "read_gbps", n->read_gbps);
	set_measure(b, "write_gbps", n->write_gbps);
	if (n->threads > 0) {
		/* the stream the read/write figures came from */
		json_builder_set_member_name(b, "threads");
		json_builder_add_int_value(b, n->threads);
	}
	set_str(b, "clock", n->clock);
	json_builder_end_object(b);
}

static void add_host(JsonBuilder *b, const struct res_host *h)
{
	json_builder_begin_object(b);
	set_str(b, "name", h->name);
	json_builder_set_member_name(b, "memdevs");
	json_builder_add_int_value(b, h->memdevs);
	set_measure(b, "boot_ready_s", h->boot_ready_s);
	set_str(b, "kernel", h->kernel);
	set_str(b, "qemu_exit", h->exit);
	json_builder_set_member_name(b, "nodes");
	json_builder_begin_array(b);
	for (guint i = 0; i < h->nodes->len; i++)
		add_node(b, g_ptr_array_index(h->nodes, i));
	json_builder_end_array(b);
	if (h->enumeration) {
		json_builder_set_member_name(b, "enumeration");
		add_object(b, h->enumeration);
	}
	json_builder_end_object(b);
}

static void set_strings(JsonBuilder *b, const char *key, const GPtrArray *a)
{
	json_builder_set_member_name(b, key);
	json_builder_begin_array(b);
	for (guint i = 0; i < a->len; i++)
		json_builder_add_string_value(b, g_ptr_array_index(a, i));
	json_builder_end_array(b);
}

static void add_workload(JsonBuilder *b, const struct res_workload *w)
{
	json_builder_begin_object(b);
	set_str(b, "host", w->host);
	set_str(b, "name", w->name);
	set_str(b, "program", w->program);
	json_builder_set_member_name(b, "node");
	json_builder_add_int_value(b, w->node);
	if (w->region)
		set_str(b, "region", w->region);
	json_builder_set_member_name(b, "ok");
	json_builder_add_boolean_value(b, w->ok);
	set_measure(b, "host_wall_s", w->wall_s);
	set_str(b, "error", w->error);
	set_strings(b, "warnings", w->warnings);
	json_builder_set_member_name(b, "output");
	if (w->output)
		add_object(b, w->output);
	else
		json_builder_add_null_value(b);
	json_builder_end_object(b);
}

JsonNode *result_to_json(const struct run_result *r)
{
	g_autoptr(JsonBuilder) b = json_builder_new();

	json_builder_begin_object(b);
	set_str(b, "schema", RESULT_SCHEMA);
	set_str(b, "run_id", r->run_id);
	set_str(b, "topology", r->topology);
	set_str(b, "topology_name", r->topology_name);
	set_str(b, "scenario", r->scenario);
	json_builder_set_member_name(b, "timing_model");
	json_builder_add_boolean_value(b, r->timing_model);
	set_str(b, "guest_clock", r->guest_clock);
	set_str(b, "measured_with", result_measured_with(r));
	set_measure(b, "boot_ready_s", r->boot_ready_s);
	set_measure(b, "wall_s", r->wall_s);
	set_str(b, "started_at", r->started_at);
	set_str(b, "qemu_version", r->qemu_version);
	set_str(b, "qemu_path", r->qemu_path);
	set_str(b, "qemu_package", r->qemu_package);
	set_str(b, "cxlbed_version", r->cxlbed_version);
	set_str(b, "cxlbed_commit", r->cxlbed_commit);
	set_str(b, "interrupted", r->interrupted);
	set_strings(b, "boot_retries", r->boot_retries);
	if (r->guest_kernel) {
		json_builder_set_member_name(b, "guest_kernel");
		add_object(b, r->guest_kernel);
	}

	json_builder_set_member_name(b, "hosts");
	json_builder_begin_array(b);
	for (guint i = 0; i < r->hosts->len; i++)
		add_host(b, g_ptr_array_index(r->hosts, i));
	json_builder_end_array(b);

	json_builder_set_member_name(b, "workloads");
	json_builder_begin_array(b);
	for (guint i = 0; i < r->workloads->len; i++)
		add_workload(b, g_ptr_array_index(r->workloads, i));
	json_builder_end_array(b);

	if (r->fault_seed >= 0) {
		/* replays the run: cxlbed run SCENARIO --fault-seed N */
		json_builder_set_member_name(b, "fault_seed");
		json_builder_add_int_value(b, r->fault_seed);
	}
	json_builder_set_member_name(b, "faults");
	json_builder_begin_array(b);
	for (guint i = 0; i < r->faults->len; i++)
		add_object(b, g_ptr_array_index(r->faults, i));
	json_builder_end_array(b);

	if (r->pool) {
		json_builder_set_member_name(b, "pool");
		add_object(b, r->pool);
	}

	json_builder_set_member_name(b, "checks");
	json_builder_begin_array(b);
	for (guint i = 0; i < r->checks->len; i++) {
		const struct res_check *c = g_ptr_array_index(r->checks, i);

		json_builder_begin_object(b);
		set_str(b, "name", c->name);
		json_builder_set_member_name(b, "pass");
		json_builder_add_boolean_value(b, c->pass);
		set_str(b, "detail", c->detail);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);

	set_str(b, "verdict", result_passed(r) ? "pass" : "fail");
	json_builder_end_object(b);
	return json_builder_get_root(b);
}

bool result_write_summary(const struct run_result *r, const char *path,
			  GError **error)
{
	g_autoptr(JsonNode) root = result_to_json(r);

	return json_write_file(root, path, error);
}
