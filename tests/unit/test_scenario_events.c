/* SPDX-License-Identifier: MIT */
/*
 * A scenario's fabric-manager part ([event NAME], [fm]): what it accepts,
 * and FILE:LINE for what it does not, in the file and against the
 * topology (scenario_check_events).
 */
#define SCENARIO_TEST_OWN_BAD
#include "scenario_test.h"

static const char *const head =
	"[scenario]\ntopology = t.topo\n"		/* lines 1-2 */
	"[workload grow]\nprogram = cxlbed-ldshift\n";	/* lines 3-4 */

/* Load (and check against the topology); expect FILE:LINE: ...needle. */
static void bad(const char *what, const char *events, int line, const char *needle)
{
	g_autofree char *text = g_strconcat(head, events, NULL);
	g_autofree char *path = write_file("bad.scn", text);
	g_autofree char *want = g_strdup_printf("%s:%d: ", path, line);
	g_autoptr(GError) err = NULL;
	g_autoptr(cb_topology) t = NULL;
	struct scenario *s = scenario_load(path, &err);

	if (s) {
		t = topology_load(s->topology_path, &err);
		if (t && scenario_check_events(s, t, &err))
			g_clear_error(&err);
	}
	ok(err && err->code == CXLBED_ERROR_INPUT &&
	   g_str_has_prefix(err->message, want) && strstr(err->message, needle),
	   "%s: error at line %d", what, line);
	if (err && !(g_str_has_prefix(err->message, want) && strstr(err->message, needle)))
		diag("  message: %s", err->message);
	scenario_free(s);
}

/*
 * Events take the faults' triggers: one grammar (schedule/trigger.c).
 * A modeled or written one needs the timing model, said at its line.
 */
static void test_one_grammar(void)
{
	g_autofree char *text = g_strconcat(head,
		"[event g]\nwhen = guest:running\ndelay = modeled:random:2ms..9ms\n"
		"action = bind\nhost = h0\n"					/* 5-9 */
		"[event m]\nat = modeled:150ms\naction = unbind\nhost = h0\n"	/* 10-13 */
		"[event w]\nwhen = written:64M\naction = unbind\nhost = h0\n",	/* 14-17 */
		NULL);
	g_autofree char *path = write_file("grammar.scn", text);
	g_autofree char *at = g_strdup_printf("%s:11: ", path);
	g_autoptr(GError) err = NULL;
	g_autoptr(cb_topology) t = NULL;
	struct scenario *s = scenario_load(path, &err);
	struct scn_event *g = s && s->events->len == 3 ? g_ptr_array_index(s->events, 0) : NULL;
	struct scn_event *w = g ? g_ptr_array_index(s->events, 2) : NULL;
	bool refused;

	ok(g && g->when.kind == TRIG_GUEST && !strcmp(g->when.phase, "running") &&
	   g->when.delay_modeled && g->when.delay_lo > 0.0019 && g->when.delay_hi > 0.0089,
	   "an event on a guest phase, after a modeled delay drawn in 2-9 ms");
	ok(w && w->when.kind == TRIG_WRITTEN && w->when.written == 64u << 20,
	   "an event after 64 MiB written");
	if (s)
		t = topology_load(s->topology_path, &err);
	ok(t && scenario_check_events(s, t, &err) && scenario_check_faults(s, t, true, &err),
	   "they check with the timing model");
	refused = t && !scenario_check_faults(s, t, false, &err) && err &&
		  g_str_has_prefix(err->message, at) &&
		  strstr(err->message, "[event m] at = modeled:");
	ok(refused, "without it, the first that needs it is refused at its line");
	if (!refused)
		diag("  %s", err ? err->message : "no error");
	scenario_free(s);
	bad("delay after at", "[event e]\naction = bind\nhost = h0\nat = 1\ndelay = 1s\n",
	    9, "delay = applies after a when = trigger");
}

int main(void)
{
	g_autoptr(GError) err = NULL;
	g_autoptr(cb_topology) t = NULL;
	g_autofree char *good = NULL, *text = NULL;
	struct scenario *s;

	scratch_dir("cxlbed-scn-XXXXXX");
	plan(10 + 10 + 1 + 5);
	g_free(write_file("t.topo",
		"[pool p0]\nsize = 512M\nld-size = 256M\n[host h0]\n[bridge hb0]\n"
		"[rootport rp0]\nhotplug = on\n[window w0]\nsize = 256M\n"));
	text = g_strconcat(head,
		"[fm]\ndemand = grant\nsample = 500ms\n"
		"[event first]\nwhen = start\naction = bind\nld = p0.ld0\nhost = h0\n"
		"[event again]\nat = 2.5s\naction = bind\nld = p0.ld0\nhost = h0\n"
		"expect = refused\nmode = devdax\n"
		"[event back]\nwhen = phase:grow\naction = unbind\nhost = h0\n", NULL);
	good = write_file("good.scn", text);
	s = scenario_load(good, &err);
	ok(s && s->events->len == 3, "three events load");
	if (s && s->events->len == 3) {
		struct scn_event *e0 = g_ptr_array_index(s->events, 0);
		struct scn_event *e1 = g_ptr_array_index(s->events, 1);
		struct scn_event *e2 = g_ptr_array_index(s->events, 2);

		ok(e0->when.kind == TRIG_START && !strcmp(e0->action, "bind") &&
		   !strcmp(e0->ld, "p0.ld0") && !strcmp(e0->mode, "ram"),
		   "when = start, bind p0.ld0, mode ram by default");
		ok(e1->when.kind == TRIG_AT && e1->when.at_lo == 2.5 && e1->expect_refused &&
		   !strcmp(e1->mode, "devdax"), "at = 2.5s, expect = refused, devdax");
		ok(e2->when.kind == TRIG_PHASE && !strcmp(e2->when.phase, "grow") &&
		   !e2->ld && !strcmp(e2->host, "h0"), "when = phase:grow, unbind h0's newest");
	} else {
		for (int i = 0; i < 3; i++)
			ok(0, "events did not load");
	}
	ok(s && s->fm_grant_demand && s->fm_sample_s == 0.5, "[fm] demand = grant, "
	   "sample 500ms");
	if (s)
		t = topology_load(s->topology_path, &err);
	ok(t && scenario_check_events(s, t, &err), "the events name what the "
	   "topology and scenario have");
	scenario_free(s);
	{
		g_autofree char *plain = write_file("plain.scn", head);

		s = scenario_load(plain, &err);
	}
	ok(s && !s->events->len && !s->fm_grant_demand && s->fm_sample_s == 1.0,
	   "no events: demand off, 1 s samples");
	scenario_free(s);
	s = scenario_load(SRCDIR "/workloads/scenarios/pool-shift.scn", &err);
	g_clear_pointer(&t, topology_free);
	if (s)
		t = topology_load(s->topology_path, &err);
	ok(s && t && scenario_check_events(s, t, &err) && s->events->len == 4 &&
	   s->fm_grant_demand, "the shipped pool-shift.scn checks against its topology");
	if (err)
		diag("  %s", err->message);
	g_clear_error(&err);
	scenario_free(s);
	bad("no action", "[event e]\nwhen = start\nhost = h0\n", 5, "needs action = bind");
	bad("neither at nor when", "[event e]\naction = bind\nhost = h0\n", 5,
	    "needs one of at = TIME");
	bad("bad when", "[event e]\naction = bind\nhost = h0\nwhen = later\n", 8,
	    "when = 'later'");

	bad("bad at", "[event e]\naction = bind\nhost = h0\nat = soon\n", 8, "at = 'soon'");
	bad("bad mode", "[event e]\naction = bind\nhost = h0\nat = 1\nmode = fast\n", 9,
	    "mode = 'fast'");
	bad("bind without host", "[event e]\naction = bind\nat = 1\n", 5, "needs host = HOST");
	bad("unknown key", "[event e]\naction = bind\nhost = h0\nat = 1\nlds = 2\n", 9,
	    "unknown key 'lds'");
	bad("bad demand", "[fm]\ndemand = maybe\n", 6, "demand = 'maybe'");
	bad("no such LD", "[event e]\naction = bind\nhost = h0\nat = 1\nld = p0.ld7\n", 9,
	    "ld = p0.ld7: no such logical device");
	bad("no such host", "[event e]\naction = bind\nhost = h5\nat = 1\n", 7,
	    "host = h5: no such host");
	bad("no such phase", "[event e]\naction = unbind\nhost = h0\nwhen = phase:x\n", 8,
	    "no [workload x]");
	bad("event twice", "[event e]\naction = bind\nhost = h0\nat = 1\n"
	    "[event e]\naction = bind\nhost = h0\nat = 2\n", 9, "defined twice");
	bad("bad sample", "[fm]\nsample = 1ms\n", 6, "at least 100ms");
	test_one_grammar();
	return tap_failed != 0;
}
