/* SPDX-License-Identifier: MIT */
/*
 * The run's schedule (schedule/schedule.c): which action fires on which
 * moment, in the order added, after its delay in wall or modeled time,
 * and the same draws for the same seed. The clock is the test's own: a
 * start moved back by hand, and a timing segment in plain memory.
 */
#include "tap.h"
#include "schedule/schedule.h"
#include "timing/shm_links.h"

#include <string.h>

static struct tm_shared seg;	/* slot 0: a vCPU's modeled ns + 1 */
static GString *fired;		/* the ids in firing order */

static struct tm_shared *segment(void *ctx)
{
	return ctx;
}

static void fire(void *owner, void *action)
{
	g_string_append_printf(fired, "%s ", (const char *)action);
}

static void add(struct schedule *s, const char *id, const struct trigger *tr,
		const char *host)
{
	struct sched_action a = { .id = id, .when = tr, .host = host, .fire = fire,
				  .action = (void *)id };
	uint64_t rng = sched_rng_for(1, id);

	schedule_add(s, &a, &rng);
}

/* The clock as if it had started @s seconds ago. */
static void started_ago(struct run_clock *c, double s)
{
	c->t0 = g_get_monotonic_time() - (gint64)(s * G_USEC_PER_SEC);
}

static void set_modeled(double ns)
{
	seg.nslots = 1;
	seg.slot[0] = (uint64_t)ns + 1;
}

/* written:1M counts the bytes of lending pools from its first reading. */
static void test_written(struct run_clock *c)
{
	struct cb_topology t = { 0 };
	struct cb_pool p0 = { .id = "p0", .ld_size = 1 }, p1 = { .id = "p1", .ld_size = 1 };
	struct trigger w = { .kind = TRIG_WRITTEN, .written = 1 << 20 };
	struct schedule *s;

	t.pools = g_ptr_array_new();
	g_ptr_array_add(t.pools, &p0);
	g_ptr_array_add(t.pools, &p1);
	seg.nres = 2;
	strcpy(seg.res[0].name, "media:pool:p0");
	strcpy(seg.res[1].name, "media:pool:p1");
	seg.res[0].total.bytes[MF_WRITE] = 5 << 20;	/* before it watched */
	s = schedule_new(c, &t);
	{
		struct sched_action a = { .id = "w", .when = &w, .pool = "p1", .fire = fire,
					  .action = "w" };
		uint64_t rng = 0;

		schedule_add(s, &a, &rng);
	}
	g_string_truncate(fired, 0);
	schedule_tick(s);
	seg.res[0].total.bytes[MF_WRITE] += 4 << 20;	/* another pool's */
	seg.res[1].total.bytes[MF_WRITE] += 512 << 10;
	schedule_tick(s);
	ok(!fired->len, "written:1M on p1: not p0's bytes, nor those before it watched");
	seg.res[1].total.bytes[MF_WRITE] += 512 << 10;
	schedule_tick(s);
	ok(!strcmp(fired->str, "w "), "it fires once p1 took 1 MiB (%s)", fired->str);
	schedule_free(s);
	g_ptr_array_unref(t.pools);
}

int main(void)
{
	struct run_clock c = { .segment = segment, .ctx = &seg };
	struct cb_topology t = { 0 };
	struct trigger start = { .kind = TRIG_START };
	struct trigger at2 = { .kind = TRIG_AT, .at_lo = 2, .at_hi = 2 };
	struct trigger phase = { .kind = TRIG_PHASE, .phase = "grow" };
	struct trigger guest = { .kind = TRIG_GUEST, .phase = "running",
				 .delay_lo = 0.005, .delay_hi = 0.005, .delay_modeled = true };
	struct trigger modeled = { .kind = TRIG_MODELED, .at_lo = 0.001, .at_hi = 0.001 };
	struct trigger drawn = { .kind = TRIG_AT, .at_lo = 1, .at_hi = 4 };
	struct schedule *s;
	double a1, a2;

	plan(11);
	fired = g_string_new(NULL);
	t.pools = g_ptr_array_new();
	s = schedule_new(&c, &t);
	add(s, "e-start", &start, NULL);
	add(s, "e-at2", &at2, NULL);
	add(s, "f-phase", &phase, NULL);
	add(s, "f-guest", &guest, "h1");
	add(s, "f-start", &start, NULL);
	add(s, "f-modeled", &modeled, NULL);

	run_clock_start(&c);
	schedule_start(s);
	ok(!strcmp(fired->str, "e-start f-start "), "start: the start actions, in the "
	   "order added (events first) (%s)", fired->str);
	g_string_truncate(fired, 0);
	schedule_tick(s);
	schedule_phase(s, "other");
	schedule_guest_phase(s, "h0", "running");
	ok(!fired->len, "nothing else yet: not 2 s, another phase, another host's "
	   "announcement, no modeled time (%s)", fired->str);
	started_ago(&c, 2.1);
	schedule_tick(s);
	ok(!strcmp(fired->str, "e-at2 "), "at = 2s fires once 2 s have passed (%s)",
	   fired->str);
	g_string_truncate(fired, 0);
	schedule_phase(s, "grow");
	ok(!strcmp(fired->str, "f-phase "), "phase:grow fires when grow begins");
	g_string_truncate(fired, 0);
	set_modeled(1e6);		/* the modeled clock's origin: 1 ms */
	schedule_guest_phase(s, "h1", "running");
	schedule_tick(s);
	ok(!fired->len, "guest:running on h1 arms a 5 ms modeled delay: not due at once");
	set_modeled(1e6 + 1.5e6);
	started_ago(&c, 60);		/* wall time does not count for it */
	schedule_tick(s);
	ok(!strcmp(fired->str, "f-modeled "), "modeled:1ms fires 1 ms of modeled time after "
	   "the first the run saw, not the delayed one (%s)", fired->str);
	g_string_truncate(fired, 0);
	set_modeled(1e6 + 5.1e6);
	schedule_tick(s);
	ok(!strcmp(fired->str, "f-guest "), "the guest trigger fires 5 ms of modeled time "
	   "after its announcement (%s)", fired->str);
	g_string_truncate(fired, 0);
	schedule_tick(s);
	schedule_start(s);
	ok(!fired->len, "an action fires once");
	schedule_free(s);

	s = schedule_new(&c, &t);
	add(s, "d", &drawn, NULL);
	add(s, "d", &drawn, NULL);
	a1 = schedule_at_s(s, 0);
	a2 = schedule_at_s(s, 1);
	ok(a1 == a2 && a1 >= 1 && a1 < 4, "a drawn time: the same for the same seed and "
	   "name, within its range (%.3f s)", a1);
	schedule_free(s);
	test_written(&c);
	g_ptr_array_unref(t.pools);
	g_string_free(fired, TRUE);
	return tap_failed != 0;
}
