/* SPDX-License-Identifier: MIT */
/*
 * Run isolation with real processes and files, no QEMU: run ids unique in
 * one process, the --out rules, the exclusive claim of a folder, the
 * identity that tells a live owner from a dead one or a recycled pid, and
 * the sweep that cleans after a SIGKILLed owner (sockets, pid files, shm
 * segment, a surviving child) while leaving a live run alone.
 */
#include "tap.h"
#include "common/paths.h"
#include "common/proc_ident.h"
#include "run/run_dir.h"
#include "run/run_registry.h"
#include "run/run_state.h"
#include "run/timing_run.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *tmp;

static char *at(const char *name)
{
	return g_build_filename(tmp, name, NULL);
}

static void touch(const char *dir, const char *name)
{
	g_autofree char *p = g_build_filename(dir, name, NULL);

	g_file_set_contents(p, "", 0, NULL);
}

static bool exists_in(const char *dir, const char *name)
{
	g_autofree char *p = g_build_filename(dir, name, NULL);

	return g_file_test(p, G_FILE_TEST_EXISTS);
}

static bool shm_exists(const char *shm)
{
	g_autofree char *p = g_strconcat("/dev/shm", shm, NULL);

	return g_file_test(p, G_FILE_TEST_EXISTS);
}

static const char *state_str(const char *dir, const char *member)
{
	static char buf[256];
	g_autoptr(JsonObject) st = run_state_load(dir);

	g_strlcpy(buf, run_json_str(st, member) ?: "(none)", sizeof(buf));
	return buf;
}

static void test_ids(void)
{
	g_autofree char *a = run_id_new("direct");
	g_autofree char *b = run_id_new("direct");
	g_autofree char *pid = g_strdup_printf("-%d", (int)getpid());

	ok(g_regex_match_simple("^[0-9]{8}-[0-9]{6}-[0-9]+(\\.[0-9]+)?-direct$", a, 0, 0),
	   "run id is UTC second, pid, name: %s", a);
	ok(strstr(a, pid) != NULL, "run id carries this process's pid");
	ok(strcmp(a, b) != 0, "two ids made in one process differ (%s, %s)", a, b);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_mode & 07777 : 0;
}

static void test_out_rules(void)
{
	g_autofree char *fresh = at("fresh/deeper");
	g_autofree char *empty = at("empty");
	g_autofree char *full = at("full");
	g_autofree char *file = at("file");
	g_autofree char *under_file = at("file/out");
	g_autofree char *comma = at("a,b");
	g_autoptr(GError) err = NULL;
	bool created;

	g_mkdir(empty, 0755);
	g_mkdir(full, 0755);
	touch(full, "summary.json");
	touch(tmp, "file");

	ok(run_out_acceptable(fresh, "--out", NULL), "a path that does not exist yet is accepted");
	ok(run_out_acceptable(empty, "--out", NULL), "an empty folder is accepted");
	ok(!run_out_acceptable(full, "--out", &err) && strstr(err->message, "not empty"),
	   "a non-empty folder is refused");
	diag("%s", err ? err->message : "");
	g_clear_error(&err);
	ok(!run_out_acceptable(file, "--out", &err), "an existing file is refused");
	g_clear_error(&err);
	ok(!run_out_acceptable(under_file, "--out", &err), "a path under a file is refused");
	g_clear_error(&err);
	ok(!run_out_acceptable(comma, "--out", &err) && strstr(err->message, "','"),
	   "a path with ',' is refused");
	g_clear_error(&err);
	if (geteuid() == 0) {
		skip("root may write any folder: no unwritable folder to try");
	} else {
		g_autofree char *ro = at("ro");
		g_autofree char *in_ro = at("ro/out");

		g_mkdir(ro, 0555);
		ok(!run_out_acceptable(in_ro, "--out", &err), "a path in a read-only folder is refused");
		g_clear_error(&err);
	}
	ok(!g_file_test(fresh, G_FILE_TEST_EXISTS) && !g_file_test(comma, G_FILE_TEST_EXISTS),
	   "checking creates nothing");

	/* under a umask that lets the group in, as a shared machine's may */
	mode_t umask_was = umask(002);

	ok(run_dir_make(fresh, true, &created, NULL) && created, "results/RUN_ID made exclusively");
	ok(mode_of(fresh) == 0700, "... mode 0700 under umask 002 (got %04o)", mode_of(fresh));
	ok(!run_dir_make(fresh, true, &created, &err) && !created,
	   "a second exclusive make of the same folder fails");
	g_clear_error(&err);
	ok(run_dir_make(empty, false, &created, NULL) && !created, "an empty --out folder is taken");
	ok(mode_of(empty) == 0700, "... and made the user's alone, 0700 (got %04o)",
	   mode_of(empty));
	ok(!run_dir_make(full, false, &created, &err), "a non-empty --out folder is not");
	g_clear_error(&err);
	umask(umask_was);
}

static void test_claim(void)
{
	g_autofree char *dir = at("claimed");
	g_autoptr(GError) err = NULL;
	struct run_state *a, *b;

	g_mkdir(dir, 0755);
	a = run_state_create(dir, "id-a", NULL, NULL);
	b = run_state_create(dir, "id-b", NULL, &err);
	ok(a && !b && g_error_matches(err, G_FILE_ERROR, G_FILE_ERROR_EXIST),
	   "state.json claims the folder: a second run is refused");
	is_str(state_str(dir, "run_id"), "id-a", "the first run keeps it");
	run_state_stage(a, "workloads", "chase on %s", "h0");
	is_str(state_str(dir, "stage"), "workloads", "a stage is written at once");
	is_str(state_str(dir, "detail"), "chase on h0", "with its detail");
	run_state_end(a, "pass");
	is_str(state_str(dir, "state"), "ended", "the end is written");
	is_str(state_str(dir, "outcome"), "pass", "with how it ended");
	ok(!exists_in(dir, ".state.json.id-a") && !exists_in(dir, ".state.json.id-b"),
	   "no temporary file is left");
	run_state_free(a, false);
}

static void test_identity(void)
{
	struct proc_ident self, child, recycled;
	pid_t pid;
	int st;

	ok(proc_ident_self(&self) && proc_ident_alive(&self), "this process is alive");
	recycled = self;
	recycled.start += 1;
	ok(!proc_ident_alive(&recycled), "same pid, other start time: not the same process");
	recycled = self;
	recycled.boot[0] = recycled.boot[0] == '0' ? '1' : '0';
	ok(!proc_ident_alive(&recycled), "same pid and start, other boot: not alive");
	pid = fork();
	if (pid == 0) {
		_exit(0);
	}
	g_usleep(100 * 1000);
	ok(!proc_ident_of(pid, &child), "a zombie is not a live process");
	waitpid(pid, &st, 0);
	ok(!proc_ident_of(pid, &child), "a reaped process is gone");
}

/* An owner that sets a run up like the runner does, then waits to die. */
static pid_t start_owner(const char *dir, const char *id, int *sleeper)
{
	int pfd[2];
	pid_t pid;

	(void)!pipe(pfd);
	pid = fork();
	if (pid == 0) {
		g_autofree char *shm = timing_shm_name(id);
		struct run_state *st;
		pid_t q;

		run_registry_add(id, dir, shm, NULL);
		g_mkdir(dir, 0755);
		st = run_state_create(dir, id, shm, NULL);
		timing_run_create_segment(id, NULL);
		q = fork();
		if (q == 0) {
			execlp("sleep", "sleep", "60", NULL);
			_exit(127);
		}
		g_usleep(50 * 1000);	/* let it exec */
		run_state_qemu(st, "h0", q);
		touch(dir, "qmp-h0.sock");
		touch(dir, "agent-h0.sock");
		touch(dir, "qemu-h0.pid");
		touch(dir, "console-h0.log");
		run_state_stage(st, "workloads", "chase on h0 node 1");
		(void)!write(pfd[1], &q, sizeof(q));
		pause();
		_exit(0);
	}
	close(pfd[1]);
	(void)!read(pfd[0], sleeper, sizeof(*sleeper));
	close(pfd[0]);
	return pid;
}

static void test_sweep(void)
{
	g_autofree char *dead = at("dead-run");
	g_autofree char *live = at("live-run");
	g_autofree char *live_shm = timing_shm_name("unit-live");
	g_autofree char *dead_shm = timing_shm_name("unit-dead");
	g_autofree char *record = g_build_filename(cxlbed_state_dir(), "runs",
						   "unit-dead.json", NULL);
	struct proc_ident sleeper_id;
	struct sweep_counts n = { 0 };
	struct run_state *mine;
	int sleeper = 0;
	pid_t owner;
	FILE *devnull = fopen("/dev/null", "w");

	/* A live run: this very process owns it. */
	ok(run_registry_add("unit-live", live, live_shm, NULL), "a live run registers");
	g_mkdir(live, 0755);
	mine = run_state_create(live, "unit-live", live_shm, NULL);
	timing_run_create_segment("unit-live", NULL);
	touch(live, "qmp-h0.sock");
	touch(live, "qemu-h0.pid");
	run_state_stage(mine, "booting", "h0");

	owner = start_owner(dead, "unit-dead", &sleeper);
	ok(proc_ident_of(sleeper, &sleeper_id), "the dead run's child runs (pid %d)", sleeper);
	kill(owner, SIGKILL);
	waitpid(owner, NULL, 0);

	run_sweep(devnull, true, false, &n);
	ok(n.dead == 1 && n.live == 1, "dry run: 1 dead, 1 live (got %u, %u)", n.dead, n.live);
	ok(exists_in(dead, "qmp-h0.sock") && shm_exists(dead_shm) &&
	   proc_ident_alive(&sleeper_id) && g_file_test(record, G_FILE_TEST_EXISTS),
	   "a dry run changes nothing");
	is_str(state_str(dead, "state"), "running", "its state still says running");

	n = (struct sweep_counts){ 0 };
	run_sweep(devnull, false, false, &n);
	ok(n.dead == 1 && n.live == 1, "sweep: 1 dead, 1 live (got %u, %u)", n.dead, n.live);
	is_str(state_str(dead, "state"), "killed", "the dead run's state says killed");
	is_str(state_str(dead, "stage"), "workloads", "at the stage it had reached");
	ok(!exists_in(dead, "qmp-h0.sock") && !exists_in(dead, "agent-h0.sock") &&
	   !exists_in(dead, "qemu-h0.pid"), "its sockets and pid file are gone");
	ok(exists_in(dead, "console-h0.log"), "its logs stay");
	ok(!shm_exists(dead_shm), "its shm segment is gone");
	ok(!proc_ident_alive(&sleeper_id), "its surviving child was killed");
	ok(!g_file_test(record, G_FILE_TEST_EXISTS), "its register entry is gone");

	ok(exists_in(live, "qmp-h0.sock") && exists_in(live, "qemu-h0.pid") &&
	   shm_exists(live_shm), "the live run's files and segment are untouched");
	is_str(state_str(live, "state"), "running", "the live run still says running");
	is_str(state_str(live, "stage"), "booting", "at its own stage");

	n = (struct sweep_counts){ 0 };
	run_sweep(devnull, false, false, &n);
	ok(n.dead == 0 && n.live == 1, "a second sweep finds nothing more to do");

	run_state_end(mine, "pass");
	run_state_free(mine, false);
	run_registry_remove("unit-live");
	timing_run_cleanup("unit-live");
	fclose(devnull);
}

/* A folder whose run the register lost (another state folder). */
static void test_sweep_folders(void)
{
	g_autofree char *root = at("results");
	g_autofree char *dir = g_build_filename(root, "lost", NULL);
	g_autofree char *record = g_build_filename(cxlbed_state_dir(), "runs",
						   "unit-lost.json", NULL);
	struct sweep_counts n = { 0 };
	FILE *devnull = fopen("/dev/null", "w");
	int sleeper;
	pid_t owner;

	g_mkdir(root, 0755);
	owner = start_owner(dir, "unit-lost", &sleeper);
	kill(owner, SIGKILL);
	waitpid(owner, NULL, 0);
	unlink(record);
	run_sweep_folders(root, devnull, false, &n);
	ok(n.dead == 1, "a run folder the register lost is found under results/");
	is_str(state_str(dir, "state"), "killed", "and marked killed");
	ok(!exists_in(dir, "agent-h0.sock") && !shm_exists("/cxlbed-unit-lost"),
	   "its socket and segment are gone");
	fclose(devnull);
}

int main(void)
{
	g_autofree char *state = NULL;

	tmp = g_dir_make_tmp("cxlbed-unit-XXXXXX", NULL);
	state = at("state");
	g_setenv("CXLBED_STATE_DIR", state, TRUE);

	test_ids();
	test_out_rules();
	test_claim();
	test_identity();
	test_sweep();
	test_sweep_folders();

	g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", tmp);
	(void)!system(cmd);
	plan(tap_n);
	return done_testing();
}
