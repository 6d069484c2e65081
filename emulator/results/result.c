/* SPDX-License-Identifier: MIT */
#include "results/result.h"
#include "results/figures.h"

#include <string.h>

static void node_free(gpointer p)
{
	struct res_node *n = p;

	g_free(n->kind);
	g_free(n->dax);
	g_free(n->path);
	g_free(n->region);
	g_free(n->clock);
	g_free(n);
}

static void host_free(gpointer p)
{
	struct res_host *h = p;

	g_free(h->name);
	g_free(h->kernel);
	g_free(h->exit);
	g_ptr_array_unref(h->nodes);
	if (h->enumeration)
		json_object_unref(h->enumeration);
	g_free(h);
}

static void check_free(gpointer p)
{
	struct res_check *c = p;

	g_free(c->name);
	g_free(c->detail);
	g_free(c);
}

static void workload_free(gpointer p)
{
	struct res_workload *w = p;

	g_free(w->host);
	g_free(w->name);
	g_free(w->program);
	g_free(w->region);
	g_free(w->error);
	if (w->output)
		json_object_unref(w->output);
	g_ptr_array_unref(w->warnings);
	g_free(w);
}

struct run_result *result_new(void)
{
	struct run_result *r = g_new0(struct run_result, 1);

	r->hosts = g_ptr_array_new_with_free_func(host_free);
	r->workloads = g_ptr_array_new_with_free_func(workload_free);
	r->faults = g_ptr_array_new_with_free_func((GDestroyNotify)json_object_unref);
	r->fault_seed = -1;
	r->checks = g_ptr_array_new_with_free_func(check_free);
	r->boot_retries = g_ptr_array_new_with_free_func(g_free);
	return r;
}

void result_free(struct run_result *r)
{
	if (!r)
		return;
	g_free(r->run_id);
	g_free(r->out_dir);
	g_free(r->topology);
	g_free(r->topology_name);
	g_free(r->scenario);
	g_free(r->started_at);
	g_free(r->qemu_version);
	g_free(r->qemu_path);
	g_free(r->qemu_package);
	g_free(r->cxlbed_version);
	g_free(r->cxlbed_commit);
	g_free(r->interrupted);
	g_ptr_array_unref(r->boot_retries);
	g_ptr_array_unref(r->hosts);
	g_ptr_array_unref(r->workloads);
	g_ptr_array_unref(r->faults);
	if (r->pool)
		json_object_unref(r->pool);
	if (r->guest_kernel)
		json_object_unref(r->guest_kernel);
	g_ptr_array_unref(r->checks);
	g_free(r);
}

struct res_host *result_add_host(struct run_result *r, const char *name)
{
	struct res_host *h = g_new0(struct res_host, 1);

	h->name = g_strdup(name);
	h->boot_ready_s = -1;
	h->nodes = g_ptr_array_new_with_free_func(node_free);
	g_ptr_array_add(r->hosts, h);
	return h;
}

struct res_host *result_find_host(struct run_result *r, const char *name)
{
	for (guint i = 0; i < r->hosts->len; i++) {
		struct res_host *h = g_ptr_array_index(r->hosts, i);

		if (!g_strcmp0(h->name, name))
			return h;
	}
	return NULL;
}

struct res_node *result_host_find_node(struct res_host *h, int node)
{
	for (guint i = 0; i < h->nodes->len; i++) {
		struct res_node *n = g_ptr_array_index(h->nodes, i);

		if (!n->dax && n->node == node)
			return n;
	}
	return NULL;
}

static struct res_node *node_new(struct res_host *h, int node)
{
	struct res_node *n = g_new0(struct res_node, 1);

	n->node = node;
	n->latency_ns = n->read_gbps = n->write_gbps = -1;
	g_ptr_array_add(h->nodes, n);
	return n;
}

struct res_node *result_host_add_node(struct res_host *h, int node)
{
	struct res_node *n = result_host_find_node(h, node);

	return n ? n : node_new(h, node);
}

struct res_node *result_host_find_dax(struct res_host *h, const char *region)
{
	for (guint i = 0; i < h->nodes->len; i++) {
		struct res_node *n = g_ptr_array_index(h->nodes, i);

		if (n->dax && !g_strcmp0(n->region, region))
			return n;
	}
	return NULL;
}

struct res_node *result_host_add_dax(struct res_host *h, const char *region,
				     const char *dax)
{
	struct res_node *n = result_host_find_dax(h, region);

	if (n)
		return n;
	n = node_new(h, -1);
	n->kind = g_strdup("dax");
	n->dax = g_strdup(dax);
	n->region = g_strdup(region);
	return n;
}

const char *result_node_label(const struct res_node *n, char *buf, size_t len)
{
	if (n->dax)
		return n->dax;
	g_snprintf(buf, len, "%d", n->node);
	return buf;
}

struct res_workload *result_add_workload(struct run_result *r, const char *host,
					 const char *name, const char *program,
					 int node)
{
	struct res_workload *w = g_new0(struct res_workload, 1);

	w->host = g_strdup(host);
	w->name = g_strdup(name);
	w->program = g_strdup(program);
	w->node = node;
	w->warnings = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(r->workloads, w);
	return w;
}

char *result_check_name(const GPtrArray *checks, const char *name)
{
	guint copies = 0;
	g_autofree char *prefix = g_strdup_printf("%s#", name);

	for (guint i = 0; i < checks->len; i++) {
		const struct res_check *c = g_ptr_array_index(checks, i);

		copies += !strcmp(c->name, name) || g_str_has_prefix(c->name, prefix);
	}
	return copies ? g_strdup_printf("%s#%u", name, copies + 1) : g_strdup(name);
}

bool result_check(struct run_result *r, const char *name, bool pass,
		  const char *fmt, ...)
{
	struct res_check *c = g_new0(struct res_check, 1);
	va_list ap;

	c->name = result_check_name(r->checks, name);
	c->pass = pass;
	va_start(ap, fmt);
	c->detail = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	g_ptr_array_add(r->checks, c);
	return pass;
}

/* What the guest's own clock was, by how the run was made. */
#define GUEST_NO_MODEL "guest wall clock under TCG emulation (no timing model): " \
	"figures show the path works, not hardware latency"
#define GUEST_MODELED "the guest's own clock, which ran on modeled virtual time " \
	"(the timing model's guest clock)"
#define GUEST_HOST "the guest's own clock, which followed host wall time " \
	"(--guest-clock=host): not modeled, it moves with host load"
/* a summary from before guest_clock was recorded */
#define GUEST_UNSAID "the guest's own clock (the timing model was loaded; this " \
	"summary does not say whether the guest clock was modeled)"
#define MODELED "modeled virtual time (timing-model plugin)"
#define MIXED(guest) "mixed: see each node's clock (modeled = timing-model plugin, " \
	"guest = " guest ")"

/* 0: no model, 1: guest clock modeled, 2: host, 3: not recorded. */
static int guest_kind(const struct run_result *r)
{
	if (!r->timing_model)
		return 0;
	if (!g_strcmp0(r->guest_clock, "modeled"))
		return 1;
	return !g_strcmp0(r->guest_clock, "host") ? 2 : 3;
}

const char *result_clock_words(const struct run_result *r, const char *clock)
{
	static const char *const guest[] = { GUEST_NO_MODEL, GUEST_MODELED, GUEST_HOST,
					     GUEST_UNSAID };

	return !g_strcmp0(clock, "modeled") ? MODELED : guest[guest_kind(r)];
}

const char *result_measured_with(const struct run_result *r)
{
	static const char *const mixed[] = { MIXED(GUEST_NO_MODEL), MIXED(GUEST_MODELED),
					     MIXED(GUEST_HOST), MIXED(GUEST_UNSAID) };
	guint modeled = 0, guest = 0;

	for (guint i = 0; i < r->hosts->len; i++) {
		const struct res_host *h = g_ptr_array_index(r->hosts, i);

		for (guint j = 0; j < h->nodes->len; j++) {
			const struct res_node *n = g_ptr_array_index(h->nodes, j);
			bool m = !g_strcmp0(n->clock, "modeled"), mix = !g_strcmp0(n->clock, "mixed");

			if (n->latency_ns < 0 && n->read_gbps < 0 && n->write_gbps < 0)
				continue;
			modeled += m || mix;
			guest += !m;
		}
	}
	/* Workloads that belong to no node (nodes = none) count too. */
	for (guint i = 0; i < r->workloads->len; i++) {
		const struct res_workload *w = g_ptr_array_index(r->workloads, i);

		if (w->node >= 0 || w->region || !w->output)
			continue;
		if (json_object_has_member(w->output, "modeled"))
			modeled++;
		else
			guest++;
	}
	if (modeled && guest)
		return mixed[guest_kind(r)];
	if (modeled)
		return MODELED;
	if (guest)
		return result_clock_words(r, "guest");
	/* whether the model was loaded is said beside it (timing_model) */
	return "no figure was measured";
}

void result_node_take(struct res_node *n, JsonObject *out)
{
	struct fig_clocks ck = { 0 };
	gint64 threads;
	double v;

	if (!n || !out)
		return;
	if ((v = fig_get(out, "ns_per_access", "ns_per_access", &ck)) >= 0)
		n->latency_ns = v;
	threads = json_object_get_int_member_with_default(out, "threads", 1);
	/* a stream with more threads than the one already there stays out of
	 * the row: its all-vCPU figure is `cxlbed table`'s own column */
	if (!n->threads || threads <= n->threads) {
		double rd = fig_of(out, "read_gbps", &ck), wr = fig_of(out, "write_gbps", &ck);

		if (rd >= 0)
			n->read_gbps = rd;
		if (wr >= 0)
			n->write_gbps = wr;
		if (rd >= 0 || wr >= 0)
			n->threads = (int)threads;
	}
	if (fig_clock_word(&ck)) {
		g_free(n->clock);
		n->clock = g_strdup(fig_clock_word(&ck));
	}
}

bool result_passed(const struct run_result *r)
{
	if (!r->checks->len)
		return false;
	for (guint i = 0; i < r->checks->len; i++)
		if (!((struct res_check *)g_ptr_array_index(r->checks, i))->pass)
			return false;
	return true;
}

char *result_kernel_words(const struct run_result *r)
{
	JsonObject *k = r->guest_kernel;
	const char *release, *source;

	if (!k)
		return NULL;
	release = json_object_get_string_member_with_default(k, "release", "?");
	source = json_object_get_string_member_with_default(k, "source", "");
	if (!strcmp(source, "debian")) {
		const char *suite = json_object_get_string_member_with_default(k, "suite", NULL);

		return g_strdup_printf("%s (Debian %s%s%s)", release,
				       json_object_get_string_member_with_default(k, "version", "?"),
				       suite ? ", " : "", suite ? suite : "");
	}
	return g_strdup_printf("%s (your build: %s)", release,
			       json_object_get_string_member_with_default(k, "path", "?"));
}
