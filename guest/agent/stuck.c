// SPDX-License-Identifier: MIT
/*
 * Where a program that ran past its timeout was: each of its threads'
 * state, CPU and wait channel, and what else each CPU was running. With
 * the guest clock in modeled time a hung program reaches its timeout in
 * seconds of host time (idle time is skipped), and without this line its
 * run says only "timed out": was a thread asleep on a timer that never
 * fired, or runnable behind another task on its pinned CPU?
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "agent.h"

#define MAX_THREADS 16

struct task_view {
	char comm[32];
	char state;
	int cpu;
};

/* /proc/.../stat of one task: its name, state and last CPU. */
static bool read_task(const char *dir, struct task_view *t)
{
	char path[600], buf[1024], *open_paren, *close_paren, *p;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/stat", dir);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	open_paren = strchr(buf, '(');
	close_paren = strrchr(buf, ')');	/* a name may hold ')' */
	if (!open_paren || !close_paren || close_paren < open_paren || close_paren[1] != ' ')
		return false;
	snprintf(t->comm, sizeof(t->comm), "%.*s",
		 (int)(close_paren - open_paren - 1), open_paren + 1);
	t->state = close_paren[2];
	/* after the state, "processor" is the 37th field (stat's 39th) */
	p = close_paren + 2;
	for (int field = 0; field < 36 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	t->cpu = p ? atoi(p) : -1;
	return true;
}

static void read_wchan(const char *dir, char *out, size_t len)
{
	char path[600];
	FILE *f;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/wchan", dir);
	out[0] = '\0';
	f = fopen(path, "re");
	if (f) {
		n = fread(out, 1, len - 1, f);
		fclose(f);
	}
	out[n] = '\0';
	if (!n || !strcmp(out, "0"))
		snprintf(out, len, "-");
}

/* Adds to @buf as far as it has room (a cut line is still worth having). */
static void __attribute__((format(printf, 3, 4)))
append(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

void stuck_describe(pid_t pid, char *buf, size_t len)
{
	char dir[300], task_dir[560], wchan[64];
	struct task_view t;
	struct dirent *e;
	DIR *d;
	int shown = 0;

	buf[0] = '\0';
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	d = opendir(dir);
	if (d) {
		append(buf, len, "threads:");
		while ((e = readdir(d)) && shown < MAX_THREADS) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(task_dir, sizeof(task_dir), "%s/%s", dir, e->d_name);
			if (!read_task(task_dir, &t))
				continue;
			read_wchan(task_dir, wchan, sizeof(wchan));
			append(buf, len, "%s %s %c cpu%d %s", shown ? "," : "",
			       e->d_name, t.state, t.cpu, wchan);
			shown++;
		}
		closedir(d);
	}
	/* the runnable tasks of the whole guest, and on which CPU */
	d = opendir("/proc");
	if (!d)
		return;
	append(buf, len, "%srunning:", *buf ? "; " : "");
	shown = 0;
	while ((e = readdir(d))) {
		DIR *tasks;
		struct dirent *te;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(dir, sizeof(dir), "/proc/%s/task", e->d_name);
		tasks = opendir(dir);
		if (!tasks)
			continue;
		while ((te = readdir(tasks))) {
			if (te->d_name[0] == '.')
				continue;
			snprintf(task_dir, sizeof(task_dir), "%s/%s", dir, te->d_name);
			if (read_task(task_dir, &t) && t.state == 'R')
				append(buf, len, "%s %s cpu%d", shown++ ? "," : "",
				       t.comm, t.cpu);
		}
		closedir(tasks);
	}
	closedir(d);
}
