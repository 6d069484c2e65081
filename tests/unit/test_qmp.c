/* SPDX-License-Identifier: MIT */
/*
 * QMP client and QEMU process lifetime against a real QEMU (-M none boots
 * nothing, so this takes well under a second): greeting, commands, errors,
 * quit, and the promise that QEMU dies with cxlbed even on SIGKILL.
 */
#include "tap.h"
#include "qemu/process.h"
#include "qemu/qmp.h"

#include <gio/gio.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *qemu(void)
{
	const char *q = g_getenv("CXLBED_QEMU");

	return q ? q : "qemu-system-x86_64";
}

static GPtrArray *qemu_none_argv(const char *sock)
{
	GPtrArray *a = g_ptr_array_new_with_free_func(g_free);

	g_ptr_array_add(a, g_strdup(qemu()));
	g_ptr_array_add(a, g_strdup("-M"));
	g_ptr_array_add(a, g_strdup("none"));
	g_ptr_array_add(a, g_strdup("-nodefaults"));
	g_ptr_array_add(a, g_strdup("-display"));
	g_ptr_array_add(a, g_strdup("none"));
	g_ptr_array_add(a, g_strdup("-qmp"));
	g_ptr_array_add(a, g_strdup_printf("unix:%s,server=on,wait=off", sock));
	g_ptr_array_add(a, NULL);
	return a;
}

/* Dead = gone, or a zombie nobody reaped yet. */
static bool pid_dead(pid_t pid)
{
	g_autofree char *path = g_strdup_printf("/proc/%d/stat", pid);
	g_autofree char *stat = NULL;

	if (!g_file_get_contents(path, &stat, NULL, NULL))
		return true;
	char *p = strrchr(stat, ')');
	return p && p[2] == 'Z';
}

int main(void)
{
	g_autofree char *dir = g_dir_make_tmp("cxlbed-qmp-XXXXXX", NULL);
	g_autofree char *sock = g_build_filename(dir, "qmp.sock", NULL);
	g_autofree char *log = g_build_filename(dir, "qemu.log", NULL);
	g_autoptr(GPtrArray) argv = qemu_none_argv(sock);
	g_autoptr(GError) err = NULL;
	struct qemu_proc *p;
	struct qmp *q;
	JsonNode *r;

	g_autofree char *qemu_path = g_find_program_in_path(qemu());

	if (!qemu_path)
		plan_skip_all("qemu-system-x86_64 not installed (run ci/deps)");
	plan(10);

	p = qemu_proc_spawn("t", argv, log, &err);
	ok(p != NULL, "spawn QEMU -M none");
	q = qmp_connect(sock, NULL, g_get_monotonic_time() + 10 * G_USEC_PER_SEC, &err);
	ok(q && q->qemu_version, "QMP greeting and capabilities (QEMU %s)",
	   q ? q->qemu_version : "?");
	r = q ? qmp_execute(q, "query-status", NULL, g_get_monotonic_time() + 5000000, &err) : NULL;
	ok(r && JSON_NODE_HOLDS_OBJECT(r) &&
	   json_object_has_member(json_node_get_object(r), "status"), "query-status returns a status");
	if (r)
		json_node_unref(r);
	r = q ? qmp_execute(q, "no-such-command", NULL, g_get_monotonic_time() + 5000000, &err) : NULL;
	ok(!r && err && strstr(err->message, "CommandNotFound"), "QMP error class reported");
	g_clear_error(&err);
	qemu_proc_stop(p, q, 3000);
	ok(p->reaped && WIFEXITED(p->wait_status) && WEXITSTATUS(p->wait_status) == 0,
	   "QMP quit ends QEMU cleanly");
	ok(q && qmp_event_seen(q, "SHUTDOWN"), "SHUTDOWN event queued while waiting");
	qmp_free(q);
	qemu_proc_free(p);

	/* A binary that is not there fails at spawn, with its name. */
	{
		g_autoptr(GPtrArray) bad = g_ptr_array_new();

		g_ptr_array_add(bad, "/nonexistent/qemu");
		g_ptr_array_add(bad, NULL);
		p = qemu_proc_spawn("t", bad, log, &err);
		ok(!p && err && strstr(err->message, "/nonexistent/qemu"), "missing binary: clear error");
		g_clear_error(&err);
	}

	/* SIGKILL of the parent takes QEMU with it (PR_SET_PDEATHSIG). */
	int pfd[2];
	pid_t qpid = 0, child;

	(void)!pipe(pfd);
	child = fork();
	if (child == 0) {
		struct qemu_proc *cp = qemu_proc_spawn("t", argv, log, NULL);
		pid_t pid = cp ? cp->pid : 0;

		(void)!write(pfd[1], &pid, sizeof(pid));
		pause();
		_exit(0);
	}
	(void)!read(pfd[0], &qpid, sizeof(qpid));
	ok(qpid > 0 && !pid_dead(qpid), "grandchild QEMU running (pid %d)", qpid);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	gint64 end = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
	while (qpid > 0 && !pid_dead(qpid) && g_get_monotonic_time() < end)
		g_usleep(20000);
	ok(qpid > 0 && pid_dead(qpid), "QEMU dies when its parent is SIGKILLed");

	/* The signal guard kills registered children at once. */
	g_autoptr(GPtrArray) argv2 = qemu_none_argv(sock);
	qemu_proc_install_signal_guard();
	p = qemu_proc_spawn("t", argv2, log, &err);
	raise(SIGTERM);
	qemu_proc_wait(p);
	ok(qemu_proc_interrupted() == SIGTERM && WIFSIGNALED(p->wait_status),
	   "SIGTERM to cxlbed kills QEMU and is remembered for the verdict");
	qemu_proc_free(p);

	unlink(sock);
	unlink(log);
	rmdir(dir);
	return done_testing();
}
