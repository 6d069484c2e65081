/* SPDX-License-Identifier: MIT */
/* Tolerant readers for the agent's JSON: a missing or mistyped member reads as absent. */
#ifndef CXLBED_COMMON_JSON_GET_H
#define CXLBED_COMMON_JSON_GET_H

#include <json-glib/json-glib.h>

static inline JsonArray *json_get_array(JsonObject *o, const char *key)
{
	if (!o || !json_object_has_member(o, key) ||
	    !JSON_NODE_HOLDS_ARRAY(json_object_get_member(o, key)))
		return NULL;
	return json_object_get_array_member(o, key);
}

static inline JsonObject *json_get_object(JsonObject *o, const char *key)
{
	if (!o || !json_object_has_member(o, key) ||
	    !JSON_NODE_HOLDS_OBJECT(json_object_get_member(o, key)))
		return NULL;
	return json_object_get_object_member(o, key);
}

static inline gint64 json_get_int(JsonObject *o, const char *key, gint64 def)
{
	if (!o || !json_object_has_member(o, key) ||
	    !JSON_NODE_HOLDS_VALUE(json_object_get_member(o, key)))
		return def;
	return json_object_get_int_member(o, key);
}

static inline const char *json_get_string(JsonObject *o, const char *key)
{
	if (!o || !json_object_has_member(o, key) ||
	    !JSON_NODE_HOLDS_VALUE(json_object_get_member(o, key)))
		return NULL;
	return json_object_get_string_member(o, key);
}

#endif
