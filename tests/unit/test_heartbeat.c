/* SPDX-License-Identifier: MIT */
/*
 * A long workload's heartbeat (runner.c): the guest's modeled clock read
 * from the run's timing segment (modeled_clock.c), the line it prints and
 * how often (progress.c).
 */
#include "tap.h"
#include "run/modeled_clock.h"
#include "common/progress.h"
#include "timing/shm_links.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

/* A segment as the plugins leave it: sized, marked, host 1's vCPUs at @ns. */
static struct tm_shared *make_segment(const char *name)
{
	int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
	struct tm_shared *s;

	if (fd < 0 || ftruncate(fd, sizeof(*s)) < 0)
		return NULL;
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return s == MAP_FAILED ? NULL : s;
}

int main(void)
{
	uint64_t slot[3] = { 0 };
	uint32_t halted[3] = { 0 };
	g_autofree char *name = g_strdup_printf("/cxlbed-test-heartbeat-%d", (int)getpid());
	struct tm_shared *s;
	g_autofree char *line = NULL;

	plan(12);
	ok(modeled_slots_now(slot, halted, 3) == -1, "no vCPU has a time: none");
	slot[0] = 1000 + 1;
	slot[1] = 5000 + 1;
	ok(modeled_slots_now(slot, halted, 3) == 5000, "the latest running vCPU's clock");
	slot[2] = 9000 + 1;
	halted[2] = 1;
	ok(modeled_slots_now(slot, halted, 3) == 5000,
	   "a halted vCPU's deadline is not time the guest reached");
	slot[0] = 0;
	slot[1] = 7000 + 1;
	halted[1] = 1;
	ok(modeled_slots_now(slot, halted, 3) == 7000,
	   "every vCPU halted: the earliest deadline");

	s = make_segment(name);
	ok(s != NULL, "a timing segment %s", name);
	ok(modeled_clock_host_ns(name, 1, 2) == -1, "not marked by a plugin yet: unreadable");
	if (s) {
		s->magic = TM_SHM_MAGIC;
		s->slot[TM_MAX_VCPUS + 0] = 2500000000ull + 1;
		s->slot[TM_MAX_VCPUS + 1] = 2600000000ull + 1;
		s->slot[0] = 9900000000ull + 1;	/* host 0: not ours */
	}
	ok(modeled_clock_host_ns(name, 1, 2) == 2600000000.0,
	   "host 1's guest clock from its slots in the segment");
	ok(modeled_clock_host_ns("/cxlbed-test-no-such-segment", 0, 1) == -1 &&
	   modeled_clock_host_ns(NULL, 0, 1) == -1, "no segment: unreadable");
	if (s)
		munmap(s, sizeof(*s));
	shm_unlink(name);

	line = progress_heartbeat_text("node 1", 30.04, 0.7341, TRUE);
	is_str(line, "node 1: still running after 30.0 s of host time, 0.734 s of modeled time",
	       "the heartbeat gives host and modeled time, each named");
	g_free(line);
	line = progress_heartbeat_text(NULL, 60, -1, FALSE);
	is_str(line, "still running after 60.0 s of host time, no modeled time (no timing model)",
	       "without the timing model it says there is no modeled time");

	g_unsetenv("CXLBED_HEARTBEAT_S");
	is_int(progress_heartbeat_s(), 30, "every 30 s of host time by default");
	g_setenv("CXLBED_HEARTBEAT_S", "4", TRUE);
	is_int(progress_heartbeat_s(), 4, "CXLBED_HEARTBEAT_S shortens it (tests)");
	return done_testing();
}
