/* SPDX-License-Identifier: MIT */
/* Shared by the fabric manager's files; not part of its API (fm.h). */
#ifndef CXLBED_FM_PRIV_H
#define CXLBED_FM_PRIV_H

#include "fm/fm.h"
#include "fm/fm_map.h"
#include "qemu/agent.h"
#include "qemu/qmp.h"

struct tm_shared;

/* The worker's tick: requests, the owner's tick, demand, samples. */
#define WORKER_TICK_US (100 * 1000)

struct fm_host {
	const struct cb_host *h;
	struct qmp *qmp;	/* the FM's own monitor */
	struct agent *agent;	/* the agent on org.cxlbed.fm */
	FILE *log;		/* fm-HOST.log: that traffic */
	bool broken;		/* a connection failed: no more operations */
	/* fm_timing.c, with the timing model only */
	bool timing_probed;
	char *timing_base;	/* the host's plugin config as the run wrote it */
	struct tm_shared *shm;	/* the run's timing segment */
	unsigned int reloads;	/* config rewrites */
};

enum fm_req_kind { FM_REQ_BIND, FM_REQ_UNBIND, FM_REQ_PHASE };

/* One operation for the worker; answered when @wait. */
struct fm_req {
	enum fm_req_kind kind;
	char *ld, *pool, *host, *mode, *phase;
	char *source;		/* "event:NAME", "control", "demand" */
	bool expect_refused;
	bool wait;
	GMutex m;
	GCond c;
	bool done;
	JsonObject *reply;	/* {"ok":...} as the control socket sends it */
};

struct fm {
	const struct cb_topology *t;
	struct fm_config cfg;
	char *dir;
	GMutex lock;		/* map, log, samples, checks */
	struct fm_map *map;
	GPtrArray *hosts;	/* struct fm_host * */
	GAsyncQueue *queue;	/* struct fm_req * */
	GThread *worker, *control;
	int listen_fd;
	gint stop;
	gint worker_done;	/* no more requests will be taken */
	bool started;
	JsonArray *log;		/* pool.events[] */
	JsonArray *samples;	/* pool.samples[] */
	GPtrArray *checks;	/* struct res_check *, added at fm_stop */
	GHashTable *phases;	/* workload phases begun */
	GHashTable *want;	/* host id -> gint64 bytes wanted, not yet bound */
	GHashTable *want_how;	/* host id -> its last demand's {mode, avoid} */
	double next_sample_s;
	unsigned int binds, unbinds;
	GPtrArray *removals;	/* fm_direct.c: surprise removals under way */
};

/* fm_base.c */
double fm_now_s(const struct fm *fm);
struct fm_host *fm_host_of(struct fm *fm, const char *id);

/* fm_ops.c: QMP on the FM's monitor (a failing monitor marks @fh broken);
 * is QEMU's device @id there (-1: cannot say); drop a memory backend. */
JsonNode *fm_qmp_do(struct fm_host *fh, const char *cmd, JsonObject *args,
		    GError **error);
int fm_device_present(struct fm_host *fh, const char *id);
bool fm_drop_backend(struct fm_host *fh, const char *backend);
/* fm_ops.c: one bind or unbind, start to end (worker thread). */
JsonObject *fm_do(struct fm *fm, const struct fm_req *r);
/* fm_ops.c: the guests' use of their LDs into the map, and a sample. */
void fm_sample(struct fm *fm);

/* fm_control.c */
bool fm_control_start(struct fm *fm, GError **error);
/*
 * One line from RUN/fm.sock (@len bytes, no newline) answered: the reply
 * object, always one ({"ok": false, "error": ...} for a bad request),
 * with the request's "id". A bind or unbind waits for the worker.
 */
JsonObject *fm_control_answer(struct fm *fm, const char *line, gsize len);
void fm_control_stop(struct fm *fm);
JsonObject *fm_status(struct fm *fm);	/* takes the lock */

/* fm_requests.c */
struct fm_req *fm_req_new(enum fm_req_kind kind, const char *source);
void fm_req_free(struct fm_req *r);
/* Queue @r; when r->wait, block until the worker answers and return its
 * reply (owned), else NULL. */
JsonObject *fm_submit(struct fm *fm, struct fm_req *r);

#endif
