/* SPDX-License-Identifier: MIT */
/*
 * Agent wire protocol: newline-delimited JSON objects (see
 * docs/agent-protocol.md). Framing, request parsing and reply formatting
 * only; this file knows nothing of CXL and is unit-tested on the host.
 */
#ifndef CXLBED_AGENT_PROTO_H
#define CXLBED_AGENT_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#define PROTO_VERSION 1
#define PROTO_MAX_LINE (1024 * 1024)	/* bytes, newline excluded */

/* Reassembles lines from arbitrary read() chunks. */
struct linebuf {
	char *buf;
	size_t len, cap;
	bool discarding;	/* inside an oversize line: drop until '\n' */
};

void lb_init(struct linebuf *lb);
void lb_free(struct linebuf *lb);
/* Append n bytes; returns 0 or -ENOMEM. */
int lb_feed(struct linebuf *lb, const char *data, size_t n);
/*
 * Take the next complete line: 1 and *line (malloc'd, NUL-terminated, no
 * newline; the caller frees it), 0 when no full line is buffered yet, or
 * -E2BIG once per line longer than PROTO_MAX_LINE (which is dropped).
 */
int lb_next(struct linebuf *lb, char **line);

struct request {
	int64_t id;		/* -1 when absent or unreadable */
	bool has_id;
	const char *cmd;	/* points into root */
	json_object *args;	/* never NULL: {} when absent; owned by root */
	json_object *root;	/* put with request_free() */
};

/* Parse one line; on failure returns -1 and a message in err. */
int proto_parse_request(const char *line, struct request *req,
			char *err, size_t errlen);
void request_free(struct request *req);

/* Typed argument helpers: missing keys yield the default. */
int64_t arg_int(json_object *args, const char *key, int64_t def);
const char *arg_str(json_object *args, const char *key, const char *def);

/*
 * Hex for binary payloads (dax-write/dax-read). hex_decode: even-length,
 * upper or lower case; returns the byte count written to out (at most
 * outlen), or -1 with a message in err. hex_encode writes 2n+1 chars
 * (lower case, NUL-terminated) to out.
 */
long hex_decode(const char *hex, unsigned char *out, size_t outlen,
		char *err, size_t errlen);
void hex_encode(const unsigned char *in, size_t n, char *out);

/*
 * Serializers: each returns a malloc'd line ending in '\n'. They consume
 * (put) the json_object passed in.
 */
char *proto_reply_ok(const struct request *req, json_object *result);
char *proto_reply_err(const struct request *req, const char *msg);
char *proto_event(const char *name, json_object *fields);

#endif
