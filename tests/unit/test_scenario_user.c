/* SPDX-License-Identifier: MIT */
/* Scenario keys for the user's own programs: packages, files, command. */
#include "scenario_test.h"
#include "run/guest_layer.h"

#include <glib/gstdio.h>
#include <sys/stat.h>

static struct scenario *load(const char *text, GError **err)
{
	g_autofree char *path = write_file("s.scn", text);

	return scenario_load(path, err);
}

static void good(void)
{
	g_autoptr(GError) err = NULL;
	g_autofree char *exe = write_file("mybench", "#!/bin/sh\necho hi\n");
	struct scenario *s;

	g_free(write_file("input.dat", "x"));	/* named in files = below */
	chmod(exe, 0755);
	s = load("[scenario]\ntopology = t.topo\n"
		 "packages = sysbench numactl, redis-tools numactl\n"
		 "files = mybench input.dat input.dat:/opt/in.dat\n"
		 "[workload sb]\ncommand = numactl --membind={node} sysbench memory run\n"
		 "nodes = all\nclock-check = on\n"
		 "[workload once]\ncommand = redis-benchmark -n 10\n"
		 "setup = redis-server --daemonize yes\ncleanup = redis-cli shutdown\n", &err);
	ok(s != NULL, "a scenario with packages, files and commands loads");
	if (err)
		diag("  %s", err->message);
	if (!s) {
		for (int i = 0; i < 7; i++)
			ok(0, "(not loaded)");
		return;
	}
	ok(g_strv_length(s->packages) == 3 && !strcmp(s->packages[0], "numactl") &&
	   !strcmp(s->packages[2], "sysbench") && s->packages_src.line == 3,
	   "packages: sorted, each once, line kept");
	ok(s->files->len == 3, "three files");
	if (s->files->len == 3) {
		struct scn_file *f0 = g_ptr_array_index(s->files, 0);
		struct scn_file *f1 = g_ptr_array_index(s->files, 1);
		struct scn_file *f2 = g_ptr_array_index(s->files, 2);

		ok(!strcmp(f0->guest, "/usr/bin/mybench") && g_str_has_prefix(f0->host, dir) &&
		   !strcmp(f1->guest, "/root/input.dat") && !strcmp(f2->guest, "/opt/in.dat"),
		   "an executable goes to /usr/bin, other files to /root, or where named");
	} else {
		ok(0, "an executable goes to /usr/bin, other files to /root, or where named");
	}
	ok(guest_layer_wanted(s), "a layer is wanted");
	{
		struct scn_workload *a = g_ptr_array_index(s->workloads, 0);
		struct scn_workload *b = g_ptr_array_index(s->workloads, 1);

		ok(a->command && !a->program && a->per_node && a->clock_check,
		   "command workload: per node when asked, clock-check");
		ok(b->command && !b->per_node && !b->per_dax && !b->clock_check &&
		   !strcmp(b->setup, "redis-server --daemonize yes") &&
		   !strcmp(b->cleanup, "redis-cli shutdown"),
		   "a command runs once by default; setup and cleanup kept");
	}
	{
		g_autoptr(GError) e2 = NULL;
		char *more[] = { "stress-ng", "numactl", NULL };
		char *wrong[] = { "Bad_Name", NULL };

		ok(scenario_add_packages(s, more, &e2) && g_strv_length(s->packages) == 4 &&
		   !scenario_add_packages(s, wrong, &e2), "--packages merge; a bad name is refused");
	}
	scenario_free(s);
}

/* The cache key moves with the package list and with a carried file. */
static void key(void)
{
	g_autoptr(GError) err = NULL;
	g_autofree char *exe = write_file("tool", "v1");
	g_autofree char *k1 = NULL, *k2 = NULL, *k3 = NULL, *k4 = NULL;
	struct scenario *s = load("[scenario]\ntopology = t.topo\npackages = sysbench\n"
				  "files = tool\n", &err);
	char *more[] = { "numactl", NULL };

	if (!g_file_test(SRCDIR "/" GUEST_BASE_MANIFEST, G_FILE_TEST_EXISTS)) {
		for (int i = 0; i < 4; i++)
			skip("guest image not built (no initramfs.manifest)");
		scenario_free(s);
		return;
	}
	g_setenv("CXLBED_ROOT", SRCDIR, TRUE);
	k1 = guest_layer_key(s, NULL, &err);
	k2 = guest_layer_key(s, NULL, &err);
	ok(k1 && k2 && !strcmp(k1, k2), "same list and files: same key");
	g_file_set_contents(exe, "v2 longer", -1, NULL);
	k3 = guest_layer_key(s, NULL, &err);
	ok(k3 && strcmp(k1, k3), "a carried file changed: new key");
	g_usleep(20000);
	g_file_set_contents(exe, "v2 longer", -1, NULL);
	{
		g_autofree char *k3b = guest_layer_key(s, NULL, &err);

		ok(k3b && !strcmp(k3, k3b), "rewritten with the same contents: same key");
	}
	scenario_add_packages(s, more, &err);
	k4 = guest_layer_key(s, NULL, &err);
	ok(k4 && strcmp(k3, k4), "another package: new key");
	scenario_free(s);
}

int main(void)
{
	g_autofree char *topo = NULL;

	scratch_dir("cxlbed-scnu-XXXXXX");
	topo = write_file("t.topo", "[host h0]\n");
	plan(21);
	good();
	key();
	bad("program and command", "[scenario]\ntopology = t.topo\n[workload w]\n"
	    "program = cxlbed-chase\ncommand = ls\n", 5, "both program and command");
	bad("{node} without nodes = all", "[scenario]\ntopology = t.topo\n[workload w]\n"
	    "command = numactl -m {node} ls\n", 4, "{node} needs nodes = all");
	bad("unknown placeholder", "[scenario]\ntopology = t.topo\n[workload w]\n"
	    "command = ls {nodes}\n", 4, "unknown placeholder {nodes}");
	bad("args with a command", "[scenario]\ntopology = t.topo\n[workload w]\n"
	    "command = ls\nargs = -l\n", 5, "takes no args");
	bad("clock-check on a program", "[scenario]\ntopology = t.topo\n[workload w]\n"
	    "program = cxlbed-chase\nclock-check = on\n", 5, "command workloads");
	bad("bad package name", "[scenario]\ntopology = t.topo\npackages = ok Bad_Name\n",
	    3, "'Bad_Name' is not a Debian package name");
	bad("missing host file", "[scenario]\ntopology = t.topo\nfiles = nope.bin\n",
	    3, "does not exist");
	bad("guest path escaping", "[scenario]\ntopology = t.topo\nfiles = t.topo:/a/../..\n",
	    3, "below /");
	{
		g_autoptr(GError) err = NULL;
		char *unknown[] = { "sysbench", "cxlbed-no-such-package", NULL };
		struct cb_src src = { .file = "x.scn", .line = 7 };

		g_autofree char *apt_cache = g_find_program_in_path("apt-cache");

		if (!apt_cache)
			skip("no apt-cache on this host");
		else
			ok(!guest_layer_check_packages(unknown, &src, &err) && err &&
			   err->code == CXLBED_ERROR_INPUT &&
			   g_str_has_prefix(err->message, "x.scn:7: ") &&
			   strstr(err->message, "'cxlbed-no-such-package'"),
			   "a package APT does not know: FILE:LINE and its name");
	}
	return tap_failed ? 1 : 0;
}
