/* SPDX-License-Identifier: MIT */
#include "qemu/process.h"
#include "qemu/qmp.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Live children, readable from the signal handler at any moment: a full
 * table is replaced by a copy twice its size, published with one atomic
 * store, and the old one is kept (never freed), so the handler never reads
 * freed memory. As many children as a topology has hosts.
 */
struct child_table {
	struct child_table *older;	/* kept: the handler may still read it */
	size_t len;
	volatile pid_t pid[];	/* 0: free slot */
};
static struct child_table *volatile children;
static GMutex children_lock;	/* writers only; the handler takes no lock */
static volatile sig_atomic_t interrupted_by;

static void register_child(pid_t pid)
{
	struct child_table *t, *bigger;
	size_t len;

	g_mutex_lock(&children_lock);
	t = children;
	for (size_t i = 0; t && i < t->len; i++)
		if (!t->pid[i]) {
			t->pid[i] = pid;
			g_mutex_unlock(&children_lock);
			return;
		}
	len = t ? 2 * t->len : 16;
	bigger = g_malloc0(sizeof(*bigger) + len * sizeof(pid_t));
	bigger->older = t;
	bigger->len = len;
	for (size_t i = 0; t && i < t->len; i++)
		bigger->pid[i] = t->pid[i];
	bigger->pid[t ? t->len : 0] = pid;
	__atomic_store_n(&children, bigger, __ATOMIC_RELEASE);
	g_mutex_unlock(&children_lock);
}

static void unregister_child(pid_t pid)
{
	struct child_table *t;

	g_mutex_lock(&children_lock);
	t = children;
	for (size_t i = 0; t && i < t->len; i++)
		if (t->pid[i] == pid)
			t->pid[i] = 0;
	g_mutex_unlock(&children_lock);
}

static void on_signal(int sig)
{
	struct child_table *t = __atomic_load_n(&children, __ATOMIC_ACQUIRE);

	interrupted_by = sig;
	for (size_t i = 0; t && i < t->len; i++)
		if (t->pid[i] > 0)
			kill(t->pid[i], SIGKILL);
}

void qemu_proc_install_signal_guard(void)
{
	static bool installed;
	struct sigaction sa = { .sa_handler = on_signal };

	if (installed)
		return;
	installed = true;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int qemu_proc_interrupted(void)
{
	return interrupted_by;
}

struct qemu_proc *qemu_proc_spawn(const char *name, GPtrArray *argv,
				  const char *log_path, GError **error)
{
	return qemu_proc_spawn_fds(name, argv, log_path, NULL, 0, error);
}

struct qemu_proc *qemu_proc_spawn_fds(const char *name, GPtrArray *argv,
				      const char *log_path,
				      const struct qemu_proc_fd *fds, int n,
				      GError **error)
{
	int logfd = -1, errpipe[2];
	pid_t parent = getpid(), pid;
	struct qemu_proc *p;
	int child_errno = 0;

	if (log_path) {
		logfd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (logfd < 0) {
			g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno),
				    "%s: %s", log_path, g_strerror(errno));
			return NULL;
		}
	}
	/* exec failure travels back over a close-on-exec pipe. */
	if (pipe2(errpipe, O_CLOEXEC) < 0) {
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno),
			    "pipe: %s", g_strerror(errno));
		if (logfd >= 0)
			close(logfd);
		return NULL;
	}
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		/* what QEMU makes, its QMP and agent sockets above all, is the
		 * user's alone (0600), from the moment it exists */
		umask(0177);
		if (logfd >= 0) {
			/* Own process group: Ctrl-C reaches cxlbed, which tears down. */
			setpgid(0, 0);
			int nullfd = open("/dev/null", O_RDONLY);

			dup2(nullfd, 0);
			dup2(logfd, 1);
			dup2(logfd, 2);
		}
		/* dup2 clears close-on-exec on the new number */
		for (int i = 0; i < n; i++)
			if (dup2(fds[i].fd, fds[i].as) < 0)
				_exit(127);
		execvp(g_ptr_array_index(argv, 0), (char **)argv->pdata);
		int e = errno;
		(void)!write(errpipe[1], &e, sizeof(e));
		_exit(127);
	}
	close(errpipe[1]);
	if (logfd >= 0)
		close(logfd);
	if (pid < 0) {
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno),
			    "fork: %s", g_strerror(errno));
		close(errpipe[0]);
		return NULL;
	}
	register_child(pid);
	/* a signal that came before the child was in the table missed it */
	if (interrupted_by)
		kill(pid, SIGKILL);
	if (read(errpipe[0], &child_errno, sizeof(child_errno)) == sizeof(child_errno)) {
		close(errpipe[0]);
		waitpid(pid, NULL, 0);
		unregister_child(pid);
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(child_errno),
			    "cannot run %s: %s", (char *)g_ptr_array_index(argv, 0),
			    g_strerror(child_errno));
		return NULL;
	}
	close(errpipe[0]);
	p = g_new0(struct qemu_proc, 1);
	p->name = g_strdup(name);
	p->pid = pid;
	return p;
}

bool qemu_proc_exited(struct qemu_proc *p)
{
	if (p->reaped)
		return true;
	if (waitpid(p->pid, &p->wait_status, WNOHANG) == p->pid) {
		p->reaped = true;
		unregister_child(p->pid);
	}
	return p->reaped;
}

char *qemu_proc_describe_exit(const struct qemu_proc *p)
{
	if (!p->reaped)
		return g_strdup("still running");
	if (WIFEXITED(p->wait_status))
		return g_strdup_printf("exited with status %d",
				       WEXITSTATUS(p->wait_status));
	if (WIFSIGNALED(p->wait_status))
		return g_strdup_printf("killed by signal %d (%s)",
				       WTERMSIG(p->wait_status),
				       strsignal(WTERMSIG(p->wait_status)));
	return g_strdup("ended");
}

static bool wait_exit(struct qemu_proc *p, int ms)
{
	gint64 end = g_get_monotonic_time() + (gint64)ms * 1000;

	while (!qemu_proc_exited(p)) {
		if (g_get_monotonic_time() >= end)
			return false;
		g_usleep(10 * 1000);
	}
	return true;
}

void qemu_proc_wait(struct qemu_proc *p)
{
	while (!p->reaped) {
		if (waitpid(p->pid, &p->wait_status, 0) == p->pid) {
			p->reaped = true;
			unregister_child(p->pid);
		} else if (errno != EINTR) {
			break;
		}
	}
}

void qemu_proc_stop(struct qemu_proc *p, struct qmp *q, int grace_ms)
{
	if (!p || qemu_proc_exited(p))
		return;
	if (q) {
		g_autoptr(GError) err = NULL;
		JsonNode *r = qmp_execute(q, "quit", NULL,
					  g_get_monotonic_time() + grace_ms * 1000, &err);
		if (r)
			json_node_unref(r);
		if (wait_exit(p, grace_ms))
			return;
	}
	kill(p->pid, SIGTERM);
	/* a stopped QEMU (SIGSTOP, a debugger let go) still ends cleanly: its plugin's report is written at exit */
	kill(p->pid, SIGCONT);
	if (wait_exit(p, grace_ms))
		return;
	kill(p->pid, SIGKILL);
	qemu_proc_wait(p);
}

void qemu_proc_free(struct qemu_proc *p)
{
	if (!p)
		return;
	g_free(p->name);
	g_free(p);
}
