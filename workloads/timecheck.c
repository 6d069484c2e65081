// SPDX-License-Identifier: MIT
/*
 * cxlbed-timecheck: what the guest's own clock does. Reports the kernel's
 * clocksource and this CPU's clock event device, then
 *  - busy: spins (no memory traffic) for --seconds S of guest time,
 *    from one tick to another, and counts the jiffies and the timer
 *    interrupts this CPU took meanwhile: on a busy CPU the tick runs at HZ
 *    per second of the guest's clock;
 *  - sleep: sleeps --sleep S (nanosleep) and reports how long that took
 *    by CLOCK_MONOTONIC and by the process's CPU time (host time shows in
 *    the run's own timing, outside the guest).
 * No markers: it looks only at what the guest kernel provides.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "thread.h"
#include "wl.h"

/* First line of a sysfs file, newline dropped ("" if unreadable). */
static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (f && fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = 0;
	if (f)
		fclose(f);
}

/*
 * Timer interrupts CPU @cpu has taken: the cxlbed-clock line of
 * /proc/interrupts, or the local APIC timer's (LOC) without it.
 */
static long long timer_irqs(int cpu, char *which, size_t len)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[4096];
	long long clk = -1, loc = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ':');
		long long v = -1;

		if (!p)
			continue;
		p++;
		for (int c = 0; c <= cpu; c++)
			v = strtoll(p, &p, 10);
		if (strstr(line, "cxlbed-clock"))
			clk = clk < 0 ? v : clk + v;	/* one line per vector */
		else if (!strncmp(line + strspn(line, " "), "LOC:", 4))
			loc = v;
	}
	fclose(f);
	snprintf(which, len, "%s", clk >= 0 ? "cxlbed-clock" : "LOC");
	return clk >= 0 ? clk : loc;
}

/* The kernel's tick count (first "jiffies:" of /proc/timer_list), or -1. */
static long long jiffies(void)
{
	FILE *f = fopen("/proc/timer_list", "r");
	char line[256];
	long long j = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "jiffies: %lld", &j) == 1)
			break;
	if (f)
		fclose(f);
	return j;
}

/*
 * Read the tick count until it moves, and when it has: the new count, with
 * @t the guest time right after and @width how long before that the count
 * was last seen unchanged (the edge lies within). Reading /proc/timer_list
 * takes a while (the kernel prints every hrtimer), so a window from one
 * plain read to another held up to one tick more than its clock-time
 * span (51 jiffies in 0.2 s: "255 per second"). An edge seen across a gap
 * (this process was preempted between two reads) is not trusted: the next
 * one is taken instead.
 */
#define EDGE_MAX_S 0.0005

static long long next_tick(double *t, double *width)
{
	double before = wl_now();
	long long j0 = jiffies(), j;

	for (;;) {
		double seen = wl_now();

		j = jiffies();
		*t = wl_now();
		if (j != j0 && j >= 0 && *t - seen < EDGE_MAX_S && seen - before < EDGE_MAX_S)
			break;
		if (j < 0)
			break;
		j0 = j;
		before = *t;
	}
	*width = *t - before;
	return j;
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct wl_opts o = { .node = -1, .seconds = 0.2, .sleep = 0.2 };
	char cs[64], ce[64], which[32];
	long long i0, i1, j0, j1;
	double t0, t1, w0, w1, s0, s1, c0, c1;
	volatile unsigned long spin = 0;
	struct timespec nap;

	wl_parse("timecheck", argc, argv, &o, WL_OPT_SECONDS | WL_OPT_SLEEP);
	wl_pin("timecheck", 0);
	read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		  cs, sizeof(cs));
	read_line("/sys/devices/system/clockevents/clockevent0/current_device",
		  ce, sizeof(ce));

	i0 = timer_irqs(0, which, sizeof(which));
	j0 = next_tick(&t0, &w0);
	do {
		for (int k = 0; k < 10000; k++)
			spin++;
		t1 = wl_now();
	} while (t1 - t0 < o.seconds);
	j1 = next_tick(&t1, &w1);
	i1 = timer_irqs(0, which, sizeof(which));

	nap.tv_sec = (time_t)o.sleep;
	nap.tv_nsec = (long)((o.sleep - nap.tv_sec) * 1e9);
	c0 = cpu_seconds();
	s0 = wl_now();
	nanosleep(&nap, NULL);
	s1 = wl_now();
	c1 = cpu_seconds();

	printf("{\"workload\":\"timecheck\",\"clocksource\":\"%s\","
	       "\"clockevent\":\"%s\",\"timer\":\"%s\",\"busy_s\":%.6f,"
	       "\"busy_timer_irqs\":%lld,\"timer_irqs_per_s\":%.1f,"
	       "\"busy_jiffies\":%lld,\"jiffies_per_s\":%.1f,\"tick_edges_us\":[%.1f,%.1f],"
	       "\"sleep_asked_s\":%.6f,\"sleep_s\":%.6f,\"sleep_cpu_s\":%.6f,"
	       "\"clock\":\"guest\"}\n",
	       cs, ce, which, t1 - t0, i1 - i0, (i1 - i0) / (t1 - t0),
	       j1 - j0, (j1 - j0) / (t1 - t0), w0 * 1e6, w1 * 1e6, o.sleep, s1 - s0, c1 - c0);
	return 0;
}
