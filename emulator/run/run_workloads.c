/* SPDX-License-Identifier: MIT */
/* The scenario's workloads on the booted hosts: when each starts, on which
 * host, node or dax region, and what it returned. */
#include "run/run_priv.h"
#include "run/guest_enum.h"
#include "run/command_workload.h"
#include "run/modeled_clock.h"
#include "results/fault_rois.h"
#include "run/session.h"
#include "run/stale_check.h"
#include "run/timing_run.h"
#include "common/error.h"
#include "results/figures.h"
#include "common/progress.h"
#include "run/run_state.h"
#include "run/verify.h"

#include <math.h>
#include <string.h>

static bool workload_wanted(const struct scn_workload *w, const struct cb_host *h)
{
	if (!w->hosts)
		return true;
	return g_strv_contains((const char *const *)w->hosts, h->id);
}

/* One workload invocation on one host, between its request and its reply. */
struct pending {
	struct host_run *hr;
	const struct scn_workload *w;
	int node;
	const struct res_node *dax;	/* a dax view, or NULL */
	struct res_workload *rw;
	guint id;		/* agent request id; 0: not sent */
	guint first_roi;
	gint64 t0;
	double modeled_t0_ns;	/* the guest's modeled clock then; < 0: none */
	int together;		/* hosts a `together` workload starts on; 0: not one */
	char *command;		/* a command workload's expanded command line */
	GString *log;		/* its log file: setup, command, cleanup */
};

/* The host's dax device for its first devdax region, or NULL. */
static const char *first_dax(const struct host_run *hr)
{
	const struct cb_region *reg;

	cb_foreach(hr->h->regions, const struct cb_region, reg) {
		JsonObject *gr = reg->mode == CB_REGION_DEVDAX ?
			guest_enum_region(hr->res->enumeration, reg) : NULL;
		const char *dax = gr ? json_object_get_string_member_with_default(gr, "dax", NULL) : NULL;

		if (dax)
			return dax;
	}
	return NULL;
}

/* {dax}, {node}, {local-node}, {cxl-node} of invocation @p (command_workload.h). */
static char *expand_for(const struct pending *p, const char *text, GError **error)
{
	struct cmd_place place = {
		.host = p->hr->res, .node = p->node,
		.dax = p->dax ? p->dax->dax : first_dax(p->hr),
	};

	return workload_expand(text, &place, error);
}

static char *expand_arg(const struct pending *p, const char *arg)
{
	char *v = expand_for(p, arg, NULL);

	return v ? v : g_strdup(arg);	/* no such place: the program will say so */
}

/* RUN/workload-HOST-ID[-nodeN|-REGION].log: what a command printed. */
static char *workload_log(const struct run *run, const struct pending *p)
{
	g_autofree char *where = p->node >= 0 ? g_strdup_printf("-node%d", p->node) :
		p->dax ? g_strdup_printf("-%s", p->dax->region) : g_strdup("");

	return g_strdup_printf("%s/workload-%s-%s%s.log", run->dir, p->hr->h->id,
			       p->w->id, where);
}

/* "node 1", "r1 dax0.0", or NULL: where invocation @p runs. */
static char *where_of(const struct pending *p)
{
	if (p->dax)
		return g_strdup_printf("%s %s", p->dax->region, p->dax->dax);
	return p->node >= 0 ? g_strdup_printf("node %d", p->node) : NULL;
}

/* The modeled ns @hr's guest has reached; -1 without the timing model. */
static double modeled_now(const struct run *run, const struct host_run *hr)
{
	return run->shm ? modeled_clock_host_ns(run->shm, hr->h->index, hr->h->cpus) : -1;
}

/*
 * Wait for the reply to request @id, which @p's host has run since
 * @t0 (host) and @modeled_t0_ns; every heartbeat interval meanwhile, one
 * progress line with the host and modeled time it has taken so far
 * (@step: "setup", "cleanup" or NULL for the workload itself).
 */
static JsonObject *wait_run(struct run *run, const struct pending *p, const char *step,
			    guint id, gint64 t0, double modeled_t0_ns, gint64 deadline,
			    GError **error)
{
	gint64 every = (gint64)progress_heartbeat_s() * G_USEC_PER_SEC;

	/* the next line one interval after this one, however late it came */
	for (gint64 beat = t0 + every;; beat = g_get_monotonic_time() + every) {
		GError *err = NULL;
		JsonObject *res = agent_wait(p->hr->agent, "run", id, MIN(beat, deadline), &err);
		g_autofree char *where = NULL, *what = NULL, *line = NULL;
		double now_ns;

		if (res)
			return res;
		if (beat >= deadline || !g_error_matches(err, G_IO_ERROR, G_IO_ERROR_TIMED_OUT)) {
			g_propagate_error(error, err);
			return NULL;
		}
		g_error_free(err);
		now_ns = modeled_t0_ns >= 0 ? modeled_now(run, p->hr) : -1;
		where = where_of(p);
		what = step && where ? g_strdup_printf("%s, %s", where, step) :
			g_strdup(step ? step : where);
		line = progress_heartbeat_text(what, (g_get_monotonic_time() - t0) / 1e6,
					       now_ns >= 0 ? (now_ns - modeled_t0_ns) / 1e9 : -1,
					       run->opts->timing);
		progress(p->hr->h->id, p->w->id, "%s", line);
	}
}

/* Send the agent its `run`; the plugin's ROIs from here on are this run's. */
static void send_run(struct run *run, struct pending *p, JsonObject *args)
{
	g_autoptr(GError) err = NULL;

	/* a phase starts: scenario events waiting for it fire now */
	run_session_phase(run->session, p->w->id);
	run_session_workload(run->session, p->hr->h->id, p->w->id, true);
	if (p->hr->timing_report)
		p->first_roi = timing_report_roi_count(p->hr->timing_report);
	p->t0 = g_get_monotonic_time();
	p->modeled_t0_ns = modeled_now(run, p->hr);
	p->id = agent_send(p->hr->agent, "run", args, &err);
	if (!p->id)
		p->rw->error = g_strdup(err->message);
}

/* A setup or cleanup step: run to its end, outside any ROI; into the log. */
static JsonObject *command_step(struct run *run, struct pending *p, const char *label,
				const char *text, GError **error)
{
	g_autoptr(JsonObject) args = json_object_new();
	g_autofree char *cmd = expand_for(p, text, error);
	g_autofree char *log = NULL;
	g_autofree char *step = g_strndup(label, strcspn(label, ":"));
	JsonObject *res;
	guint id;

	if (!cmd)
		return NULL;
	json_object_set_string_member(args, "command", cmd);
	json_object_set_int_member(args, "timeout_s", p->w->timeout_s);
	id = agent_send(p->hr->agent, "run", args, error);
	res = id ? wait_run(run, p, step, id, g_get_monotonic_time(), modeled_now(run, p->hr),
			    run_deadline(run, p->w->timeout_s + 30), error) : NULL;
	log = command_log_text(label, cmd, res);
	g_string_append(p->log, log);
	if (res && json_object_get_int_member_with_default(res, "exit", -1)) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN, "%sexit %" G_GINT64_FORMAT,
			    label, json_object_get_int_member(res, "exit"));
		g_clear_pointer(&res, json_object_unref);
	}
	return res;
}

/* A command: setup first, then the agent runs it through /bin/sh -c as one ROI. */
static void start_command(struct run *run, struct pending *p)
{
	g_autoptr(JsonObject) args = json_object_new();
	g_autoptr(JsonObject) setup = NULL;
	g_autoptr(GError) err = NULL;

	p->log = g_string_new(NULL);
	p->rw = result_add_workload(run->res, p->hr->h->id, p->w->id, "command", p->node);
	if (p->dax)
		p->rw->region = g_strdup(p->dax->region);
	if (p->w->setup && !(setup = command_step(run, p, "setup: ", p->w->setup, &err))) {
		p->rw->error = g_strdup_printf("setup: %s", err->message);
		return;
	}
	p->command = expand_for(p, p->w->command, &err);
	if (!p->command) {
		p->rw->error = g_strdup(err->message);
		return;
	}
	json_object_set_string_member(args, "command", p->command);
	json_object_set_boolean_member(args, "roi", TRUE);
	json_object_set_int_member(args, "timeout_s", p->w->timeout_s);
	send_run(run, p, args);
}

/*
 * cxlbed's workloads that take --together N: their regions then start at
 * one modeled time on every host (the timing plugin's start barrier,
 * docs/timing-model.md); others start when the runner's request reaches
 * them, in host time.
 */
static bool starts_together(const char *program)
{
	static const char *const aware[] = { "cxlbed-stream", "cxlbed-chase", "cxlbed-loaded" };

	for (size_t i = 0; i < G_N_ELEMENTS(aware); i++)
		if (!strcmp(program, aware[i]))
			return true;
	return false;
}

static void start_one(struct run *run, struct pending *p)
{
	g_autoptr(JsonObject) args = NULL;
	JsonArray *argv;

	/* the stage names the workload while it runs, a command's setup included */
	if (p->node >= 0)
		run_state_stage(run->state, "workloads", "%s on %s node %d", p->w->id,
				p->hr->h->id, p->node);
	else
		run_state_stage(run->state, "workloads", "%s on %s%s%s", p->w->id,
				p->hr->h->id, p->dax ? " " : "", p->dax ? p->dax->region : "");
	if (p->w->command) {
		start_command(run, p);
		return;
	}
	args = json_object_new();
	argv = json_array_new();
	for (char **a = p->w->args; a && *a; a++) {
		g_autofree char *arg = **a ? expand_arg(p, *a) : NULL;

		if (arg)
			json_array_add_string_element(argv, arg);
	}
	if (p->node >= 0) {
		g_autofree char *n = g_strdup_printf("%d", p->node);

		json_array_add_string_element(argv, "--node");
		json_array_add_string_element(argv, n);
	} else if (p->dax) {
		json_array_add_string_element(argv, "--dax");
		json_array_add_string_element(argv, p->dax->dax);
	}
	if (p->together > 1 && starts_together(p->w->program)) {
		g_autofree char *n = g_strdup_printf("%d", p->together);

		json_array_add_string_element(argv, "--together");
		json_array_add_string_element(argv, n);
	}
	json_object_set_string_member(args, "program", p->w->program);
	json_object_set_array_member(args, "args", argv);
	json_object_set_int_member(args, "timeout_s", p->w->timeout_s);
	p->rw = result_add_workload(run->res, p->hr->h->id, p->w->id, p->w->program,
				    p->node);
	if (p->dax)
		p->rw->region = g_strdup(p->dax->region);
	send_run(run, p, args);
}

static bool host_usable(const struct host_run *hr)
{
	return !hr->failed && hr->agent && !qemu_proc_interrupted();
}

/*
 * A user program whose working set fits in the modeled LLC measures the
 * cache, not the path (sysbench memory with 1 MiB blocks measured
 * CXL/local 1.000): said on the progress log, in summary.json's workload
 * entry and in report.md.
 */
static void warn_fits_llc(const struct host_run *hr, struct pending *p, const char *check)
{
	const struct cb_cache_cfg *c = &hr->h->cache;
	char *warning = command_llc_warning(p->rw->output, p->command, c->llc_bytes,
					    c->line_bytes ? c->line_bytes : 64);

	if (!warning)
		return;
	g_ptr_array_add(p->rw->warnings, warning);
	progress(hr->h->id, "WARNING", "%s: %s", check + strlen("workload:"), warning);
}

/*
 * A command's reply (NULL: it did not start): its output object, the
 * modeled time of its ROI, with clock-check its own throughput against
 * the modeled; then cleanup, and the log of every step.
 */
static void finish_command(struct run *run, struct pending *p, JsonObject *res,
			   const char *check)
{
	struct host_run *hr = p->hr;
	struct res_workload *rw = p->rw;
	g_autofree char *log = workload_log(run, p);
	g_autofree char *log_name = g_path_get_basename(log);
	g_autofree char *line = NULL;
	g_autofree char *clock = g_strdup_printf("clock:%s", check + strlen("workload:"));
	g_autoptr(GError) err = NULL;
	g_autoptr(JsonObject) done = NULL;
	gint64 status = res ? json_object_get_int_member_with_default(res, "exit", -1) : -1;
	double agree = -1;

	if (res) {
		g_autofree char *text = command_log_text("", p->command, res);

		g_string_append(p->log, text);
		rw->output = command_output(res, p->command, log_name);
		rw->ok = status == 0;
		if (!rw->ok)
			rw->error = g_strdup_printf("exit %" G_GINT64_FORMAT ": see %s",
						    status, log_name);
		else if (hr->timing_report &&
			 !timing_merge(rw->output, hr->timing_report, p->first_roi, &err)) {
			rw->ok = false;
			rw->error = g_strdup_printf("timing model: %s", err->message);
		} else {
			agree = command_add_modeled(rw->output);
			if (hr->timing_report)	/* the LLC is the model's */
				warn_fits_llc(hr, p, check);
		}
	}
	if (p->w->cleanup && host_usable(hr) &&
	    !(done = command_step(run, p, "cleanup: ", p->w->cleanup, &err)))
		progress(hr->h->id, p->w->id, "cleanup: %s (see %s)", err->message, log_name);
	g_file_set_contents(log, p->log->str, -1, NULL);
	g_string_free(g_steal_pointer(&p->log), TRUE);
	line = rw->output ? command_summary(rw->output) : g_strdup(rw->error);
	result_check(run->res, check, rw->ok, "%s", rw->ok ? line : rw->error);
	if (p->w->clock_check)
		result_check(run->res, clock, agree > 0 && fabs(agree - 1) <= 0.05,
			     "throughput by the program's clock / over the modeled ROI "
			     "time: %.3f (want 0.95 - 1.05)%s", agree,
			     hr->timing_report ? "" : "; no timing model: run with --timing");
	progress(hr->h->id, p->w->id, "%s: %s (%.1f s)", check + strlen("workload:"),
		 line, rw->wall_s);
	g_clear_pointer(&p->command, g_free);
}

static void finish_one(struct run *run, struct pending *p)
{
	struct host_run *hr = p->hr;
	struct res_workload *rw = p->rw;
	g_autoptr(JsonObject) res = NULL;
	g_autoptr(GError) err = NULL;
	g_autofree char *check = p->node >= 0 ?
		g_strdup_printf("workload:%s:%s:node%d", p->w->id, hr->h->id, p->node) :
		p->dax ? g_strdup_printf("workload:%s:%s:%s", p->w->id, hr->h->id,
					 p->dax->region) :
		g_strdup_printf("workload:%s:%s", p->w->id, hr->h->id);
	g_autofree char *where = where_of(p);

	if (p->w->command && !p->id) {	/* setup failed, or a placeholder had no value */
		finish_command(run, p, NULL, check);
		return;
	}
	if (p->id)
		res = wait_run(run, p, NULL, p->id, p->t0, p->modeled_t0_ns,
			       run_deadline(run, p->w->timeout_s + 30), &err);
	else
		g_set_error(&err, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", rw->error);
	rw->wall_s = (g_get_monotonic_time() - p->t0) / 1e6;
	run_session_workload(run->session, hr->h->id, p->w->id, false);
	if (!res) {
		run_explain_exit(run, hr, &err);
		g_free(rw->error);
		rw->error = g_strdup(err->message);
		run_host_fail(run, hr, check, err);
		g_clear_pointer(&p->command, g_free);
		if (p->log)
			g_string_free(g_steal_pointer(&p->log), TRUE);
		return;
	}
	if (p->w->command) {
		finish_command(run, p, res, check);
		return;
	}
	gint64 status = json_object_get_int_member_with_default(res, "exit", -1);
	if (json_object_has_member(res, "output") &&
	    JSON_NODE_HOLDS_OBJECT(json_object_get_member(res, "output")))
		rw->output = json_object_ref(json_object_get_object_member(res, "output"));
	rw->ok = status == 0 && rw->output;
	if (rw->ok && hr->timing_report &&
	    !timing_merge(rw->output, hr->timing_report, p->first_roi, &err)) {
		rw->ok = false;
		rw->error = g_strdup_printf("timing model: %s", err->message);
	} else if (!rw->ok && status == 0) {
		/* it ended well but its result line did not parse: show it */
		const char *out = json_object_get_string_member_with_default(res, "stdout", "");
		size_t n = strlen(out);

		rw->error = g_strdup_printf("exit 0 but no JSON result; stdout ends \"%s\"; stderr \"%s\"",
			out + (n > 300 ? n - 300 : 0),
			json_object_get_string_member_with_default(res, "stderr", ""));
	} else if (!rw->ok) {
		/* name a signal and the agent's timeout (on the guest clock:
		 * modeled time with the timing model), so that an exit 137
		 * says whether the OOM killer or the timeout ended it */
		gint64 sig = json_object_get_int_member_with_default(res, "signal", 0);

		/* a timeout also says where the program's threads were */
		const char *stuck = json_object_get_string_member_with_default(res, "stuck", "");
		const char *stderr_tail = json_object_get_string_member_with_default(res, "stderr", "");

		rw->error = g_strdup_printf("exit %" G_GINT64_FORMAT "%s%s after %.3f s of guest clock%s: %s%s%s",
			status, sig ? ", signal " : "", sig ? g_strsignal((int)sig) : "",
			json_object_get_double_member_with_default(res, "wall_s", -1),
			json_object_get_boolean_member_with_default(res, "timed_out", FALSE) ?
			", timed out" : "", stderr_tail,
			*stuck ? (*stderr_tail ? "; at the timeout " : "at the timeout ") : "", stuck);
	}
	/* a protected workload's markers in modeled time (docs/faults.md) */
	if (rw->output && hr->timing_report)
		fault_rois_merge(rw->output, hr->timing_report, p->first_roi);
	/* memory shared without coherence: did it read a stale line? */
	if (rw->output && hr->timing_report)
		stale_check_workload(run->res, rw->output, hr->timing_report,
				     timing_report_roi_count(hr->timing_report) > p->first_roi,
				     p->w->id, hr->h->id);
	result_check(run->res, check, rw->ok, "%s", rw->ok ? "ran" : rw->error);
	result_node_take(p->dax ? result_host_find_dax(hr->res, p->dax->region) :
			 result_host_find_node(hr->res, p->node), rw->output);
	{
		g_autofree char *line = rw->output ? fig_summary(rw->output) : NULL;

		progress(hr->h->id, p->w->id, "%s: %s (%.1f s of host wall time)",
			 where ? where : "no node",
			 line ? line : rw->error ? rw->error : "no figures", rw->wall_s);
	}
}

static void run_one(struct run *run, struct pending *p)
{
	start_one(run, p);
	finish_one(run, p);
}

/*
 * Workload by workload. A `together` workload is sent to every host before
 * any reply is awaited, so hosts contend for shared links at the same time;
 * the others run host after host, once per node when per_node and once
 * per devdax region when per_dax.
 */
void run_workloads(struct run *run)
{
	const struct scn_workload *w;
	struct host_run *hr;

	cb_foreach(run->scn->workloads, const struct scn_workload, w) {
		if (w->together) {
			g_autofree struct pending *ps = g_new0(struct pending, run->hosts->len);
			guint n = 0;
			int hosts = 0;

			cb_foreach(run->hosts, struct host_run, hr)
				hosts += host_usable(hr) && workload_wanted(w, hr->h);
			cb_foreach(run->hosts, struct host_run, hr)
				if (host_usable(hr) && workload_wanted(w, hr->h)) {
					ps[n] = (struct pending){ .hr = hr, .w = w, .node = -1,
								  .together = run->opts->timing ?
									      hosts : 0 };
					start_one(run, &ps[n++]);
				}
			for (guint i = 0; i < n; i++)
				finish_one(run, &ps[i]);
			continue;
		}
		cb_foreach(run->hosts, struct host_run, hr) {
			if (!host_usable(hr) || !workload_wanted(w, hr->h))
				continue;
			if (!w->per_node && !w->per_dax) {
				run_one(run, &(struct pending){ .hr = hr, .w = w, .node = -1 });
				continue;
			}
			/* nodes first, then dax views: the order of res->nodes */
			for (guint i = 0; i < hr->res->nodes->len; i++) {
				const struct res_node *n = g_ptr_array_index(hr->res->nodes, i);

				if (!host_usable(hr))
					break;
				if (n->dax && w->per_dax)
					run_one(run, &(struct pending){
						.hr = hr, .w = w, .node = -1, .dax = n });
				else if (!n->dax && w->per_node &&
					 (!w->cxl_nodes_only || !g_strcmp0(n->kind, "cxl")))
					run_one(run, &(struct pending){
						.hr = hr, .w = w, .node = n->node });
			}
			if (w->command && w->per_node)
				command_compare_nodes(run->res, hr->h->id, w->id);
		}
	}
}
