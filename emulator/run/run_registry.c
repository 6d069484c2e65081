/* SPDX-License-Identifier: MIT */
#include "run/run_registry.h"
#include "common/paths.h"
#include "common/proc_ident.h"
#include "run/run_state.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define QEMU_GONE_MS 2000

static char *runs_dir(void)
{
	return g_build_filename(cxlbed_state_dir(), "runs", NULL);
}

static char *record_path(const char *run_id)
{
	g_autofree char *dir = runs_dir();
	g_autofree char *name = g_strconcat(run_id, ".json", NULL);

	return g_build_filename(dir, name, NULL);
}

bool run_registry_add(const char *run_id, const char *dir, const char *shm,
		      GError **error)
{
	g_autofree char *rd = runs_dir();
	g_autofree char *path = record_path(run_id);
	g_autofree char *abs = g_canonicalize_filename(dir, NULL);
	g_autoptr(JsonObject) rec = json_object_new();
	struct proc_ident self;

	if (g_mkdir_with_parents(rd, 0700) < 0) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "%s: %s", rd, g_strerror(errno));
		return false;
	}
	proc_ident_self(&self);
	json_object_set_string_member(rec, "run_id", run_id);
	json_object_set_string_member(rec, "dir", abs);
	json_object_set_object_member(rec, "owner", proc_ident_to_json(&self));
	if (shm)
		json_object_set_string_member(rec, "shm", shm);
	return run_json_save(path, rec, error);
}

void run_registry_remove(const char *run_id)
{
	g_autofree char *path = record_path(run_id);

	unlink(path);
}

/* What one sweep of one dead run did, for its report line. */
struct sweep_one {
	bool dry;
	GPtrArray *removed;	/* file names, segment names */
	GPtrArray *killed;	/* "QEMU pid N (HOST)" */
};

/* Any QEMU of the run still alive (PR_SET_PDEATHSIG should have taken it). */
static void kill_qemu(JsonObject *st, struct sweep_one *w)
{
	JsonObject *q = run_json_obj(st, "qemu");
	g_autoptr(GList) hosts = q ? json_object_get_members(q) : NULL;

	for (GList *l = hosts; l; l = l->next) {
		struct proc_ident id;
		gint64 end = g_get_monotonic_time() + QEMU_GONE_MS * 1000;

		if (!proc_ident_from_json(run_json_obj(q, l->data), &id) ||
		    !proc_ident_alive(&id))
			continue;
		g_ptr_array_add(w->killed, g_strdup_printf("QEMU pid %d (%s)", id.pid,
							   (char *)l->data));
		if (w->dry)
			continue;
		kill(id.pid, SIGKILL);
		while (proc_ident_alive(&id) && g_get_monotonic_time() < end)
			g_usleep(10 * 1000);
	}
}

/* Sockets, QEMU pid files and half-written state files: meaningless now. */
static void remove_leftovers(const char *dir, struct sweep_one *w)
{
	static const char *const patterns[] = {
		"qmp-*.sock", "agent-*.sock", "qemu-*.pid", "fm-qmp-*.sock",
		"fm-agent-*.sock", "fm.sock",
		"." RUN_STATE_FILE ".*", RUN_STATE_FILE ".??????",
	};
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	const char *name;

	while (d && (name = g_dir_read_name(d))) {
		for (size_t i = 0; i < G_N_ELEMENTS(patterns); i++) {
			g_autofree char *path = NULL;

			if (!g_pattern_match_simple(patterns[i], name))
				continue;
			path = g_build_filename(dir, name, NULL);
			if (w->dry || unlink(path) == 0)
				g_ptr_array_add(w->removed, g_strdup(name));
			break;
		}
	}
}

static void remove_segment(const char *shm, struct sweep_one *w)
{
	g_autofree char *file = NULL;

	if (!shm || !*shm)
		return;
	file = g_strconcat("/dev/shm", shm, NULL);
	for (guint i = 0; i < w->removed->len; i++)
		if (!strcmp(g_ptr_array_index(w->removed, i), file))
			return;
	if (w->dry ? g_file_test(file, G_FILE_TEST_EXISTS) : shm_unlink(shm) == 0)
		g_ptr_array_add(w->removed, g_steal_pointer(&file));
}

static void mark_killed(const char *dir, JsonObject *st, const struct sweep_one *w)
{
	g_autoptr(JsonObject) k = json_object_new();
	g_autofree char *now = run_state_now();
	JsonArray *removed = json_array_new();
	JsonArray *killed = json_array_new();
	g_autoptr(GError) err = NULL;

	for (guint i = 0; i < w->removed->len; i++)
		json_array_add_string_element(removed, g_ptr_array_index(w->removed, i));
	for (guint i = 0; i < w->killed->len; i++)
		json_array_add_string_element(killed, g_ptr_array_index(w->killed, i));
	json_object_set_string_member(k, "noticed_at", now);
	json_object_set_int_member(k, "noticed_by_pid", getpid());
	json_object_set_array_member(k, "removed", removed);
	json_object_set_array_member(k, "qemu_killed", killed);
	json_object_set_string_member(st, "state", "killed");
	json_object_set_object_member(st, "killed", g_steal_pointer(&k));
	if (!run_state_save(dir, st, &err))
		fprintf(stderr, "cxlbed: %s\n", err->message);
}

static char *joined(GPtrArray *a)
{
	g_ptr_array_add(a, NULL);
	char *s = g_strjoinv(", ", (char **)a->pdata);

	g_ptr_array_remove_index(a, a->len - 1);
	return s;
}

/*
 * Clean up after the dead run @run_id: its folder @dir if its state.json
 * is that run's, and segment @shm (also from the state). Says what it did.
 */
static void sweep_dead(const char *run_id, const char *dir, const char *shm,
		       const struct proc_ident *owner, bool dry, FILE *out)
{
	struct sweep_one w = {
		.dry = dry,
		.removed = g_ptr_array_new_with_free_func(g_free),
		.killed = g_ptr_array_new_with_free_func(g_free),
	};
	g_autoptr(JsonObject) st = dir ? run_state_load(dir) : NULL;
	bool ours = st && !g_strcmp0(run_json_str(st, "run_id"), run_id);
	const char *state = ours ? run_json_str(st, "state") : NULL;
	g_autofree char *what = NULL, *gone = NULL, *kills = NULL;

	if (ours) {
		kill_qemu(st, &w);
		remove_leftovers(dir, &w);
		remove_segment(run_json_str(st, "shm"), &w);
	}
	remove_segment(shm, &w);
	if (!g_strcmp0(state, "running")) {
		const char *detail = run_json_str(st, "detail");

		what = g_strdup_printf("cxlbed (pid %d) died at stage %s%s%s%s; %s/%s %s",
				       owner->pid, run_json_str(st, "stage") ?: "?",
				       detail ? " (" : "", detail ? detail : "",
				       detail ? ")" : "", dir, RUN_STATE_FILE,
				       dry ? "would say killed" : "now says killed");
		if (!dry)
			mark_killed(dir, st, &w);
	} else if (state) {
		what = g_strdup_printf("%s (%s)", state,
				       run_json_str(st, "outcome") ?: "no outcome");
	} else {
		what = g_strdup_printf("cxlbed (pid %d) died before %s/%s was written",
				       owner->pid, dir ? dir : "?", RUN_STATE_FILE);
	}
	gone = joined(w.removed);
	kills = joined(w.killed);
	if (out)
		fprintf(out, "%s run %s: %s%s%s%s%s\n", dry ? "would sweep" : "swept",
			run_id, what, w.killed->len ? (dry ? "; would kill " : "; killed ") : "",
			kills, w.removed->len ? (dry ? "; would remove " : "; removed ") : "",
			gone);
	g_ptr_array_unref(w.removed);
	g_ptr_array_unref(w.killed);
}

void run_sweep(FILE *out, bool dry_run, bool list_live, struct sweep_counts *counts)
{
	g_autofree char *rd = runs_dir();
	g_autoptr(GDir) d = g_dir_open(rd, 0, NULL);
	const char *name;

	while (d && (name = g_dir_read_name(d))) {
		g_autofree char *path = NULL;
		g_autoptr(JsonObject) rec = NULL;
		struct proc_ident owner;
		const char *id;

		if (!g_str_has_suffix(name, ".json"))
			continue;	/* a record being written */
		path = g_build_filename(rd, name, NULL);
		rec = run_json_load(path);
		id = run_json_str(rec, "run_id");
		/* Records are written whole (rename): a bad one is nobody's. */
		if (!id || !proc_ident_from_json(run_json_obj(rec, "owner"), &owner)) {
			if (!dry_run)
				unlink(path);
			continue;
		}
		if (proc_ident_alive(&owner)) {
			if (counts)
				counts->live++;
			if (out && list_live)
				fprintf(out, "live run %s (cxlbed pid %d, %s): left alone\n",
					id, owner.pid, run_json_str(rec, "dir") ?: "?");
			continue;
		}
		sweep_dead(id, run_json_str(rec, "dir"), run_json_str(rec, "shm"), &owner,
			   dry_run, out);
		if (counts)
			counts->dead++;
		if (!dry_run)
			unlink(path);
	}
}

/* @dir holds the state of a run whose cxlbed died while it ran? */
static void sweep_folder(const char *dir, FILE *out, bool dry_run,
			 struct sweep_counts *counts)
{
	g_autoptr(JsonObject) st = run_state_load(dir);
	struct proc_ident owner;
	const char *id = run_json_str(st, "run_id");

	if (!id || g_strcmp0(run_json_str(st, "state"), "running") ||
	    !proc_ident_from_json(run_json_obj(st, "owner"), &owner) ||
	    proc_ident_alive(&owner))
		return;
	sweep_dead(id, dir, NULL, &owner, dry_run, out);
	if (counts)
		counts->dead++;
	if (!dry_run)
		run_registry_remove(id);
}

void run_sweep_folders(const char *root, FILE *out, bool dry_run,
		       struct sweep_counts *counts)
{
	g_autoptr(GDir) d = g_dir_open(root, 0, NULL);
	const char *name;

	while (d && (name = g_dir_read_name(d))) {
		g_autofree char *dir = g_build_filename(root, name, NULL);
		g_autoptr(GDir) sub = NULL;
		const char *inner;

		if (!g_file_test(dir, G_FILE_TEST_IS_DIR))
			continue;
		sweep_folder(dir, out, dry_run, counts);
		/* a table's folder holds one run folder per topology */
		sub = g_dir_open(dir, 0, NULL);
		while (sub && (inner = g_dir_read_name(sub))) {
			g_autofree char *run = g_build_filename(dir, inner, NULL);

			if (g_file_test(run, G_FILE_TEST_IS_DIR))
				sweep_folder(run, out, dry_run, counts);
		}
	}
}
