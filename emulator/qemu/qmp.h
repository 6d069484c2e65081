/* SPDX-License-Identifier: MIT */
/*
 * QMP client: QEMU's machine protocol on its unix socket.
 *
 * Synchronous: qmp_execute() sends a command and reads until its return,
 * keeping asynchronous events (SHUTDOWN, DEVICE_DELETED, ...) in a queue
 * that the fabric manager and fault injector can drain later.
 */
#ifndef CXLBED_QMP_H
#define CXLBED_QMP_H

#include "qemu/jsonline.h"

struct qmp {
	struct jsonline *conn;
	GQueue events;		/* JsonObject *, oldest first */
	guint next_id;
	char *qemu_version;	/* from the greeting, e.g. "10.0.2" */
};

/* Connect, read the greeting, negotiate capabilities. */
struct qmp *qmp_connect(const char *socket_path, FILE *log,
			gint64 deadline_us, GError **error);
void qmp_free(struct qmp *q);

/*
 * Run one command. args may be NULL (a reference is taken). Returns the
 * "return" member (new reference; an empty object for commands that
 * return none) or NULL with the QMP error class and description.
 */
JsonNode *qmp_execute(struct qmp *q, const char *command, JsonObject *args,
		      gint64 deadline_us, GError **error);

/* Wait for an event by name (or any when NULL); returns it, owned. */
JsonObject *qmp_wait_event(struct qmp *q, const char *name,
			   gint64 deadline_us, GError **error);

/* Has an event of this name been seen (and queued)? */
bool qmp_event_seen(struct qmp *q, const char *name);

#endif
