/* SPDX-License-Identifier: MIT */
/*
 * JSON text from outside (result files, QMP, the agent, RUN/fm.sock) read
 * into json-glib nodes by a parser that bounds what it takes. json-glib's
 * own parser recurses once per nesting level (a line of 200,000 '[' blows
 * the stack), reads 1e400 as infinity, 99999999999999999999 as -1, keeps
 * the last of two members of the same name, truncates a string at \u0000,
 * and accepts comments and single quotes. This one reads RFC 8259 JSON and
 * nothing more.
 */
#ifndef CXLBED_JSON_READ_H
#define CXLBED_JSON_READ_H

#include <glib.h>
#include <json-glib/json-glib.h>

/* Deepest nesting of arrays and objects taken; cxlbed's own files nest < 16. */
#define JSON_READ_MAX_DEPTH 64

/*
 * @text (@len bytes; -1: up to its NUL) as one JSON value: nested at most
 * JSON_READ_MAX_DEPTH deep, every number finite, member names unique in
 * each object, strings UTF-8 without NUL. An integer is a G_TYPE_INT64
 * value; one above INT64_MAX that fits 64 bits keeps its bits (QEMU writes
 * uint64 so); any other number is a G_TYPE_DOUBLE. NULL and
 * CXLBED_ERROR_INPUT "NAME:LINE: column C: why" when it is not so.
 */
JsonNode *json_read_text(const char *name, const char *text, gssize len,
			 GError **error);
/* PATH's text as above; an unreadable file is CXLBED_ERROR_INPUT too. */
JsonNode *json_read_file(const char *path, GError **error);

/* "a string", "an object", ...: what @n holds, for messages. */
const char *json_read_type_name(JsonNode *n);

#endif
