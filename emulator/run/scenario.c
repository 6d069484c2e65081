/* SPDX-License-Identifier: MIT */
#include "run/scenario.h"
#include "common/cfgfile.h"
#include "common/duration.h"
#include "common/error.h"
#include "faults/fault_schedule.h"

#include <limits.h>
#include <string.h>


static void workload_free(gpointer p)
{
	struct scn_workload *w = p;

	g_free(w->id);
	g_free(w->program);
	g_strfreev(w->args);
	g_free(w->command);
	g_free(w->setup);
	g_free(w->cleanup);
	g_strfreev(w->hosts);
	g_free(w);
}

void scenario_free(struct scenario *s)
{
	if (!s)
		return;
	g_free(s->file);
	g_free(s->name);
	g_free(s->description);
	g_free(s->topology_path);
	g_ptr_array_unref(s->workloads);
	g_strfreev(s->packages);
	g_ptr_array_unref(s->files);
	g_ptr_array_unref(s->events);
	fault_schedule_free(s->faults);
	cb_kernel_spec_free(s->kernel);
	g_free(s);
}

const struct cb_kernel_spec *scenario_kernel(const struct scenario *s,
					     const struct cb_topology *t)
{
	return s->kernel ? s->kernel : t ? t->kernel : NULL;
}

static struct scenario *scenario_new(void)
{
	struct scenario *s = g_new0(struct scenario, 1);

	s->boot_timeout_s = 240;
	s->timeout_s = 1200;
	s->timing = true;	/* modeled figures unless `timing = off` */
	s->workloads = g_ptr_array_new_with_free_func(workload_free);
	s->files = g_ptr_array_new_with_free_func(scn_file_free);
	s->events = g_ptr_array_new_with_free_func(scn_event_free);
	s->fm_sample_s = 1.0;
	return s;
}

static struct scn_workload *add_workload(struct scenario *s, const char *id,
					 const char *program, const char *args)
{
	struct scn_workload *w = g_new0(struct scn_workload, 1);

	w->id = g_strdup(id);
	w->program = g_strdup(program);
	w->args = g_strsplit_set(args ? args : "", " ", -1);
	w->per_node = true;
	w->timeout_s = 300;
	g_ptr_array_add(s->workloads, w);
	return w;
}

/* Idle latency and bandwidth on every node: the foundation's first table. */
static void add_default_workloads(struct scenario *s)
{
	add_workload(s, "chase", "cxlbed-chase", NULL);
	add_workload(s, "stream", "cxlbed-stream", NULL);
}

bool scenario_has_together(const struct scenario *s)
{
	const struct scn_workload *w;

	cb_foreach(s->workloads, const struct scn_workload, w)
		if (w->together)
			return true;
	return false;
}

struct scenario *scenario_default_for(const char *topology_path)
{
	struct scenario *s = scenario_new();

	s->name = g_strdup("default");
	s->description = g_strdup("boot, bring every region online, check the "
				  "guest's enumeration, measure idle latency and "
				  "sequential bandwidth on every node");
	s->topology_path = g_strdup(topology_path);
	add_default_workloads(s);
	return s;
}

/* The hosts of @t with @least..@most vCPUs, NULL-terminated; NULL if none. */
static char **hosts_with_cpus(const struct cb_topology *t, int least, int most)
{
	g_autoptr(GPtrArray) ids = g_ptr_array_new();
	const struct cb_host *h;

	cb_foreach(t->hosts, const struct cb_host, h)
		if (h->cpus >= least && h->cpus <= most)
			g_ptr_array_add(ids, g_strdup(h->id));
	if (!ids->len)
		return NULL;
	g_ptr_array_add(ids, NULL);
	return (char **)g_ptr_array_free(g_steal_pointer(&ids), FALSE);
}

/* A table workload: on every node and every devdax view of @hosts. */
static struct scn_workload *add_table_workload(struct scenario *s, const char *id,
					       const char *program, const char *args,
					       char **hosts, bool cxl_only)
{
	struct scn_workload *w = add_workload(s, id, program, args);

	w->cxl_nodes_only = cxl_only;
	w->per_dax = true;
	w->timeout_s = 600;
	w->hosts = hosts;
	return w;
}

/*
 * `cxlbed table`: on every node and every devdax region, with the timing
 * model (the table's figures are modeled time): idle latency (a chase over
 * twice the default modeled LLC), one thread's bandwidth for every mix,
 * the read bandwidth of every vCPU streaming at once (what the path
 * sustains), and the loaded-latency curve: one chaser beside 0, 1, ...,
 * vCPUs-1 streamer threads. Programs run on a devdax view get --dax; the
 * chase there checks that the memory holds its links (--chain auto).
 * @cxl_only leaves the local DRAM nodes out.
 */
/* Regions start half a tick past a tick boundary, so a tick falls at the
 * same offsets in every run: started at once, a 1.2 ms stream region
 * took a tick (1-14 us of kernel work) in some runs and not in others,
 * and a one-thread read moved by 1.2% (table.t, 2026-12-03). */
#define TABLE_START "--start tick"
struct scenario *scenario_table_for(const struct cb_topology *t, bool cxl_only)
{
	struct scenario *s = scenario_new();
	const struct cb_host *h;
	int most = 1;

	s->name = g_strdup("table");
	s->description = g_strdup("latency/bandwidth table: idle latency, "
				  "bandwidth and loaded latency on every node "
				  "and devdax region, timing model on");
	s->topology_path = g_strdup(t->file);
	s->timing = true;
	s->timeout_s = 3600;
	cb_foreach(t->hosts, const struct cb_host, h)
		most = MAX(most, h->cpus);
	add_table_workload(s, "chase", "cxlbed-chase", "--bytes 64M " TABLE_START, NULL, cxl_only);
	add_table_workload(s, "stream", "cxlbed-stream", "--mix all " TABLE_START, NULL, cxl_only);
	/* every vCPU count present: each host streams with all of its own */
	for (int n = 2; n <= most; n++) {
		g_autofree char *id = g_strdup_printf("stream-x%d", n);
		g_autofree char *args = g_strdup_printf("--mix read --threads %d " TABLE_START, n);
		char **hosts = hosts_with_cpus(t, n, n);

		if (hosts)
			add_table_workload(s, id, "cxlbed-stream", args, hosts, cxl_only);
	}
	for (int n = 0; n < most; n++) {
		g_autofree char *id = g_strdup_printf("loaded%d", n);
		g_autofree char *args = g_strdup_printf("--load-threads %d " TABLE_START, n);

		add_table_workload(s, id, "cxlbed-loaded", args,
				   n ? hosts_with_cpus(t, n + 1, INT_MAX) : NULL, cxl_only);
	}
	return s;
}

static bool has_section(const struct cfg_file *f, const char *kind)
{
	for (guint i = 0; i < f->sections->len; i++)
		if (!strcmp(((struct cfg_section *)g_ptr_array_index(f->sections, i))->kind, kind))
			return true;
	return false;
}

static bool reject_unused(const struct cfg_file *f, const struct cfg_section *sec,
			  GError **error)
{
	struct cfg_entry *e = cfg_section_first_unused(sec);

	if (!e)
		return true;
	cxlbed_input_error(error, f->path, e->line, "unknown key '%s' in [%s]; "
			   "see docs/scenarios.md", e->key, sec->kind);
	return false;
}

/*
 * timing-skew = 250ns: how far one vCPU's modeled clock may run ahead of
 * the slowest (docs/timing-model.md, "Skew bound"). Threads that hand work
 * to each other meet within it, so a smaller bound keeps such handshakes
 * closer to their modeled cost, for more host time.
 */
static bool parse_timing_skew(const struct cfg_file *f, const struct cfg_section *sec,
			      struct scenario *s, GError **error)
{
	const char *v = cfg_get_string(f, sec, "timing-skew", NULL);
	double t;

	if (!v)
		return true;
	if (!cb_parse_duration(v, &t) || t < 50e-9 || t > 1e-3) {
		cxlbed_input_error(error, f->path, cfg_section_find(sec, "timing-skew")->line,
				   "timing-skew = '%s': a time from 50ns to 1ms (default 2us)",
				   v);
		return false;
	}
	s->timing_skew_ns = (uint64_t)(t * 1e9 + 0.5);
	return true;
}

static bool parse_workload(struct scenario *s, const struct cfg_file *f,
			   const struct cfg_section *sec, GHashTable *ids,
			   GError **error)
{
	const char *program = cfg_get_string(f, sec, "program", NULL);
	const char *args = cfg_get_string(f, sec, "args", NULL);
	const char *command = cfg_get_string(f, sec, "command", NULL);
	/* a command names its node itself ({node}): once unless asked */
	const char *nodes = cfg_get_string(f, sec, "nodes", command ? "none" : "all");
	const char *dax = cfg_get_string(f, sec, "dax", "none");
	uint64_t timeout;
	struct scn_workload *w;

	if (!sec->name) {
		cxlbed_input_error(error, f->path, sec->line,
				   "a workload needs a name: [workload NAME]");
		return false;
	}
	if (!cfg_name_ok(sec->name)) {
		cxlbed_input_error(error, f->path, sec->line, "workload name "
				   "'%s' is not a name; use %s", sec->name,
				   CFG_NAME_RULE);
		return false;
	}
	if (!g_hash_table_add(ids, sec->name)) {
		cxlbed_input_error(error, f->path, sec->line,
				   "workload '%s' defined twice", sec->name);
		return false;
	}
	if (!program && !command) {
		cxlbed_input_error(error, f->path, sec->line,
				   "[workload %s] needs 'program = NAME' (e.g. cxlbed-chase) "
				   "or 'command = SHELL COMMAND LINE'", sec->name);
		return false;
	}
	if (program && command) {
		cxlbed_input_error(error, f->path, cfg_section_find(sec, "command")->line,
				   "[workload %s] has both program and command: keep one",
				   sec->name);
		return false;
	}
	if (program && strchr(program, '/')) {
		cxlbed_input_error(error, f->path, cfg_section_find(sec, "program")->line,
				   "program '%s': give the name of a guest workload, not a path",
				   program);
		return false;
	}
	if (strcmp(nodes, "all") && strcmp(nodes, "cxl") && strcmp(nodes, "none")) {
		cxlbed_input_error(error, f->path, cfg_section_find(sec, "nodes")->line,
				   "nodes = '%s': use 'all' (once per NUMA node), 'cxl' "
				   "(once per CXL node) or 'none'", nodes);
		return false;
	}
	if (strcmp(dax, "all") && strcmp(dax, "none")) {
		cxlbed_input_error(error, f->path, cfg_section_find(sec, "dax")->line,
				   "dax = '%s': use 'all' (once per devdax region, "
				   "with --dax daxN.M) or 'none'", dax);
		return false;
	}
	w = add_workload(s, sec->name, program, args);
	w->per_node = strcmp(nodes, "none") != 0;
	w->cxl_nodes_only = !strcmp(nodes, "cxl");
	w->per_dax = !strcmp(dax, "all");
	w->src.file = f->path;
	w->src.line = sec->line;
	w->hosts = cfg_get_list(f, sec, "hosts");
	if (!cfg_get_bool(f, sec, "together", false, &w->together, error))
		return false;
	if (w->together && (w->per_node || w->per_dax)) {
		cxlbed_input_error(error, f->path, cfg_section_find(sec, "together")->line,
				   "together = on runs once per host at the same time: "
				   "set nodes = none and dax = none (and pass --node N "
				   "or --dax {dax} in args if needed)");
		return false;
	}
	if (!cfg_get_uint(f, sec, "timeout", 300, 1, SCN_MAX_STEP_S, &timeout,
			  error))
		return false;
	w->timeout_s = (int)timeout;
	if (!scenario_parse_command(w, f, sec, error))
		return false;
	return reject_unused(f, sec, error);
}

struct scenario *scenario_load(const char *path, GError **error)
{
	g_autofree char *text = NULL;
	gsize len;

	if (!cfg_read_text(path, &text, &len, error))
		return NULL;
	return scenario_parse(path, text, len, error);
}

struct scenario *scenario_parse(const char *path, const char *text, gssize len,
				GError **error)
{
	g_autoptr(cfg_file) f = cfg_file_parse(path, text, len, error);
	g_autoptr(GHashTable) ids = g_hash_table_new(g_str_hash, g_str_equal);
	g_autoptr(GHashTable) event_ids = g_hash_table_new(g_str_hash, g_str_equal);
	g_autoptr(scenario) s = NULL;
	uint64_t v;

	if (!f)
		return NULL;
	if (!has_section(f, "scenario"))
		return scenario_default_for(path);

	s = scenario_new();
	s->file = g_strdup(path);
	for (guint i = 0; i < f->sections->len; i++) {
		struct cfg_section *sec = g_ptr_array_index(f->sections, i);

		if (!strcmp(sec->kind, "scenario")) {
			const char *topo = cfg_get_string(f, sec, "topology", NULL);
			g_autofree char *dir = g_path_get_dirname(path);

			if (s->name) {
				cxlbed_input_error(error, path, sec->line,
						   "only one [scenario] section is allowed");
				return NULL;
			}
			s->name = g_strdup(cfg_get_string(f, sec, "name", sec->name));
			if (!s->name)
				s->name = cfg_name_from_file(path, NULL);
			if (!cfg_name_ok(s->name)) {
				cxlbed_input_error(error, path, cfg_section_find(sec, "name") ?
						   cfg_section_find(sec, "name")->line :
						   sec->line, "name: '%s' is not a "
						   "name; use %s", s->name,
						   CFG_NAME_RULE);
				return NULL;
			}
			s->description = g_strdup(cfg_get_string(f, sec, "description", ""));
			if (!topo) {
				cxlbed_input_error(error, path, sec->line,
						   "[scenario] needs 'topology = FILE' "
						   "(relative to the scenario file)");
				return NULL;
			}
			s->topology_path = g_path_is_absolute(topo) ? g_strdup(topo) :
				g_build_filename(dir, topo, NULL);
			if (!g_file_test(s->topology_path, G_FILE_TEST_EXISTS)) {
				cxlbed_input_error(error, path,
						   cfg_section_find(sec, "topology")->line,
						   "topology file '%s' does not exist",
						   s->topology_path);
				return NULL;
			}
			if (!cfg_get_uint(f, sec, "boot-timeout", 240, 1,
					  SCN_MAX_STEP_S, &v, error))
				return NULL;
			s->boot_timeout_s = (int)v;
			if (!cfg_get_uint(f, sec, "timeout", 1200, 1, SCN_MAX_RUN_S,
					  &v, error))
				return NULL;
			s->timeout_s = (int)v;
			if (!cfg_get_bool(f, sec, "timing", true, &s->timing, error))
				return NULL;
			if (!parse_timing_skew(f, sec, s, error))
				return NULL;
			bool defaults;
			if (!cfg_get_bool(f, sec, "default-workloads", false, &defaults, error))
				return NULL;
			if (defaults)
				add_default_workloads(s);
			if (!scenario_parse_layer(s, f, sec, error) ||
			    !cb_kernel_spec_from_section(f, sec, &s->kernel, error))
				return NULL;
			if (!reject_unused(f, sec, error))
				return NULL;
		} else if (!strcmp(sec->kind, "workload")) {
			if (!parse_workload(s, f, sec, ids, error))
				return NULL;
		} else if (!strcmp(sec->kind, "event")) {
			if (!scenario_parse_event(s, f, sec, event_ids, error))
				return NULL;
		} else if (!strcmp(sec->kind, "fm")) {
			if (!scenario_parse_fm(s, f, sec, error))
				return NULL;
		} else if (!strcmp(sec->kind, "faults") || !strcmp(sec->kind, "fault")) {
			if (!s->faults)
				s->faults = fault_schedule_new();
			if (!(strcmp(sec->kind, "faults") ?
			      fault_schedule_parse_fault(s->faults, f, sec, error) :
			      fault_schedule_parse_faults(s->faults, f, sec, error)))
				return NULL;
		} else {
			cxlbed_input_error(error, path, sec->line,
					   "unknown section [%s] in a scenario; "
					   "expected [scenario], [workload NAME], "
					   "[event NAME], [fm], [faults] or [fault NAME]",
					   sec->kind);
			return NULL;
		}
	}
	return g_steal_pointer(&s);
}
