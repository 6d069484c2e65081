// SPDX-License-Identifier: MIT
/*
 * Agent wire protocol: line framing, request parsing, reply formatting,
 * hex for binary payloads.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

void lb_init(struct linebuf *lb)
{
	memset(lb, 0, sizeof(*lb));
}

void lb_free(struct linebuf *lb)
{
	free(lb->buf);
	lb_init(lb);
}

int lb_feed(struct linebuf *lb, const char *data, size_t n)
{
	if (lb->len + n + 1 > lb->cap) {
		size_t cap = lb->cap ? lb->cap : 4096;
		char *p;

		while (cap < lb->len + n + 1)
			cap *= 2;
		p = realloc(lb->buf, cap);
		if (!p)
			return -ENOMEM;
		lb->buf = p;
		lb->cap = cap;
	}
	memcpy(lb->buf + lb->len, data, n);
	lb->len += n;
	return 0;
}

/* Drop the first n bytes of the buffer. */
static void lb_consume(struct linebuf *lb, size_t n)
{
	memmove(lb->buf, lb->buf + n, lb->len - n);
	lb->len -= n;
}

int lb_next(struct linebuf *lb, char **line)
{
	char *nl;

	*line = NULL;
	for (;;) {
		nl = lb->len ? memchr(lb->buf, '\n', lb->len) : NULL;
		if (lb->discarding) {
			if (!nl) {
				lb->len = 0;	/* keep memory bounded */
				return 0;
			}
			lb_consume(lb, nl - lb->buf + 1);
			lb->discarding = false;
			continue;
		}
		if (!nl) {
			if (lb->len > PROTO_MAX_LINE) {
				/* Report once, then skip the rest of it. */
				lb->len = 0;
				lb->discarding = true;
				return -E2BIG;
			}
			return 0;
		}
		size_t n = nl - lb->buf;

		if (n > PROTO_MAX_LINE) {
			lb_consume(lb, n + 1);
			return -E2BIG;
		}
		*line = malloc(n + 1);
		if (!*line)
			return -ENOMEM;
		memcpy(*line, lb->buf, n);
		(*line)[n] = '\0';
		/* Tolerate CRLF from hand-typed sessions. */
		if (n && (*line)[n - 1] == '\r')
			(*line)[n - 1] = '\0';
		lb_consume(lb, n + 1);
		return 1;
	}
}

int proto_parse_request(const char *line, struct request *req,
			char *err, size_t errlen)
{
	enum json_tokener_error jerr;
	json_object *v;

	memset(req, 0, sizeof(*req));
	req->id = -1;
	req->root = json_tokener_parse_verbose(line, &jerr);
	if (!req->root) {
		snprintf(err, errlen, "invalid JSON: %s",
			 json_tokener_error_desc(jerr));
		return -1;
	}
	if (!json_object_is_type(req->root, json_type_object)) {
		snprintf(err, errlen, "request is not a JSON object");
		return -1;
	}
	if (json_object_object_get_ex(req->root, "id", &v)) {
		if (!json_object_is_type(v, json_type_int)) {
			snprintf(err, errlen, "\"id\" must be an integer");
			return -1;
		}
		req->id = json_object_get_int64(v);
		req->has_id = true;
	} else {
		snprintf(err, errlen, "missing \"id\"");
		return -1;
	}
	if (!json_object_object_get_ex(req->root, "cmd", &v) ||
	    !json_object_is_type(v, json_type_string)) {
		snprintf(err, errlen, "missing or non-string \"cmd\"");
		return -1;
	}
	req->cmd = json_object_get_string(v);
	if (json_object_object_get_ex(req->root, "args", &v) &&
	    !json_object_is_type(v, json_type_null)) {
		if (!json_object_is_type(v, json_type_object)) {
			snprintf(err, errlen, "\"args\" must be an object");
			return -1;
		}
		req->args = v;
	} else {
		req->args = json_object_new_object();
		json_object_object_add(req->root, "args", req->args);
	}
	return 0;
}

void request_free(struct request *req)
{
	json_object_put(req->root);
	memset(req, 0, sizeof(*req));
}

int64_t arg_int(json_object *args, const char *key, int64_t def)
{
	json_object *v;

	if (!args || !json_object_object_get_ex(args, key, &v) ||
	    json_object_is_type(v, json_type_null))
		return def;
	return json_object_get_int64(v);
}

const char *arg_str(json_object *args, const char *key, const char *def)
{
	json_object *v;

	if (!args || !json_object_object_get_ex(args, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return def;
	return json_object_get_string(v);
}

static int hex_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

long hex_decode(const char *hex, unsigned char *out, size_t outlen,
		char *err, size_t errlen)
{
	size_t n = strlen(hex), i;

	if (n % 2) {
		snprintf(err, errlen, "hex has an odd number of digits (%zu)", n);
		return -1;
	}
	if (n / 2 > outlen) {
		snprintf(err, errlen, "hex too long: %zu bytes, at most %zu",
			 n / 2, outlen);
		return -1;
	}
	for (i = 0; i < n; i += 2) {
		int hi = hex_nibble(hex[i]), lo = hex_nibble(hex[i + 1]);

		if (hi < 0 || lo < 0) {
			size_t bad = hi < 0 ? i : i + 1;
			unsigned char c = (unsigned char)hex[bad];

			/* Quote only printable ASCII: the message goes into JSON. */
			if (c >= 0x20 && c < 0x7f)
				snprintf(err, errlen, "bad hex digit '%c' at position %zu",
					 c, bad);
			else
				snprintf(err, errlen, "bad hex digit (byte 0x%02x) at position %zu",
					 c, bad);
			return -1;
		}
		out[i / 2] = (unsigned char)(hi << 4 | lo);
	}
	return (long)(n / 2);
}

void hex_encode(const unsigned char *in, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * n] = '\0';
}

/* One object per line: plain output never contains a raw newline. */
static char *to_line(json_object *obj)
{
	const char *s = json_object_to_json_string_ext(obj,
			JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t n = strlen(s);
	char *line = malloc(n + 2);

	if (line) {
		memcpy(line, s, n);
		line[n] = '\n';
		line[n + 1] = '\0';
	}
	json_object_put(obj);
	return line;
}

static json_object *reply_head(const struct request *req, bool ok)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "id", req && req->has_id ?
			       json_object_new_int64(req->id) : NULL);
	json_object_object_add(o, "ok", json_object_new_boolean(ok));
	return o;
}

char *proto_reply_ok(const struct request *req, json_object *result)
{
	json_object *o = reply_head(req, true);

	json_object_object_add(o, "result",
			       result ? result : json_object_new_object());
	return to_line(o);
}

char *proto_reply_err(const struct request *req, const char *msg)
{
	json_object *o = reply_head(req, false);

	json_object_object_add(o, "error", json_object_new_string(msg));
	return to_line(o);
}

char *proto_event(const char *name, json_object *fields)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "event", json_object_new_string(name));
	if (fields) {
		json_object_object_foreach(fields, k, v)
			json_object_object_add(o, k, json_object_get(v));
		json_object_put(fields);
	}
	return to_line(o);
}
