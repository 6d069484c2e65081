/* SPDX-License-Identifier: MIT */
/* Terse json-c helpers used across the agent. */
#ifndef CXLBED_AGENT_JSON_UTIL_H
#define CXLBED_AGENT_JSON_UTIL_H

#include <json-c/json.h>

static inline void jadd_int(json_object *o, const char *k, long long v)
{
	json_object_object_add(o, k, json_object_new_int64(v));
}

static inline void jadd_str(json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, v ? json_object_new_string(v) : NULL);
}

static inline void jadd_bool(json_object *o, const char *k, int v)
{
	json_object_object_add(o, k, json_object_new_boolean(v));
}

static inline void jadd_double(json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, json_object_new_double(v));
}

#endif
