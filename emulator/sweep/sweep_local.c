/* SPDX-License-Identifier: MIT */
/*
 * Running a sweep's points: here, N at a time, each a `cxlbed run` of its
 * own (a child process with its output in POINT/run.log), or one point
 * as a Slurm array task runs it.
 */
#include "sweep/sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	stopping = sig;
}

/* This very binary: the points run the cxlbed that expanded them. */
static char *self_path(void)
{
	char *p = g_file_read_link("/proc/self/exe", NULL);

	return p ? p : g_strdup("cxlbed");
}

static GPid start_point(const char *self, const struct sweep_point *p)
{
	g_autofree char *log = g_build_filename(p->dir, "run.log", NULL);
	const char *argv[] = { self, "run", "--out", p->run_dir, p->input, NULL };
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	pid_t pid;

	if (fd < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execv(self, (char **)argv);
		_exit(127);
	}
	close(fd);
	return pid;
}

int sweep_run_local(const struct sweep *s, guint jobs)
{
	g_autofree char *self = self_path();
	g_autofree GPid *pids = g_new0(GPid, s->points->len);
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
	guint next = 0, running = 0, done = 0, failed = 0;

	/* Ctrl-C reaches every point's run (one process group): each tears its
	 * QEMU down; here we only stop starting points and wait for them. */
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	while (done < next || (next < s->points->len && !stopping)) {
		int status;
		pid_t pid;

		while (running < MAX(jobs, 1) && next < s->points->len && !stopping) {
			const struct sweep_point *p = g_ptr_array_index(s->points, next);
			g_autofree char *label = sweep_point_label(s, p);

			pids[next] = start_point(self, p);
			fprintf(stderr, "sweep %s: %s (%s) started: %s/run.log\n", s->name, p->id,
				label, p->dir);
			if (pids[next] < 0) {
				fprintf(stderr, "sweep %s: %s: cannot start: %s\n", s->name, p->id,
					g_strerror(errno));
				failed++;
				done++;
			} else {
				running++;
			}
			next++;
		}
		if (!running)
			break;
		pid = waitpid(-1, &status, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (guint i = 0; i < next; i++) {
			const struct sweep_point *p = g_ptr_array_index(s->points, i);

			if (pids[i] != pid)
				continue;
			running--;
			done++;
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				failed++;
			fprintf(stderr, "sweep %s: %s %s (%u/%u done)\n", s->name, p->id,
				WIFEXITED(status) && !WEXITSTATUS(status) ? "passed" :
				WIFEXITED(status) && WEXITSTATUS(status) == 1 ? "FAILED a check" :
				"did not finish", done, s->points->len);
		}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (stopping) {
		fprintf(stderr, "sweep %s: interrupted; %u of %u points not started\n", s->name,
			s->points->len - next, s->points->len);
		return 128 + stopping;
	}
	return failed || done < s->points->len ? 1 : 0;
}

int sweep_run_point(const struct sweep *s, guint index)
{
	g_autofree char *self = self_path();
	const struct sweep_point *p;

	if (index >= s->points->len) {
		fprintf(stderr, "cxlbed sweep: --point %u: the sweep in %s has points 0..%u\n",
			index, s->out, s->points->len - 1);
		return 2;
	}
	p = g_ptr_array_index(s->points, index);
	execl(self, self, "run", "--out", p->run_dir, p->input, (char *)NULL);
	fprintf(stderr, "cxlbed sweep: %s: %s\n", self, g_strerror(errno));
	return 1;
}
