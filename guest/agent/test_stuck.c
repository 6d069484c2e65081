// SPDX-License-Identifier: MIT
/*
 * TAP test of stuck_describe() on the host's own /proc: a child asleep in
 * nanosleep, with a name that holds ") R 1 (" to trip a parser that reads
 * /proc/PID/stat from the first ')' (it would see state R and a CPU taken
 * from the wrong field).
 */
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "tap.h"

static bool matches(const char *text, const char *pattern)
{
	regex_t re;
	bool hit;

	if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB))
		return false;
	hit = regexec(&re, text, 0, NULL, 0) == 0;
	regfree(&re);
	return hit;
}

int main(void)
{
	struct timespec nap = { 0, 50 * 1000 * 1000 };
	char line[4096], pattern[128];
	pid_t pid;

	plan(4);
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_NAME, "odd) R 1 (x");
		sleep(60);
		_exit(0);
	}
	/* until the child has renamed itself and sleeps */
	for (int i = 0; i < 100; i++) {
		stuck_describe(pid, line, sizeof(line));
		if (matches(line, "threads: [0-9]+ S "))
			break;
		nanosleep(&nap, NULL);
	}
	diag("%s", line);
	snprintf(pattern, sizeof(pattern), "^threads: %d S cpu[0-9]+ [^ ;]+;", (int)pid);
	ok(matches(line, pattern) &&
	   atoi(strstr(line, " cpu") + 4) < sysconf(_SC_NPROCESSORS_CONF),
	   "the sleeping child: its thread id, state S, one of the %ld CPUs, a wait channel",
	   sysconf(_SC_NPROCESSORS_CONF));
	ok(matches(line, "; running: .*test-stuck|; running: .*guest-agent-stu"),
	   "the running tasks include this test itself, by name");
	ok(!matches(line, "running:.*odd\\)"), "a sleeping task is not listed as running");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);

	stuck_describe(pid, line, sizeof(line));
	ok(!strstr(line, "threads:") && strstr(line, "running:") == line,
	   "a reaped program: no threads, still the running tasks (%s)", line);
	return done_testing();
}
