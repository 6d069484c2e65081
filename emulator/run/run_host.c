/* SPDX-License-Identifier: MIT */
/* What the runner's steps share about a run's hosts (run_priv.h). */
#include "run/run_priv.h"
#include "common/progress.h"

#include <signal.h>
#include <string.h>
#include <sys/wait.h>

gint64 run_deadline(const struct run *run, int seconds)
{
	return MIN(g_get_monotonic_time() + (gint64)seconds * G_USEC_PER_SEC,
		   run->deadline);
}

char *run_host_file(const struct run *run, const char *what,
		    const struct cb_host *h, const char *ext)
{
	return g_strdup_printf("%s/%s-%s.%s", run->dir, what, h->id, ext);
}

void run_host_fail(struct run *run, struct host_run *hr, const char *check,
		   const GError *err)
{
	g_autofree char *name = g_strdup_printf("%s:%s", check, hr->h->id);

	hr->failed = true;
	result_check(run->res, name, false, "%s", err ? err->message : "failed");
	progress(hr->h->id, "FAILED", "%s: %s", check, err ? err->message : "");
}

/*
 * How QEMU ended, in words. When cxlbed got SIGINT/SIGTERM/SIGHUP its
 * signal guard SIGKILLs every QEMU: that QEMU was stopped by cxlbed, not
 * killed by someone else, and the words say so.
 */
char *run_exit_words(const struct qemu_proc *p, bool *by_cxlbed)
{
	int sig = qemu_proc_interrupted();

	*by_cxlbed = sig && p->reaped && WIFSIGNALED(p->wait_status) &&
		     WTERMSIG(p->wait_status) == SIGKILL;
	if (*by_cxlbed)
		return g_strdup_printf("stopped by cxlbed on SIG%s", sigabbrev_np(sig));
	return qemu_proc_describe_exit(p);
}
