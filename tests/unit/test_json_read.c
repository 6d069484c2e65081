/* SPDX-License-Identifier: MIT */
/*
 * The strict JSON reader (json_read.h) and the writer that never writes
 * a non-finite number (json_write.h): what json-glib's parser took that
 * blew the stack or changed a value, each refused with NAME:LINE.
 */
#include "tap.h"
#include "common/error.h"
#include "common/json_read.h"
#include "common/json_write.h"

#include <math.h>

/* @text's error message, or NULL when it reads. */
static char *refused(const char *text, gssize len)
{
	g_autoptr(GError) err = NULL;
	g_autoptr(JsonNode) n = json_read_text("t.json", text, len, &err);

	if (n)
		return NULL;
	return err && err->code == CXLBED_ERROR_INPUT ? g_strdup(err->message) : g_strdup("?");
}

static int refused_with(const char *text, const char *why, const char *what)
{
	g_autofree char *msg = refused(text, -1);
	int pass = msg && g_str_has_prefix(msg, "t.json:") && strstr(msg, why);

	ok(pass, "%s: refused (%s)", what, msg ? msg : "read");
	return pass;
}

static JsonNode *first(JsonNode *root)
{
	return json_array_get_element(json_node_get_array(root), 0);
}

static void test_depth(void)
{
	GString *deep = g_string_new(NULL);
	g_autoptr(JsonNode) n = NULL;
	g_autofree char *msg = NULL;

	for (int i = 0; i < JSON_READ_MAX_DEPTH; i++)
		g_string_append_c(deep, '[');
	for (int i = 0; i < JSON_READ_MAX_DEPTH; i++)
		g_string_append_c(deep, ']');
	n = json_read_text("t.json", deep->str, deep->len, NULL);
	ok(n != NULL, "%d nested arrays read", JSON_READ_MAX_DEPTH);
	g_string_truncate(deep, 0);
	for (int i = 0; i < 200000; i++)
		g_string_append_c(deep, '[');
	msg = refused(deep->str, deep->len);
	ok(msg && strstr(msg, "t.json:1: column 65: nested deeper than 64"),
	   "200,000 '[': refused at the 65th, no stack overflow (%s)", msg ? msg : "read");
	g_string_free(deep, TRUE);
	refused_with("{\"a\":[{\"b\":" "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
		     "nested deeper", "objects and arrays count alike");
}

static void test_numbers(void)
{
	g_autoptr(JsonNode) big = json_read_text("t", "[99999999999999999999]", -1, NULL);
	g_autoptr(JsonNode) u64 = json_read_text("t", "[18446744073709551615]", -1, NULL);
	g_autoptr(JsonNode) tiny = json_read_text("t", "[1e-400, -0, 2.5E+3]", -1, NULL);
	g_autoptr(JsonNode) i64 = json_read_text("t", "[-9223372036854775808]", -1, NULL);

	ok(big && json_node_get_value_type(first(big)) == G_TYPE_DOUBLE &&
	   json_node_get_double(first(big)) == 1e20,
	   "99999999999999999999 is the double 1e20 (json-glib: -1)");
	ok(u64 && json_node_get_value_type(first(u64)) == G_TYPE_INT64 &&
	   (guint64)json_node_get_int(first(u64)) == G_MAXUINT64, "a uint64 keeps its bits");
	ok(i64 && json_node_get_int(first(i64)) == G_MININT64, "INT64_MIN is an integer");
	ok(tiny && json_node_get_double(first(tiny)) == 0 &&
	   json_node_get_value_type(json_array_get_element(json_node_get_array(tiny), 1)) ==
	   G_TYPE_INT64 &&
	   json_node_get_double(json_array_get_element(json_node_get_array(tiny), 2)) == 2500,
	   "1e-400 reads as 0, -0 as an integer, 2.5E+3 as 2500");
}

static void test_strings(void)
{
	g_autoptr(JsonNode) smile = json_read_text("t", "[\"\\ud83d\\ude00 \\/\\t\"]", -1, NULL);

	g_autofree char *nul = refused("[\"a\0b\"]", 7);

	ok(smile && !strcmp(json_node_get_string(first(smile)), "\xf0\x9f\x98\x80 /\t"),
	   "a surrogate pair and escapes decode to UTF-8");
	ok(nul && strstr(nul, "control character (0x00)"), "a NUL byte in a string");
}

static void test_values(void)
{
	g_autoptr(JsonNode) n = json_read_text("t", " {\"a\": [true, false, null, \"s\", {}]} \n",
					       -1, NULL);
	JsonArray *a = n ? json_object_get_array_member(json_node_get_object(n), "a") : NULL;

	ok(a && json_array_get_length(a) == 5 && json_array_get_boolean_element(a, 0) &&
	   !json_array_get_boolean_element(a, 1) && json_array_get_null_element(a, 2) &&
	   !strcmp(json_array_get_string_element(a, 3), "s"),
	   "literals, strings and objects read as json-glib would hold them");
}

/* Each refused: its text, what the message says, what it is. */
static const struct {
	const char *text, *why, *what;
} refusals[] = {
	{ "{\"x\":\n  {\"latency_ns\": 1e400}}",
	  "t.json:2: column 18: the number 1e400 is beyond a double's range",
	  "1e400 (json-glib: inf), its line and column" },
	{ "[-1e400]", "beyond a double's range", "-1e400" },
	{ "[01]", "leading zero", "a leading zero" },
	{ "[+1]", "want a value", "a plus sign" },
	{ "[1.]", "digit after '.'", "1." },
	{ "[.5]", "want a value", ".5" },
	{ "[1e]", "exponent", "1e" },
	{ "[nan]", "want a value", "nan" },
	{ "[-]", "digit after '-'", "a lone minus" },
	{ "[\"a\\u0000b\"]", "\\u0000", "\\u0000 (json-glib: cut the string there)" },
	{ "[\"\\ud800\"]", "high surrogate", "a lone high surrogate" },
	{ "[\"\\udc00\"]", "low surrogate", "a lone low surrogate" },
	{ "[\"\\x41\"]", "unknown escape", "\\x" },
	{ "[\"\xff\"]", "not UTF-8", "a string that is not UTF-8" },
	{ "[\"a\tb\"]", "control character", "a raw tab in a string" },
	{ "[\"abc", "closing quote", "an unterminated string" },
	{ "{\"a\":1,\"a\":2}", "member \"a\" given twice",
	  "a member given twice (json-glib: the last one kept)" },
	{ "{\"\\u0061\":1,\"a\":2}", "given twice", "the same name spelled two ways" },
	{ "['a']", "want a value", "single quotes" },
	{ "/*c*/[1]", "want a value", "a comment" },
	{ "[1,]", "want a value", "a trailing comma in an array" },
	{ "{\"a\":1,}", "member name", "a trailing comma in an object" },
	{ "{a:1}", "member name", "an unquoted name" },
	{ "[1] x", "more after the JSON value", "text after the value" },
	{ "", "want a value, found the end", "no text" },
	{ "[tru]", "want a value", "a cut-off literal" },
};

static void test_refusals(void)
{
	for (guint i = 0; i < G_N_ELEMENTS(refusals); i++)
		refused_with(refusals[i].text, refusals[i].why, refusals[i].what);
}

static void test_write(void)
{
	g_autoptr(JsonNode) root = json_node_new(JSON_NODE_OBJECT);
	JsonObject *o = json_object_new();
	JsonArray *a = json_array_new();
	g_autofree char *text = NULL;
	g_autoptr(GError) err = NULL;
	g_autoptr(JsonNode) back = NULL;

	json_object_set_double_member(o, "inf", INFINITY);
	json_array_add_double_element(a, -INFINITY);
	json_array_add_double_element(a, NAN);
	json_array_add_double_element(a, 2.5);
	json_array_add_double_element(a, 1e20);	/* json-glib: 1e+20.0 (the fuzzer's find) */
	json_array_add_double_element(a, -1e308);
	json_array_add_string_element(a, "5e+20.0");
	json_array_add_boolean_element(a, FALSE);
	json_object_set_array_member(o, "a", a);
	json_node_take_object(root, o);
	text = json_write_text(root, false);
	back = json_read_text("out", text, -1, &err);
	ok(back != NULL, "inf, -inf, nan and 1e20 written as JSON (%s)", err ? err->message : text);
	ok(text && !strcmp(text, "{\"inf\":null,\"a\":[null,null,2.5,1e+20,-1e+308,\"5e+20.0\",false]}"),
	   "non-finite numbers written as null, 1e20 as 1e+20, the rest as they were: %s", text);
	ok(back && json_array_get_double_element(json_object_get_array_member(
		json_node_get_object(back), "a"), 3) == 1e20, "and 1e+20 reads back as 1e20");
}

int main(void)
{
	plan(39);
	test_depth();
	test_numbers();
	test_strings();
	test_values();
	test_refusals();
	test_write();
	return done_testing();
}
