/* SPDX-License-Identifier: MIT */
/*
 * jsonline: newline-delimited JSON over a stream socket.
 *
 * Both QMP and the guest agent channel frame messages as one JSON object
 * per line; this is the one place that reads, reassembles, bounds and logs
 * them. Blocking fd + poll() deadlines: the runner drives hosts one step
 * at a time and never needs a main loop for this.
 */
#ifndef CXLBED_JSONLINE_H
#define CXLBED_JSONLINE_H

#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdbool.h>
#include <stdio.h>

#define JSONLINE_MAX (1u << 20)	/* longest accepted line */

/* --verbose: also echo every message to stderr. */
extern bool jsonline_echo;

struct jsonline {
	int fd;
	GByteArray *buf;	/* bytes read, not yet returned as lines */
	FILE *log;		/* optional transcript; not owned */
	const char *log_tag;	/* e.g. "qmp" */
	bool eof;
};

/* Connect to a unix socket, retrying until it exists or the deadline passes. */
int jsonline_connect_unix(const char *path, gint64 deadline_us, GError **error);

struct jsonline *jsonline_new(int fd, FILE *log, const char *log_tag);
void jsonline_free(struct jsonline *c);	/* closes fd */

/*
 * Next complete line parsed as a JSON object. NULL on timeout (error code
 * G_IO_ERROR_TIMED_OUT), EOF (G_IO_ERROR_CONNECTION_CLOSED), an over-long
 * line or bad JSON (G_IO_ERROR_INVALID_DATA). Blank lines are skipped.
 */
JsonObject *jsonline_read(struct jsonline *c, gint64 deadline_us, GError **error);
/* The same in two steps: the next line as it came (blank lines skipped),
 * then that line as a JSON object (json_read.h's bounds). */
char *jsonline_read_line(struct jsonline *c, gint64 deadline_us, GError **error);
JsonObject *jsonline_parse(const char *line, gsize len, GError **error);

/* Feed bytes as if read (for tests); then jsonline_read() parses them. */
void jsonline_feed(struct jsonline *c, const void *data, gsize len);

bool jsonline_write(struct jsonline *c, JsonObject *obj, GError **error);

/* Serialize compactly (no newlines); a non-finite number becomes null. */
char *json_object_to_line(JsonObject *obj);

#endif
