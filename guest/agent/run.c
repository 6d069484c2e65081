// SPDX-License-Identifier: MIT
/*
 * run: start a guest program (or a shell command line), wait for it under
 * a timeout, hand back its exit status, its one-line JSON result (the last
 * line of stdout) or its output, and the tail of its stderr. On request
 * the whole run is a region of interest for the timing model: the agent
 * itself executes the BEGIN marker before the fork and the END marker
 * after the wait (docs/agent-protocol.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "cxlbed-roi.h"
#include "json_util.h"
#include "proto.h"

#define MAX_ARGS 64
#define OUT_CAP (512 * 1024)	/* stdout kept; fits a 1 MiB reply line */
#define HOME "/root"		/* a command's working directory and $HOME */
#define ERR_CAP (16 * 1024)	/* stderr: the tail is what explains a failure */

struct capture {
	char *buf;
	size_t len, cap;
	bool tail;	/* keep the last cap bytes instead of the first */
};

static void capture_add(struct capture *c, const char *data, size_t n)
{
	if (c->tail && n > c->cap) {
		data += n - c->cap;
		n = c->cap;
	}
	if (c->len + n > c->cap) {
		if (!c->tail)
			n = c->cap - c->len;
		else {
			size_t drop = c->len + n - c->cap;

			memmove(c->buf, c->buf + drop, c->len - drop);
			c->len -= drop;
		}
	}
	memcpy(c->buf + c->len, data, n);
	c->len += n;
}

/* The last non-empty line of the program's stdout, parsed as JSON. */
static json_object *last_json_line(struct capture *c)
{
	char *end, *start;

	c->buf[c->len] = '\0';
	end = c->buf + c->len;
	while (end > c->buf && (end[-1] == '\n' || end[-1] == ' '))
		*--end = '\0';
	start = strrchr(c->buf, '\n');
	start = start ? start + 1 : c->buf;
	json_object *o = *start ? json_tokener_parse(start) : NULL;

	if (o && !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		o = NULL;
	}
	return o;
}

static pid_t spawn(const char *prog, char **argv, int out[2], int errp[2])
{
	pid_t pid = fork();

	if (pid)
		return pid;
	setpgid(0, 0);	/* so a timeout can kill the whole group */
	dup2(out[1], 1);
	dup2(errp[1], 2);
	close(out[0]);
	close(errp[0]);
	int devnull = open("/dev/null", O_RDONLY);

	if (devnull >= 0)
		dup2(devnull, 0);
	setenv("PATH", "/usr/bin:/bin:/sbin", 1);
	setenv("HOME", HOME, 1);
	if (chdir(HOME) < 0 && chdir("/") < 0)
		_exit(127);
	execvp(prog, argv);
	fprintf(stderr, "exec %s: %s\n", prog, strerror(errno));
	_exit(127);
}

/*
 * The whole-run region (id CXLBED_ROI_COMMAND). Markers are immediates:
 * these two are the only ones the agent has.
 */
static void roi_mark(bool begin)
{
	if (begin)
		cxlbed_roi_begin(CXLBED_ROI_COMMAND);
	else
		cxlbed_roi_end(CXLBED_ROI_COMMAND);
}

static bool arg_true(json_object *args, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(args, key, &v) && json_object_get_boolean(v);
}

/* argv for "program" + "args", or /bin/sh -c "command"; 0 or -1 + err. */
static int build_argv(json_object *args, char **argv, char *err)
{
	const char *prog = arg_str(args, "program", NULL);
	const char *command = arg_str(args, "command", NULL);
	json_object *jargs;
	int nargs = 0;

	if (command && prog) {
		snprintf(err, ERRLEN, "give args.program or args.command, not both");
		return -1;
	}
	if (command) {
		if (!command[0]) {
			snprintf(err, ERRLEN, "args.command is empty");
			return -1;
		}
		argv[0] = "/bin/sh";
		argv[1] = "-c";
		argv[2] = (char *)command;
		argv[3] = NULL;
		return 0;
	}
	if (!prog || !prog[0]) {
		snprintf(err, ERRLEN, "args.program (or args.command) is required");
		return -1;
	}
	argv[nargs++] = (char *)prog;
	if (json_object_object_get_ex(args, "args", &jargs)) {
		size_t i, n;

		if (!json_object_is_type(jargs, json_type_array)) {
			snprintf(err, ERRLEN, "args.args must be an array of strings");
			return -1;
		}
		n = json_object_array_length(jargs);
		if (n > MAX_ARGS) {
			snprintf(err, ERRLEN, "at most %d arguments", MAX_ARGS);
			return -1;
		}
		for (i = 0; i < n; i++)
			argv[nargs++] = (char *)json_object_get_string(
				json_object_array_get_idx(jargs, i));
	}
	argv[nargs] = NULL;
	return 0;
}

json_object *cmd_run(json_object *args, char *err)
{
	bool command = arg_str(args, "command", NULL) != NULL;
	bool roi = arg_true(args, "roi");
	double timeout = arg_int(args, "timeout_s", 120), t0, left;
	/* a command's summary comes last: keep the end of what it printed */
	struct capture out = { .cap = OUT_CAP, .tail = command },
		       errc = { .cap = ERR_CAP, .tail = true };
	char *argv[MAX_ARGS + 2], chunk[8192], stuck[2048] = "";
	int outp[2], errp[2], status = 0, open_fds = 2;
	bool timed_out = false;
	json_object *res, *parsed;
	pid_t pid;

	if (build_argv(args, argv, err) < 0)
		return NULL;
	wait_background_startup();
	out.buf = malloc(OUT_CAP + 1);
	errc.buf = malloc(ERR_CAP + 1);
	if (!out.buf || !errc.buf || pipe2(outp, O_CLOEXEC) < 0) {
		snprintf(err, ERRLEN, "run: out of resources");
		free(out.buf);
		free(errc.buf);
		return NULL;
	}
	if (pipe2(errp, O_CLOEXEC) < 0) {
		close(outp[0]);
		close(outp[1]);
		snprintf(err, ERRLEN, "run: pipe: %s", strerror(errno));
		free(out.buf);
		free(errc.buf);
		return NULL;
	}
	t0 = mono_s();
	if (roi)
		roi_mark(true);
	pid = spawn(argv[0], argv, outp, errp);
	close(outp[1]);
	close(errp[1]);
	struct pollfd p[2] = { { .fd = outp[0], .events = POLLIN },
			       { .fd = errp[0], .events = POLLIN } };

	while (open_fds && pid > 0) {
		left = timeout - (mono_s() - t0);
		if (left <= 0) {
			timed_out = true;
			stuck_describe(pid, stuck, sizeof(stuck));
			kill(-pid, SIGKILL);
			break;
		}
		if (poll(p, 2, (int)(left * 1000) + 1) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (p[i].fd < 0 || !p[i].revents)
				continue;
			n = read(p[i].fd, chunk, sizeof(chunk));
			if (n > 0) {
				capture_add(i ? &errc : &out, chunk, n);
			} else if (n == 0 || errno != EINTR) {
				close(p[i].fd);
				p[i].fd = -1;
				open_fds--;
			}
		}
	}
	for (int i = 0; i < 2; i++)
		if (p[i].fd >= 0)
			close(p[i].fd);
	if (pid > 0)
		waitpid(pid, &status, 0);
	/* a daemon the command started keeps running, but the run is over */
	if (command && pid > 0)
		kill(-pid, SIGKILL);
	if (roi)
		roi_mark(false);

	res = json_object_new_object();
	jadd_int(res, "exit", pid < 0 ? -1 : WIFEXITED(status) ?
		 WEXITSTATUS(status) : 128 + WTERMSIG(status));
	if (WIFSIGNALED(status))
		jadd_int(res, "signal", WTERMSIG(status));
	jadd_bool(res, "timed_out", timed_out);
	if (timed_out)
		jadd_str(res, "stuck", stuck);
	jadd_double(res, "wall_s", mono_s() - t0);
	if (roi)
		jadd_int(res, "roi", CXLBED_ROI_COMMAND);
	out.buf[out.len] = '\0';
	parsed = command ? NULL : last_json_line(&out);
	json_object_object_add(res, "output", parsed);
	if (!parsed)	/* not JSON: hand back what it printed instead */
		jadd_str(res, "stdout", out.buf);
	errc.buf[errc.len] = '\0';
	jadd_str(res, "stderr", errc.buf);
	free(out.buf);
	free(errc.buf);
	return res;
}
