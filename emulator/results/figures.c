/* SPDX-License-Identifier: MIT */
#include "results/figures.h"

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

/* @o's numbers as "KEY VALUE" after @prefix; @doubles_only: only those
 * (the timing merge's figures, not its counts). */
static void numbers(GString *s, JsonObject *o, const char *prefix, bool doubles_only)
{
	g_autoptr(GList) members = json_object_get_members(o);
	gsize start = s->len;

	for (GList *l = members; l; l = l->next) {
		JsonNode *v = json_object_get_member(o, l->data);
		const char *sep = s->len > start ? ", " : prefix;

		if (!JSON_NODE_HOLDS_VALUE(v))
			continue;
		if (json_node_get_value_type(v) == G_TYPE_DOUBLE)
			g_string_append_printf(s, "%s%s %.4g", sep, (char *)l->data,
					       json_node_get_double(v));
		else if (!doubles_only && json_node_get_value_type(v) == G_TYPE_INT64)
			g_string_append_printf(s, "%s%s %" G_GINT64_FORMAT, sep,
					       (char *)l->data, json_node_get_int(v));
	}
}

char *fig_summary(JsonObject *out)
{
	JsonNode *m = json_object_get_member(out, "modeled");
	GString *s = g_string_new(NULL);

	if (m && JSON_NODE_HOLDS_OBJECT(m))
		numbers(s, json_node_get_object(m), "modeled: ", true);
	/* a merge with regions but no figure of its own (ROIs only) */
	if (!s->len)
		numbers(s, out, "guest clock: ", false);
	if (!s->len)
		return g_string_free(s, TRUE), NULL;
	return g_string_free(s, FALSE);
}
