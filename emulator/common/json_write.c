/* SPDX-License-Identifier: MIT */
/* JSON text that every JSON reader takes (json_write.h). */
#include "json_write.h"

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

char *json_write_text(JsonNode *root, bool pretty)
{
	g_autoptr(JsonGenerator) gen = json_generator_new();

	make_finite(root);
	json_generator_set_root(gen, root);
	json_generator_set_pretty(gen, pretty);
	return json_generator_to_data(gen, NULL);
}

bool json_write_file(JsonNode *root, const char *path, GError **error)
{
	g_autofree char *text = json_write_text(root, true);

	return g_file_set_contents(path, text, -1, error);
}
