/* SPDX-License-Identifier: MIT */
/* JSON text that every JSON reader takes (json_write.h). */
#include "common/json_write.h"

#include <math.h>

static void make_finite(JsonNode *n)
{
	if (JSON_NODE_HOLDS_OBJECT(n)) {
		g_autoptr(GList) members = json_object_get_values(json_node_get_object(n));

		for (GList *l = members; l; l = l->next)
			make_finite(l->data);
	} else if (JSON_NODE_HOLDS_ARRAY(n)) {
		JsonArray *a = json_node_get_array(n);

		for (guint i = 0; i < json_array_get_length(a); i++)
			make_finite(json_array_get_element(a, i));
	} else if (JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_DOUBLE &&
		   !isfinite(json_node_get_double(n))) {
		json_node_init_null(n);
	}
}

/*
 * json-glib appends ".0" to a double printed without a '.', one printed
 * with an exponent too: 1e20 becomes "1e+20.0", which is no JSON. Outside
 * strings, such a ".0" after an exponent's digits goes.
 */
static void drop_exponent_suffix(char *text)
{
	bool in_string = false;
	char *w = text;

	for (const char *r = text; *r;) {
		if (in_string) {
			if (*r == '\\' && r[1])
				*w++ = *r++;
			else if (*r == '"')
				in_string = false;
			*w++ = *r++;
			continue;
		}
		if (*r == '"')
			in_string = true;
		if ((*r == 'e' || *r == 'E') && r > text && g_ascii_isdigit(r[-1])) {
			*w++ = *r++;
			if (*r == '+' || *r == '-')
				*w++ = *r++;
			while (g_ascii_isdigit(*r))
				*w++ = *r++;
			if (r[0] == '.' && r[1] == '0' && !g_ascii_isdigit(r[2]))
				r += 2;
			continue;
		}
		*w++ = *r++;
	}
	*w = 0;
}

char *json_write_text(JsonNode *root, bool pretty)
{
	g_autoptr(JsonGenerator) gen = json_generator_new();
	char *text;

	make_finite(root);
	json_generator_set_root(gen, root);
	json_generator_set_pretty(gen, pretty);
	text = json_generator_to_data(gen, NULL);
	drop_exponent_suffix(text);
	return text;
}

bool json_write_file(JsonNode *root, const char *path, GError **error)
{
	g_autofree char *text = json_write_text(root, true);

	return g_file_set_contents(path, text, -1, error);
}
