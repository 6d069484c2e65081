/* SPDX-License-Identifier: MIT */
#include "figures.h"

#include <glib.h>

static bool number_member(JsonObject *o, const char *key, double *v)
{
	JsonNode *n = o && key ? json_object_get_member(o, key) : NULL;

	if (!n || !JSON_NODE_HOLDS_VALUE(n))
		return false;
	*v = json_node_get_double(n);
	return true;
}

double fig_get(JsonObject *out, const char *key, const char *guest_key,
	       struct fig_clocks *c)
{
	JsonNode *m = out ? json_object_get_member(out, "modeled") : NULL;
	double v;

	/* with the model loaded, guest-clock figures never fill a gap */
	if (m && JSON_NODE_HOLDS_OBJECT(m)) {
		if (!number_member(json_node_get_object(m), key, &v))
			return -1;
		c->modeled = true;
		return v;
	}
	if (number_member(out, guest_key, &v)) {
		c->guest = true;
		return v;
	}
	return -1;
}

const char *fig_clock_word(const struct fig_clocks *c)
{
	if (c->modeled && c->guest)
		return "mixed";
	if (c->modeled)
		return "modeled";
	return c->guest ? "guest" : NULL;
}

const char *fig_format(char *buf, size_t len, double v, const char *format)
{
	if (v < 0)
		g_strlcpy(buf, "-", len);
	else
		g_snprintf(buf, len, format, v);
	return buf;
}
