/* SPDX-License-Identifier: MIT */
/* A strict JSON reader with a depth bound (json_read.h). */
#include "common/json_read.h"
#include "common/error.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct reader {
	const char *name;
	const char *start, *p, *end;
	int depth;
	GError **error;
};

static void fail_at(struct reader *r, const char *at, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);
static void fail_at(struct reader *r, const char *at, const char *fmt, ...)
{
	g_autofree char *why = NULL;
	int line = 1;
	const char *bol = r->start;
	va_list ap;

	if (r->error && *r->error)
		return;	/* the first error stands */
	for (const char *q = r->start; q < at; q++)
		if (*q == '\n') {
			line++;
			bol = q + 1;
		}
	va_start(ap, fmt);
	why = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	cxlbed_input_error(r->error, r->name, line, "column %ld: %s", (long)(at - bol) + 1, why);
}

/* What stands at @p, for "want X, found Y" messages. */
static const char *found(const struct reader *r)
{
	if (r->p >= r->end)
		return "the end of the text";
	if ((guchar)*r->p < 0x20 || (guchar)*r->p >= 0x7f)
		return "a byte that starts no JSON value";
	return NULL;
}

static void fail_want(struct reader *r, const char *want)
{
	const char *f = found(r);

	if (f)
		fail_at(r, r->p, "want %s, found %s", want, f);
	else
		fail_at(r, r->p, "want %s, found '%c'", want, *r->p);
}

static void skip_space(struct reader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static int hex4(const char *p)
{
	int v = 0;

	for (int i = 0; i < 4; i++) {
		int d = g_ascii_xdigit_value(p[i]);

		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* \uXXXX (and its low surrogate after a high one) at r->p, past the 'u'. */
static gunichar unicode_escape(struct reader *r, const char *esc)
{
	int hi, lo;

	if (r->end - r->p < 4 || (hi = hex4(r->p)) < 0) {
		fail_at(r, esc, "\\u wants four hex digits");
		return 0;
	}
	r->p += 4;
	if (hi >= 0xdc00 && hi <= 0xdfff) {
		fail_at(r, esc, "a low surrogate \\u%04x without a high one before it", hi);
		return 0;
	}
	if (hi < 0xd800 || hi > 0xdbff)
		return hi;
	if (r->end - r->p < 6 || r->p[0] != '\\' || r->p[1] != 'u' ||
	    (lo = hex4(r->p + 2)) < 0xdc00 || lo > 0xdfff) {
		fail_at(r, esc, "a high surrogate \\u%04x without a low one after it", hi);
		return 0;
	}
	r->p += 6;
	return 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
}

/* A string at r->p (its opening quote) into @out. */
static bool read_string(struct reader *r, GString *out)
{
	const char *open = r->p++;

	g_string_truncate(out, 0);
	for (;;) {
		const char *esc;
		gunichar ch;

		if (r->p >= r->end) {
			fail_at(r, open, "a string without its closing quote");
			return false;
		}
		if (*r->p == '"')
			break;
		if ((guchar)*r->p < 0x20) {
			fail_at(r, r->p, "a control character (0x%02x) in a string; JSON "
				"writes it escaped", (guchar)*r->p);
			return false;
		}
		if (*r->p != '\\') {
			g_string_append_c(out, *r->p++);
			continue;
		}
		esc = r->p++;
		if (r->p >= r->end) {
			fail_at(r, open, "a string without its closing quote");
			return false;
		}
		switch (*r->p++) {
		case '"': ch = '"'; break;
		case '\\': ch = '\\'; break;
		case '/': ch = '/'; break;
		case 'b': ch = '\b'; break;
		case 'f': ch = '\f'; break;
		case 'n': ch = '\n'; break;
		case 'r': ch = '\r'; break;
		case 't': ch = '\t'; break;
		case 'u':
			ch = unicode_escape(r, esc);
			if (r->error && *r->error)
				return false;
			if (!ch) {
				fail_at(r, esc, "\\u0000 in a string (a string here ends at NUL)");
				return false;
			}
			break;
		default:
			fail_at(r, esc, "an unknown escape in a string");
			return false;
		}
		g_string_append_unichar(out, ch);
	}
	r->p++;
	if (!g_utf8_validate(out->str, out->len, NULL)) {
		fail_at(r, open, "a string that is not UTF-8");
		return false;
	}
	return true;
}

static const char *digits(const char *p, const char *end)
{
	while (p < end && g_ascii_isdigit(*p))
		p++;
	return p;
}

/*
 * A number: -? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?. An integer
 * stays one while 64 bits hold it; otherwise a double, which must be finite.
 */
static JsonNode *read_number(struct reader *r)
{
	const char *s = r->p, *q = s;
	g_autofree char *text = NULL;
	bool integer = true;
	JsonNode *n;

	if (q < r->end && *q == '-')
		q++;
	if (q >= r->end || !g_ascii_isdigit(*q)) {
		fail_at(r, s, "a number wants a digit after '-'");
		return NULL;
	}
	if (*q == '0' && q + 1 < r->end && g_ascii_isdigit(q[1])) {
		fail_at(r, s, "a number with a leading zero");
		return NULL;
	}
	q = digits(q, r->end);
	if (q < r->end && *q == '.') {
		integer = false;
		if (digits(q + 1, r->end) == q + 1) {
			fail_at(r, s, "a number wants a digit after '.'");
			return NULL;
		}
		q = digits(q + 1, r->end);
	}
	if (q < r->end && (*q == 'e' || *q == 'E')) {
		integer = false;
		q++;
		if (q < r->end && (*q == '+' || *q == '-'))
			q++;
		if (digits(q, r->end) == q) {
			fail_at(r, s, "a number wants a digit in its exponent");
			return NULL;
		}
		q = digits(q, r->end);
	}
	text = g_strndup(s, q - s);
	r->p = q;
	n = json_node_new(JSON_NODE_VALUE);
	if (integer) {
		char *end;
		gint64 v;
		guint64 u;

		errno = 0;
		v = g_ascii_strtoll(text, &end, 10);
		if (!errno) {
			json_node_set_int(n, v);
			return n;
		}
		errno = 0;
		u = *text != '-' ? g_ascii_strtoull(text, &end, 10) : 0;
		if (*text != '-' && !errno) {
			json_node_set_int(n, (gint64)u);	/* a uint64's bits */
			return n;
		}
	}
	json_node_set_double(n, g_ascii_strtod(text, NULL));
	if (!isfinite(json_node_get_double(n))) {
		json_node_unref(n);
		fail_at(r, s, "the number %.40s%s is beyond a double's range", text,
			strlen(text) > 40 ? "..." : "");
		return NULL;
	}
	return n;
}

static bool literal(struct reader *r, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n))
		return false;
	r->p += n;
	return true;
}

static JsonNode *read_value(struct reader *r);

static bool enter(struct reader *r)
{
	if (++r->depth <= JSON_READ_MAX_DEPTH)
		return true;
	fail_at(r, r->p, "nested deeper than %d arrays and objects", JSON_READ_MAX_DEPTH);
	return false;
}

/* After an element: 1 at ',' (another follows), 0 at @close (the end), -1 else. */
static int next_element(struct reader *r, char close, const char *want)
{
	skip_space(r);
	if (r->p < r->end && (*r->p == ',' || *r->p == close))
		return *r->p++ == ',';
	fail_want(r, want);
	return -1;
}

static JsonNode *read_array(struct reader *r)
{
	g_autoptr(JsonArray) a = NULL;
	JsonNode *n;
	int more = 0;

	if (!enter(r))
		return NULL;
	a = json_array_new();
	r->p++;
	skip_space(r);
	if (r->p < r->end && *r->p == ']') {
		r->p++;
	} else {
		for (;;) {
			JsonNode *e = read_value(r);

			if (!e)
				return NULL;
			json_array_add_element(a, e);
			if ((more = next_element(r, ']', "',' or ']' in an array")) <= 0)
				break;
		}
		if (more < 0)
			return NULL;
	}
	r->depth--;
	n = json_node_new(JSON_NODE_ARRAY);
	json_node_set_array(n, a);
	return n;
}

static JsonNode *read_object(struct reader *r)
{
	g_autoptr(JsonObject) o = NULL;
	g_autoptr(GString) name = g_string_new(NULL);
	JsonNode *n;
	int more = 0;

	if (!enter(r))
		return NULL;
	o = json_object_new();
	r->p++;
	skip_space(r);
	if (r->p < r->end && *r->p == '}') {
		r->p++;
	} else {
		for (;;) {
			const char *at = r->p;
			JsonNode *v;

			if (r->p >= r->end || *r->p != '"') {
				fail_want(r, "a member name in double quotes");
				return NULL;
			}
			if (!read_string(r, name))
				return NULL;
			if (json_object_has_member(o, name->str)) {
				g_autofree char *shown = cxlbed_printable(name->str);

				fail_at(r, at, "member \"%.60s\" given twice in one object", shown);
				return NULL;
			}
			skip_space(r);
			if (r->p >= r->end || *r->p != ':') {
				fail_want(r, "':' after a member name");
				return NULL;
			}
			r->p++;
			if (!(v = read_value(r)))
				return NULL;
			json_object_set_member(o, name->str, v);
			if ((more = next_element(r, '}', "',' or '}' in an object")) <= 0)
				break;
			skip_space(r);
		}
		if (more < 0)
			return NULL;
	}
	r->depth--;
	n = json_node_new(JSON_NODE_OBJECT);
	json_node_set_object(n, o);
	return n;
}

static JsonNode *read_value(struct reader *r)
{
	skip_space(r);
	if (r->p >= r->end) {
		fail_want(r, "a value");
		return NULL;
	}
	switch (*r->p) {
	case '{':
		return read_object(r);
	case '[':
		return read_array(r);
	case '"': {
		g_autoptr(GString) s = g_string_new(NULL);
		JsonNode *n;

		if (!read_string(r, s))
			return NULL;
		n = json_node_new(JSON_NODE_VALUE);
		json_node_set_string(n, s->str);
		return n;
	}
	case '-':
	case '0' ... '9':
		return read_number(r);
	}
	for (int b = 0; b < 2; b++)
		if (literal(r, b ? "true" : "false")) {
			JsonNode *n = json_node_new(JSON_NODE_VALUE);

			json_node_set_boolean(n, b);
			return n;
		}
	if (literal(r, "null"))
		return json_node_new(JSON_NODE_NULL);
	fail_want(r, "a value (object, array, string, number, true, false or null)");
	return NULL;
}

JsonNode *json_read_text(const char *name, const char *text, gssize len, GError **error)
{
	g_autoptr(GError) err = NULL;
	struct reader r = { .name = name, .start = text, .p = text,
			    .end = text + (len < 0 ? strlen(text) : (size_t)len),
			    .error = &err };
	JsonNode *root = read_value(&r);

	if (root) {
		skip_space(&r);
		if (r.p < r.end) {
			fail_at(&r, r.p, "more after the JSON value");
			g_clear_pointer(&root, json_node_unref);
		}
	}
	if (!root)
		g_propagate_error(error, g_steal_pointer(&err));
	return root;
}

JsonNode *json_read_file(const char *path, GError **error)
{
	g_autofree char *text = NULL;
	g_autoptr(GError) err = NULL;
	gsize len;

	if (!g_file_get_contents(path, &text, &len, &err)) {
		g_autofree char *shown = cxlbed_printable(path);

		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT, "%s: %s", shown, err->message);
		return NULL;
	}
	return json_read_text(path, text, len, error);
}

const char *json_read_type_name(JsonNode *n)
{
	if (!n || JSON_NODE_HOLDS_NULL(n))
		return "null";
	if (JSON_NODE_HOLDS_OBJECT(n))
		return "an object";
	if (JSON_NODE_HOLDS_ARRAY(n))
		return "an array";
	switch (json_node_get_value_type(n)) {
	case G_TYPE_STRING:
		return "a string";
	case G_TYPE_BOOLEAN:
		return "true or false";
	case G_TYPE_INT64:
		return "an integer";
	default:
		return "a number";
	}
}
