/* SPDX-License-Identifier: MIT */
/*
 * RUN/state.json (schema cxlbed.state/1, docs/run-state.md): what a run is
 * doing, rewritten atomically (write + rename) at every stage, so that the
 * folder of a run that was killed says where it stopped. It names the
 * owning cxlbed (pid + start time + boot, proc_ident.h), each host's QEMU,
 * the shared segment, and at the end how the run ended; a later cxlbed that
 * finds the owner gone marks it "killed" (run_registry.c).
 */
#ifndef CXLBED_RUN_STATE_H
#define CXLBED_RUN_STATE_H

#include "common/proc_ident.h"

#include <json-glib/json-glib.h>
#include <stdbool.h>

#define RUN_STATE_SCHEMA "cxlbed.state/1"
#define RUN_STATE_FILE "state.json"

struct run_state;

/*
 * Create DIR/state.json, exclusively: it is what claims the folder. Fails
 * with G_FILE_ERROR_EXIST when another run holds it. @shm: the run's
 * shared segment name, or NULL.
 */
struct run_state *run_state_create(const char *dir, const char *run_id,
				   const char *shm, GError **error);
/* A stage begins (stage "booting", detail "h0"); @fmt may be NULL. */
void run_state_stage(struct run_state *st, const char *stage, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);
/* Host @host's QEMU is process @pid. */
void run_state_qemu(struct run_state *st, const char *host, int pid);
/* The run ended by itself: "pass", "fail", "interrupted by SIGINT". */
void run_state_end(struct run_state *st, const char *outcome);
/* Forget it; with @remove, delete the file too (a start that failed). */
void run_state_free(struct run_state *st, bool remove);

/* Reading another run's state: NULL if DIR has none or it does not parse. */
JsonObject *run_state_load(const char *dir);
bool run_state_save(const char *dir, JsonObject *state, GError **error);

/* One JSON object per file, written atomically; NULL if absent or unparsable. */
bool run_json_save(const char *path, JsonObject *obj, GError **error);
JsonObject *run_json_load(const char *path);
/* Member @member if it is a string (an object), else NULL. */
const char *run_json_str(JsonObject *o, const char *member);
JsonObject *run_json_obj(JsonObject *o, const char *member);

/* {"pid", "start", "boot"} and back. */
JsonObject *proc_ident_to_json(const struct proc_ident *id);
bool proc_ident_from_json(JsonObject *o, struct proc_ident *id);

/* "2026-05-09T14:15:03Z" now. */
char *run_state_now(void);

#endif
