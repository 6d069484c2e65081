/* SPDX-License-Identifier: MIT */
/*
 * A scenario's fault schedule ([faults], [fault NAME], docs/faults.md):
 * what it accepts, the seeded choices it makes (the same for the same
 * seed), and FILE:LINE for what it does not, in the file and against the
 * topology (scenario_check_faults).
 */
#define SCENARIO_TEST_OWN_BAD
#include "scenario_test.h"
#include "faults/fault_schedule.h"

static const char *const head =
	"[scenario]\ntopology = %s\n"		/* lines 1-2 */
	"[workload kv]\nprogram = cxlbed-protect\n";	/* lines 3-4 */

/* Load and check on topology file @topo; NULL error when it is accepted. */
static struct scenario *load_on(const char *topo, const char *faults, bool timing,
				GError **err)
{
	g_autofree char *top = g_strdup_printf(head, topo);
	g_autofree char *text = g_strconcat(top, faults, NULL);
	g_autofree char *path = write_file("f.scn", text);
	g_autoptr(cb_topology) t = NULL;
	struct scenario *s = scenario_load(path, err);

	if (s) {
		t = topology_load(s->topology_path, err);
		if (!t || !scenario_check_faults(s, t, timing, err))
			g_clear_pointer(&s, scenario_free);
	}
	return s;
}

static struct scenario *load(const char *faults, bool timing, GError **err)
{
	return load_on("t.topo", faults, timing, err);
}

/* Expect FILE:LINE: ...needle, on topology file @topo. */
static void bad_on(const char *topo, const char *what, const char *faults, bool timing,
		   int line, const char *needle)
{
	g_autofree char *want = g_strdup_printf("%s/f.scn:%d: ", dir, line);
	g_autoptr(GError) err = NULL;
	struct scenario *s = load_on(topo, faults, timing, &err);

	ok(!s && err && err->code == CXLBED_ERROR_INPUT &&
	   g_str_has_prefix(err->message, want) && strstr(err->message, needle),
	   "%s: error at line %d", what, line);
	if (err && !(g_str_has_prefix(err->message, want) && strstr(err->message, needle)))
		diag("  message: %s", err->message);
	scenario_free(s);
}

static void bad(const char *what, const char *faults, bool timing, int line,
		const char *needle)
{
	bad_on("t.topo", what, faults, timing, line, needle);
}

/* Accepted on t.topo. */
static void good(const char *what, const char *faults)
{
	g_autoptr(GError) err = NULL;
	struct scenario *s = load(faults, true, &err);

	ok(s != NULL, "%s%s%s", what, err ? ": " : "", err ? err->message : "");
	scenario_free(s);
}

static const struct fault_spec *spec(const struct scenario *s, guint i)
{
	return g_ptr_array_index(s->faults->specs, i);
}

int main(void)
{
	g_autoptr(GError) err = NULL;
	struct scenario *s;

	scratch_dir("cxlbed-faults-XXXXXX");
	plan(14 + 37);
	g_free(write_file("t.topo",
		"[pool p0]\nsize = 512M\nld-size = 256M\n[pool p1]\nsize = 256M\n"
		"ld-size = 256M\n[host h0]\n[bridge hb0]\n[rootport rp0]\nhotplug = on\n"
		"[window w0]\nsize = 256M\n"));
	g_free(write_file("two.topo",
		"[pool p0]\nsize = 256M\nld-size = 256M\nhosts = h0\n"
		"[host h0]\n[host h1]\n"
		"[bridge hb0]\nhost = h0\n[rootport rp0]\nbridge = hb0\nhotplug = on\n"
		"[window w0]\nhost = h0\nsize = 256M\ntargets = hb0\n"
		"[bridge hb1]\nhost = h1\n[rootport rp1]\nbridge = hb1\nhotplug = on\n"
		"[window w1]\nhost = h1\nsize = 256M\ntargets = hb1\n"));
	g_free(write_file("static.topo",
		"[pool q]\nsize = 256M\n[host h0]\n[bridge hb0]\n[rootport rp0]\n"
		"[device mem0]\nport = rp0\npool = q\n[window w0]\nsize = 256M\n"
		"[region r0]\nwindow = w0\ndevices = mem0\n"));

	s = load("[faults]\nseed = 42\ndetect-bound = 50ms\n"
		 "[fault k]\nkind = kill-pool-node\ntarget = p1\nat = modeled:150ms\n"
		 "[fault p]\nkind = poison\ntarget = p0.ld1\nwhen = phase:kv\noffset = 4M\n"
		 "length = 8K\n"
		 "[fault d]\nkind = link-degrade\ntarget = p0\nat = random:1s..4s\n"
		 "bandwidth = 0.25\nlatency = 500ns\nduration = 2s\n"
		 "[fault r]\nkind = random\nkinds = poison revoke-capacity\n"
		 "when = written:64M\ndelay = modeled:random:2ms..9ms\n"
		 "[fault f]\nkind = link-flap\nat = 3s\ncount = 4\nperiod = 500ms\n"
		 "duration = 100ms\n", true, &err);
	ok(s && s->faults && s->faults->specs->len == 5, "a schedule of five faults loads%s%s",
	   err ? ": " : "", err ? err->message : "");
	if (!s)
		return 1;
	ok(s->faults->seed == 42 && s->faults->seed_given &&
	   s->faults->detect_bound_s > 0.0499 && s->faults->detect_bound_s < 0.0501,
	   "[faults]: seed 42, detect-bound 50 ms");
	ok(spec(s, 0)->kind == FK_KILL_POOL && spec(s, 0)->when.kind == TRIG_MODELED &&
	   spec(s, 0)->when.at_lo > 0.1499 && spec(s, 0)->when.at_lo < 0.1501,
	   "kill-pool-node at modeled 150 ms");
	ok(spec(s, 1)->kind == FK_POISON && spec(s, 1)->when.kind == TRIG_PHASE &&
	   !strcmp(spec(s, 1)->when.phase, "kv") && spec(s, 1)->offset == 4u << 20 &&
	   !spec(s, 1)->offset_random && spec(s, 1)->length == 8192,
	   "poison at phase kv, offset 4M, 8K");
	ok(spec(s, 2)->kind == FK_LINK_DEGRADE && spec(s, 2)->when.at_lo == 1 &&
	   spec(s, 2)->when.at_hi == 4 && spec(s, 2)->bandwidth == 0.25 &&
	   spec(s, 2)->latency_ns > 499.9 && spec(s, 2)->latency_ns < 500.1 &&
	   spec(s, 2)->duration_s == 2 && spec(s, 2)->signal,
	   "link-degrade: random 1-4 s, x0.25, +500 ns, 2 s, with a correctable error");
	ok(spec(s, 3)->kind == FK_RANDOM && spec(s, 3)->when.kind == TRIG_WRITTEN &&
	   spec(s, 3)->when.written == 64u << 20 &&
	   spec(s, 3)->kinds == (1u << FK_POISON | 1u << FK_REVOKE) &&
	   spec(s, 3)->when.delay_modeled && spec(s, 3)->when.delay_lo > 0.00199 &&
	   spec(s, 3)->when.delay_lo < 0.00201 && spec(s, 3)->when.delay_hi > 0.00899 &&
	   spec(s, 3)->when.delay_hi < 0.00901,
	   "random kind from {poison, revoke-capacity}, after 64M written and a "
	   "modeled delay drawn in 2-9 ms");
	ok(spec(s, 4)->kind == FK_LINK_FLAP && spec(s, 4)->count == 4 &&
	   spec(s, 4)->period_s == 0.5 && spec(s, 4)->duration_s > 0.0999 &&
	   spec(s, 4)->duration_s < 0.1001 && spec(s, 4)->bandwidth == 0.01,
	   "link-flap: 4 times every 500 ms, 100 ms down, default x0.01");
	ok(!strcmp(spec(s, 0)->target, "p1") && !strcmp(spec(s, 4)->target, "random") &&
	   spec(s, 2)->offset_random, "targets: named, or random by default");
	scenario_free(s);

	/* the seed decides every draw, and each fault has a stream of its own */
	{
		uint64_t a = sched_rng_for(7, "x"), b = sched_rng_for(7, "x");
		uint64_t c = sched_rng_for(8, "x"), d = sched_rng_for(7, "y");
		bool same = true;

		for (int i = 0; i < 100; i++)
			same &= sched_rng_next(&a) == sched_rng_next(&b);
		ok(same, "the same seed and fault draw the same sequence");
		ok(sched_rng_next(&c) != sched_rng_next(&a) && sched_rng_next(&d) != sched_rng_next(&b),
		   "another seed, or another fault, draws differently");
		a = sched_rng_for(3, "t");
		same = true;
		for (int i = 0; i < 1000; i++) {
			double v = sched_rng_between(&a, 1, 4);

			same &= v >= 1 && v < 4;
		}
		ok(same, "draws between 1 and 4 stay in [1, 4)");
	}
	ok(fault_kind_parse("kill-pool-node") == FK_KILL_POOL &&
	   fault_kind_parse("link-flap") == FK_LINK_FLAP && fault_kind_parse("kill") == -1,
	   "kind names parse, unknown ones do not");
	s = load("[fault k]\nkind = kill-pool-node\ntarget = p0\nat = 1s\nremove = on\n"
		 "[fault j]\nkind = kill-pool-node\ntarget = p1\nat = 2s\n", true, &err);
	ok(s && spec(s, 0)->remove && !spec(s, 1)->remove,
	   "remove = on surprise-removes a killed node's LDs; by default they stay");
	scenario_free(s);
	bad("reversed delay range", "[fault k]\nkind = kill-pool-node\ntarget = p0\n"
	    "when = start\ndelay = modeled:random:9ms..2ms\n", true, 9, "modeled:random:2ms..40ms");
	bad("bad remove", "[fault k]\nkind = kill-pool-node\ntarget = p0\nat = 1s\n"
	    "remove = maybe\n", true, 9, "remove");
	s = load("[fault l]\nkind = link-degrade\ntarget = link:p0.ld0\nat = 1s\n", true, &err);
	ok(s != NULL, "a timing resource as a link fault's target");
	scenario_free(s);
	g_clear_error(&err);
	s = load("[fault k]\nkind = kill-pool-node\nat = 1s\n", false, &err);
	ok(s != NULL, "kill-pool-node needs no timing model");
	scenario_free(s);
	g_clear_error(&err);

	bad("no kind", "[fault a]\nat = 1s\n", true, 5, "needs kind =");
	bad("unknown kind", "[fault a]\nkind = explode\nat = 1s\n", true, 6, "not 'explode'");
	bad("no time", "[fault a]\nkind = poison\n", true, 5, "needs one of at =");
	bad("both at and when", "[fault a]\nkind = poison\nat = 1s\nwhen = start\n", true, 5,
	    "needs one of at =");
	bad("bad at", "[fault a]\nkind = poison\nat = soon\n", true, 7, "at = 'soon'");
	bad("bad random range", "[fault a]\nkind = poison\nat = random:4s..1s\n", true, 7,
	    "random:1s..4s");
	bad("bad when", "[fault a]\nkind = poison\nwhen = written:lots\n", true, 7,
	    "written:BYTES");
	bad("unaligned poison", "[fault a]\nkind = poison\nat = 1s\nlength = 100\n", true, 8,
	    "multiples of 64");
	bad("bandwidth out of range", "[fault a]\nkind = link-degrade\nat = 1s\n"
	    "bandwidth = 2\n", true, 8, "bandwidth: '2' is out of range");
	bad("a type for a poison", "[fault a]\nkind = poison\nat = 1s\ntype = physical\n",
	    true, 8, "applies to cor-error and uncor-error only");
	bad("unknown key", "[fault a]\nkind = poison\nat = 1s\ncolour = red\n", true, 8,
	    "unknown key 'colour'");
	/* against the topology: the line of the key at fault, not the header's */
	bad("kill names an LD", "[fault a]\nkind = kill-pool-node\ntarget = p0.ld0\nat = 1s\n",
	    true, 7, "needs target = a pool");
	bad("unknown target", "[fault a]\nkind = poison\ntarget = p9\nat = 1s\n", true, 7,
	    "target = p9");
	bad("link fault without the model", "[fault a]\nkind = link-degrade\nat = 1s\n",
	    false, 6, "needs the timing model");
	bad("modeled time without the model", "[fault a]\nkind = poison\n"
	    "at = modeled:5ms\n", false, 7, "at = modeled: needs the timing model");
	bad("phase of no workload", "[fault a]\nkind = poison\nwhen = phase:nope\n", true, 7,
	    "no [workload nope]");
	bad_on("static.topo", "no lending pool: the fault itself", "[fault a]\n"
	       "kind = poison\nat = 1s\n", true, 5, "has no lending pool");
	/* timing resources: only those a run of the topology has */
	bad("an unknown link", "[fault a]\nkind = link-degrade\ntarget = link:doesnotexist\n"
	    "at = 1s\n", true, 7, "target = link:doesnotexist: no timing resource of "
	    "that name in");
	bad("... and the message lists what there is", "[fault a]\nkind = link-flap\n"
	    "target = link:p0.ld7\nat = 1s\n", true, 7, "it has bridge:hb0, link:p0.ld0, "
	    "link:p0.ld1, link:p1.ld0, media:pool:p0, media:pool:p1");
	bad("an unknown media", "[fault a]\nkind = link-degrade\ntarget = media:p0\n"
	    "at = 1s\n", true, 7, "target = media:p0: no timing resource");
	bad("an unknown bridge", "[fault a]\nkind = link-degrade\ntarget = bridge:hb9\n"
	    "at = 1s\n", true, 7, "target = bridge:hb9: no timing resource");
	good("a bridge, a pool's media and an LD's link as link-fault targets",
	     "[fault a]\nkind = link-degrade\ntarget = bridge:hb0\nat = 1s\n"
	     "[fault b]\nkind = link-flap\ntarget = media:pool:p1\nat = 2s\n"
	     "[fault c]\nkind = link-degrade\ntarget = link:p1.ld0\nat = 3s\n");
	/* hosts */
	bad("an unknown host", "[fault a]\nkind = revoke-capacity\nat = 1s\nhost = h9\n",
	    true, 8, "host = h9: no such host");
	bad_on("two.topo", "a host the target's pool does not lend to",
	       "[fault a]\nkind = poison\ntarget = p0\nat = 1s\nhost = h1\n", true, 9,
	       "host = h1: no LD that target = p0 may hit is lent to h1");
	bad_on("two.topo", "... nor any pool, for target = random",
	       "[fault a]\nkind = cor-error\nat = 1s\nhost = h1\n", true, 8,
	       "no LD that target = random may hit is lent to h1");
	/* offsets and sizes against the LDs the fault may hit (256 MiB) */
	bad("an offset past the LD", "[fault a]\nkind = poison\ntarget = p0.ld0\n"
	    "at = 1s\noffset = 1T\n", true, 9, "offset = 1T: the 4K written there would "
	    "end past p0.ld0 (256M)");
	good("a poison that ends at the LD's last byte",
	     "[fault a]\nkind = poison\ntarget = p0.ld0\nat = 1s\noffset = 262136K\n"
	     "length = 8K\n");
	bad("... one that ends past it", "[fault a]\nkind = poison\ntarget = p0.ld0\n"
	    "at = 1s\nlength = 8K\noffset = 262140K\n", true, 10,
	    "the 8K written there would end past p0.ld0");
	good("a media event's 64 bytes at the LD's last line (its length is a poison's)",
	     "[fault a]\nkind = gm-event\ntarget = p0.ld1\nat = 1s\n"
	     "offset = 268435392\n");
	bad("a random fault that may poison: the smallest LD it may hit",
	    "[fault a]\nkind = random\nkinds = revoke-capacity poison\nat = 1s\n"
	    "offset = 256M\n", true, 9, "end past p0.ld0 (256M), the smallest LD it may hit");
	good("an offset that no kind of the fault uses is not checked",
	     "[fault a]\nkind = kill-pool-node\ntarget = p0\nat = 1s\noffset = 1T\n");
	bad("a range larger than the LD", "[fault a]\nkind = dram-event\ntarget = p1\n"
	    "at = 1s\nrange = 1G\n", true, 9, "range = 1G: larger than p1.ld0 (256M)");
	bad("a length that a random offset would carry past the LD",
	    "[fault a]\nkind = poison\nat = 1s\nrange = 256M\nlength = 8K\n", true, 9,
	    "length = 8K: with offset = random");
	good("... one that fits after any draw",
	     "[fault a]\nkind = poison\nat = 1s\nrange = 256M\nlength = 4K\n");
	return tap_failed != 0;
}
