/* SPDX-License-Identifier: MIT */
/*
 * A run, start to end (runner.h): claim it, boot its hosts, start its
 * session (events, faults, the fabric manager), run the workloads, tear
 * down, write the results. Each step lives in a file of its own:
 * run_claim.c, run_boot.c, run_workloads.c, run_teardown.c; what they
 * share about a host, run_host.c.
 */
#include "run/run_priv.h"
#include "run/guest_kernel.h"
#include "run/guest_view.h"
#include "run/data_check.h"
#include "run/session.h"
#include "qemu/argv.h"
#include "results/html.h"
#include "common/progress.h"
#include "run/run_dir.h"
#include "run/run_registry.h"
#include "run/run_state.h"
#include "common/version.h"

#include <string.h>

/*
 * The fabric manager, when the topology has a lending pool: its own
 * channels to every host it may lend to, then its start events, before
 * the workloads (docs/pooling.md). Not after Ctrl-C: QEMU is gone, and
 * its sockets, left behind, would be waited on.
 */
static void start_fm(struct run *run)
{
	g_autoptr(GError) err = NULL;
	struct host_run *hr;

	if (qemu_proc_interrupted())
		return;
	run->session = run_session_new(run->scn, run->topo, run->dir);
	if (!run->session)
		return;
	cb_foreach(run->hosts, struct host_run, hr) {
		if (hr->failed || !qemu_host_has_fm(run->topo, hr->h))
			continue;
		g_clear_error(&err);
		if (!run_session_connect(run->session, hr->h, run_deadline(run, 60), &err) &&
		    !qemu_proc_interrupted())
			run_host_fail(run, hr, "fm", err);
	}
	g_clear_error(&err);
	if (!qemu_proc_interrupted() && !run_session_start(run->session, &err))
		result_check(run->res, "fm:start", false, "%s", err->message);
}

static bool host_selected(const struct run *run, const struct cb_host *h)
{
	return !run->opts->only_host || !strcmp(run->opts->only_host, h->id);
}

int runner_run(const struct scenario *s, const struct cb_topology *t,
	       const struct run_opts *o, struct run_result **result_out)
{
	g_autoptr(run_result) res = result_new();
	g_autoptr(GError) err = NULL;
	g_autoptr(GDateTime) now = g_date_time_new_now_utc();
	struct run run = { .scn = s, .topo = t, .opts = o, .res = res };
	struct host_run *hr;
	const struct cb_host *h;
	gint64 t0 = g_get_monotonic_time();
	int rc;

	run.deadline = t0 + (gint64)s->timeout_s * G_USEC_PER_SEC;
	res->run_id = run_id_new(t->name);
	res->topology = g_strdup(t->file);
	res->topology_name = g_strdup(t->name);
	res->scenario = g_strdup(s->name);
	res->started_at = g_date_time_format_iso8601(now);
	res->cxlbed_version = g_strdup(cxlbed_version());
	res->cxlbed_commit = g_strdup(cxlbed_commit());
	res->boot_ready_s = -1;
	res->timing_model = o->timing;
	res->guest_clock = o->timing && !o->host_clock ? "modeled" : "host";
	if (o->kernel && o->kernel->release) {
		res->guest_kernel = guest_kernel_to_json(o->kernel);
		guest_view_set_link_rule(o->kernel->link);
	}
	run.dir = o->out_dir ? g_strdup(o->out_dir) :
		g_build_filename(cxlbed_path(CXLBED_RESULTS), res->run_id, NULL);
	res->out_dir = g_strdup(run.dir);

	/* What killed runs left goes first; a live run is never touched. */
	run_sweep(stderr, false, false, NULL);
	rc = run_claim(&run);
	if (rc) {
		g_free(run.shm);
		g_free(run.dir);
		return rc;
	}
	run.hosts = g_ptr_array_new_with_free_func(g_free);
	qemu_proc_install_signal_guard();
	progress_start();
	progress(NULL, "run", "%s: topology %s, scenario %s -> %s", res->run_id,
		 t->file, s->name, run.dir);
	data_check_warn(t);
	run_state_stage(run.state, "preparing", NULL);
	if (!run_prepare_dir(&run, &err) || !run_prepare_layer(&run, &err)) {
		progress(NULL, "FAILED", "%s", err->message);
		run_release(&run, "fail: could not prepare the run folder or the guest layer");
		g_ptr_array_unref(run.hosts);
		g_free(run.dir);
		return 1;
	}

	cb_foreach(t->hosts, const struct cb_host, h) {
		if (!host_selected(&run, h))
			continue;
		hr = g_new0(struct host_run, 1);
		hr->h = h;
		hr->res = result_add_host(res, h->id);
		g_ptr_array_add(run.hosts, hr);
	}
	run_boot_hosts(&run);

	if (o->interactive) {
		run_state_stage(run.state, "console", NULL);
		cb_foreach(run.hosts, struct host_run, hr)
			if (hr->proc) {
				progress(hr->h->id, "console", "interactive: `poweroff` or Ctrl-A X ends it");
				qemu_proc_wait(hr->proc);
			}
	} else {
		run_check_shared_pools(&run);
		start_fm(&run);
		run_workloads(&run);
		run_session_stop(run.session, res);
		g_clear_pointer(&run.session, run_session_free);
	}

	if (qemu_proc_interrupted()) {
		res->interrupted = g_strdup_printf("SIG%s", sigabbrev_np(qemu_proc_interrupted()));
		result_check(res, "interrupted", false, "run interrupted by %s; cxlbed "
			     "stopped QEMU", res->interrupted);
	}
	run_teardown(&run);
	res->wall_s = (g_get_monotonic_time() - t0) / 1e6;

	run_state_stage(run.state, "results", NULL);
	{
		g_autofree char *summary = g_build_filename(run.dir, "summary.json", NULL);
		g_autofree char *report = g_build_filename(run.dir, "report.md", NULL);
		g_autofree char *html = g_build_filename(run.dir, "report.html", NULL);
		g_autoptr(GError) werr = NULL;

		if (!result_write_summary(res, summary, &werr) ||
		    !result_write_report(res, report, &werr) ||
		    !result_write_html(res, t, html, &werr))
			progress(NULL, "FAILED", "writing results: %s", werr->message);
	}
	if (!o->interactive && !o->quiet)
		result_print_table(res, stdout);
	{
		g_autofree char *outcome = res->interrupted ?
			g_strdup_printf("interrupted by %s", res->interrupted) :
			g_strdup(result_passed(res) ? "pass" : "fail");

		run_release(&run, outcome);
	}
	g_ptr_array_unref(run.hosts);
	g_free(run.dir);
	g_free(run.initrd);
	rc = qemu_proc_interrupted() ? 128 + qemu_proc_interrupted() :
		result_passed(res) ? 0 : 1;
	if (result_out)
		*result_out = g_steal_pointer(&res);
	return rc;
}
