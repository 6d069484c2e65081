/* SPDX-License-Identifier: MIT */
/* The end of a run's hosts: QEMU stopped and reaped, how it ended
 * checked, every file of the host let go. */
#include "run/run_priv.h"
#include "qemu/argv.h"
#include "common/progress.h"
#include "run/run_state.h"

#include <unistd.h>

/*
 * Stop a host's QEMU (if it still runs) and let go of everything that
 * belonged to it: connections, logs, sockets, pid file.
 */
void run_release_host(struct run *run, struct host_run *hr)
{
	if (hr->proc) {
		bool died = qemu_proc_exited(hr->proc);

		qemu_proc_stop(hr->proc, died ? NULL : hr->qmp, STOP_GRACE_MS);
	}
	agent_free(hr->agent);
	hr->agent = NULL;
	qmp_free(hr->qmp);
	hr->qmp = NULL;
	g_clear_pointer(&hr->timing_report, g_free);
	if (hr->log)
		fclose(hr->log);
	hr->log = NULL;
	qemu_proc_free(hr->proc);
	hr->proc = NULL;
	/* Sockets and pid files are meaningless after the run (QEMU
	 * removes its pid file only when it exits by itself). */
	g_autofree char *q = qemu_qmp_socket(run->dir, hr->h);
	g_autofree char *a = qemu_agent_socket(run->dir, hr->h);
	g_autofree char *pid = qemu_pidfile(run->dir, hr->h);
	g_autofree char *fq = qemu_fm_qmp_socket(run->dir, hr->h);
	g_autofree char *fa = qemu_fm_agent_socket(run->dir, hr->h);

	unlink(q);
	unlink(a);
	unlink(pid);
	unlink(fq);
	unlink(fa);
}

/* QEMU should still be alive until we stop it; note and check how it ended. */
void run_teardown(struct run *run)
{
	struct host_run *hr;

	run_state_stage(run->state, "teardown", NULL);
	cb_foreach(run->hosts, struct host_run, hr) {
		bool died, by_cxlbed = false;
		g_autofree char *how = NULL;

		/* the signal guard SIGKILLed it: its end is moments away, and
		 * only then does it read "stopped by cxlbed on SIG..." */
		if (hr->proc && qemu_proc_interrupted())
			qemu_proc_wait(hr->proc);
		died = hr->proc && qemu_proc_exited(hr->proc);
		how = died ? run_exit_words(hr->proc, &by_cxlbed) : NULL;

		/*
		 * In `boot` the person ends QEMU (poweroff): that is no failure;
		 * nor is QEMU stopped on a signal to cxlbed (the run says it
		 * was interrupted).
		 */
		if (died && !by_cxlbed && !run->opts->interactive) {
			g_autofree char *name = g_strdup_printf("qemu:%s", hr->h->id);

			result_check(run->res, name, false, "QEMU ended before teardown: %s", how);
		}
		if (hr->proc) {
			hr->res->exit = died ? g_steal_pointer(&how) : g_strdup("stopped by cxlbed");
			progress(hr->h->id, "teardown", "QEMU %s", hr->res->exit);
		}
		run_release_host(run, hr);
	}
}
