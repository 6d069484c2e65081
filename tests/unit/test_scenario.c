/* SPDX-License-Identifier: MIT */
/*
 * Scenario files: what they accept, and FILE:LINE for what they do not
 * (inline cases here, and every tests/data/bad/ *.scn file, checked as
 * `cxlbed run` checks it: against its topology too).
 */
#include "scenario_test.h"
#include "bad_files.h"
#include "run/run_input.h"

#include <glib/gstdio.h>

/* A bad file is refused where `cxlbed run` refuses it: parsed, then
 * checked against its topology (run_input.h). */
static bool load_scenario(const char *path, GError **error)
{
	g_autoptr(scenario) s = scenario_load(path, error);
	g_autoptr(cb_topology) t = s ? topology_load(s->topology_path, error) : NULL;

	return t && run_input_check(s, t, s->timing, error);
}

int main(void)
{
	g_autoptr(GError) err = NULL;
	g_autoptr(GPtrArray) bad_scn = bad_files(".scn");
	g_autofree char *topo = NULL, *good = NULL;
	struct scenario *s;

	scratch_dir("cxlbed-scn-XXXXXX");
	plan(19 + bad_scn->len);
	for (guint i = 0; i < bad_scn->len; i++)
		check_bad_file(g_ptr_array_index(bad_scn, i), load_scenario);
	topo = write_file("t.topo", "[host h0]\n");
	good = write_file("good.scn",
		"# a comment\n[scenario]\nname = smoke\ntopology = t.topo\ntimeout = 60\n\n"
		"[workload lat]\nprogram = cxlbed-chase\nargs = --bytes 8M\nhosts = h0\n"
		"[workload once]\nprogram = cxlbed-stream\nnodes = none\ndax = all\n"
		"[workload far]\nprogram = cxlbed-chase\nnodes = cxl\n");
	s = scenario_load(good, &err);
	ok(s != NULL, "a good scenario loads");
	is_str(s ? s->name : NULL, "smoke", "name");
	ok(s && g_str_has_suffix(s->topology_path, "/t.topo") &&
	   g_str_has_prefix(s->topology_path, dir), "topology resolved next to the scenario");
	ok(s && s->workloads->len == 3 && s->timeout_s == 60, "three workloads, timeout 60 s");
	ok(s && s->timing && s->timing_skew_ns == 0, "timing on, the model's own skew bound");
	if (s && s->workloads->len == 3) {
		struct scn_workload *w0 = g_ptr_array_index(s->workloads, 0);
		struct scn_workload *w1 = g_ptr_array_index(s->workloads, 1);
		struct scn_workload *w2 = g_ptr_array_index(s->workloads, 2);

		ok(w0->per_node && !w1->per_node && !strcmp(w0->args[1], "8M") &&
		   w0->hosts && !strcmp(w0->hosts[0], "h0"), "per-node, args and hosts parsed");
		ok(!w0->per_dax && w1->per_dax, "dax = all: once per devdax region; default none");
		ok(w2->per_node && w2->cxl_nodes_only && !w0->cxl_nodes_only,
		   "nodes = cxl: once per CXL node; all: every node");
	} else {
		ok(0, "per-node, args and hosts parsed");
		ok(0, "dax = all: once per devdax region; default none");
		ok(0, "nodes = cxl: once per CXL node; all: every node");
	}
	scenario_free(s);

	s = scenario_load(topo, &err);
	ok(s && !strcmp(s->name, "default") && s->workloads->len == 2 &&
	   !strcmp(s->topology_path, topo), "a topology file runs the default workloads");
	scenario_free(s);

	{
		g_autofree char *skew = write_file("skew.scn", "[scenario]\ntopology = t.topo\n"
						   "timing-skew = 250ns\n");

		s = scenario_load(skew, &err);
		ok(s && s->timing_skew_ns == 250, "timing-skew = 250ns");
		scenario_free(s);
	}
	bad("timing-skew out of range", "[scenario]\ntopology = t.topo\ntiming-skew = 5ms\n",
	    3, "50ns to 1ms");
	bad("missing topology key", "[scenario]\nname = x\n", 1, "topology");
	bad("topology file missing", "[scenario]\ntopology = nope.topo\n", 2, "does not exist");
	bad("unknown key", "[scenario]\ntopology = t.topo\ncolour = blue\n", 3, "colour");
	bad("workload without program", "[scenario]\ntopology = t.topo\n[workload w]\nnodes = all\n", 3, "program");
	bad("unknown section", "[scenario]\ntopology = t.topo\n[colour c]\n", 3, "unknown section");
	bad("bad number", "[scenario]\ntopology = t.topo\ntimeout = soon\n", 3, "timeout");
	bad("bad dax value", "[scenario]\ntopology = t.topo\n[workload w]\n"
	    "program = cxlbed-chase\ndax = some\n", 5, "dax = 'some'");
	bad("together with dax = all", "[scenario]\ntopology = t.topo\n[workload w]\n"
	    "program = cxlbed-chase\nnodes = none\ndax = all\ntogether = on\n", 7,
	    "dax = none");
	return done_testing();
}
