/* SPDX-License-Identifier: MIT */
/*
 * Host side of the guest agent channel (docs/agent-protocol.md): a
 * virtio-serial port whose host end is a unix socket that QEMU serves.
 * Requests {"id","cmd","args"} get replies {"id","ok","result"|"error"};
 * the agent announces itself with {"event":"hello"} until spoken to.
 */
#ifndef CXLBED_AGENT_H
#define CXLBED_AGENT_H

#include "qemu/jsonline.h"

struct agent {
	struct jsonline *conn;
	guint next_id;
	JsonObject *hello;	/* the agent's hello event */
	GQueue events;		/* other events (log, ...), JsonObject * */
};

/* Connect to QEMU's end of the port and wait for the agent's hello. */
struct agent *agent_connect(const char *socket_path, FILE *log,
			    gint64 deadline_us, GError **error);
/*
 * The same, asking @hung(@ctx) every few seconds whether the guest can
 * still come up: when it returns a reason (owned), the wait ends then
 * with a time-out error that gives it.
 */
struct agent *agent_connect_watched(const char *socket_path, FILE *log,
				    gint64 deadline_us,
				    char *(*hung)(void *ctx), void *ctx,
				    GError **error);
void agent_free(struct agent *a);

/* One request; returns the "result" object (owned) or NULL with the error. */
JsonObject *agent_call(struct agent *a, const char *cmd, JsonObject *args,
		       gint64 deadline_us, GError **error);

/* The same in two steps, so requests to several hosts can run at once. */
guint agent_send(struct agent *a, const char *cmd, JsonObject *args,
		 GError **error);	/* the request id, 0 on error */
JsonObject *agent_wait(struct agent *a, const char *cmd, guint id,
		       gint64 deadline_us, GError **error);

/* Pull a reply for request id out of a message stream (exposed for tests). */
JsonObject *agent_match_reply(struct agent *a, JsonObject *msg, guint id,
			      bool *done, GError **error);

#endif
