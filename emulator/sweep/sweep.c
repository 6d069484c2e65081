/* SPDX-License-Identifier: MIT */
/* The matrix, each point's folder and sweep.json (see sweep.h). */
#include "sweep/sweep.h"
#include "common/error.h"
#include "common/json_read.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

void sweep_axis_free(gpointer p)
{
	struct sweep_axis *a = p;

	g_free(a->name);
	g_free(a->kind);
	g_free(a->id);
	g_free(a->key);
	g_ptr_array_unref(a->values);
	g_free(a);
}

static void point_free(gpointer p)
{
	struct sweep_point *pt = p;

	g_free(pt->id);
	g_strfreev(pt->values);
	g_free(pt->dir);
	g_free(pt->run_dir);
	g_free(pt->input);
	g_free(pt);
}

struct sweep *sweep_new(void)
{
	struct sweep *s = g_new0(struct sweep, 1);

	s->axes = g_ptr_array_new_with_free_func(sweep_axis_free);
	s->points = g_ptr_array_new_with_free_func(point_free);
	return s;
}

void sweep_free(struct sweep *s)
{
	if (!s)
		return;
	g_free(s->file);
	g_free(s->name);
	g_free(s->base);
	g_free(s->topology);
	g_ptr_array_unref(s->axes);
	g_ptr_array_unref(s->points);
	g_free(s->out);
	g_free(s);
}

void sweep_expand(struct sweep *s, const char *out)
{
	guint64 n = 1;
	guint na = s->axes->len;

	g_free(s->out);
	s->out = g_canonicalize_filename(out, NULL);
	g_ptr_array_set_size(s->points, 0);
	for (guint i = 0; i < na; i++) {
		n *= ((struct sweep_axis *)g_ptr_array_index(s->axes, i))->values->len;
		/* sweep_parse refused a bigger matrix: no overflow, no huge allocation */
		g_return_if_fail(n <= SWEEP_MAX_POINTS);
	}
	for (guint k = 0; k < (guint)n; k++) {
		struct sweep_point *p = g_new0(struct sweep_point, 1);
		guint rest = k;

		p->id = g_strdup_printf("p%u", k);
		p->values = g_new0(char *, na + 1);
		/* The last axis varies fastest. */
		for (guint i = na; i-- > 0;) {
			const struct sweep_axis *a = g_ptr_array_index(s->axes, i);

			p->values[i] = g_strdup(g_ptr_array_index(a->values, rest % a->values->len));
			rest /= a->values->len;
		}
		p->dir = g_build_filename(s->out, "points", p->id, NULL);
		p->run_dir = g_build_filename(p->dir, "run", NULL);
		p->input = g_build_filename(p->dir, s->base_is_scenario ? "point.scn" : "point.topo",
					    NULL);
		g_ptr_array_add(s->points, p);
	}
}

char *sweep_point_label(const struct sweep *s, const struct sweep_point *p)
{
	GString *l = g_string_new(NULL);

	for (guint i = 0; i < s->axes->len; i++)
		g_string_append_printf(l, "%s%s=%s", i ? ", " : "",
				       ((struct sweep_axis *)g_ptr_array_index(s->axes, i))->name,
				       p->values[i]);
	return g_string_free(l, FALSE);
}

static JsonNode *plan_json(const struct sweep *s)
{
	g_autoptr(JsonBuilder) b = json_builder_new();

	json_builder_begin_object(b);
	json_builder_set_member_name(b, "schema");
	json_builder_add_string_value(b, SWEEP_SCHEMA);
	json_builder_set_member_name(b, "name");
	json_builder_add_string_value(b, s->name);
	json_builder_set_member_name(b, "file");
	json_builder_add_string_value(b, s->file ? s->file : "");
	json_builder_set_member_name(b, "base");
	json_builder_add_string_value(b, s->base);
	json_builder_set_member_name(b, "base_is_scenario");
	json_builder_add_boolean_value(b, s->base_is_scenario);
	json_builder_set_member_name(b, "topology");
	json_builder_add_string_value(b, s->topology ? s->topology : "");
	json_builder_set_member_name(b, "axes");
	json_builder_begin_array(b);
	for (guint i = 0; i < s->axes->len; i++) {
		const struct sweep_axis *a = g_ptr_array_index(s->axes, i);

		json_builder_begin_object(b);
		json_builder_set_member_name(b, "name");
		json_builder_add_string_value(b, a->name);
		json_builder_set_member_name(b, "kind");
		json_builder_add_string_value(b, a->kind);
		json_builder_set_member_name(b, "id");
		if (a->id)
			json_builder_add_string_value(b, a->id);
		else
			json_builder_add_null_value(b);
		json_builder_set_member_name(b, "key");
		json_builder_add_string_value(b, a->key);
		json_builder_set_member_name(b, "values");
		json_builder_begin_array(b);
		for (guint j = 0; j < a->values->len; j++)
			json_builder_add_string_value(b, g_ptr_array_index(a->values, j));
		json_builder_end_array(b);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	json_builder_set_member_name(b, "points");
	json_builder_begin_array(b);
	for (guint i = 0; i < s->points->len; i++) {
		const struct sweep_point *p = g_ptr_array_index(s->points, i);

		json_builder_begin_object(b);
		json_builder_set_member_name(b, "id");
		json_builder_add_string_value(b, p->id);
		json_builder_set_member_name(b, "values");
		json_builder_begin_array(b);
		for (guint j = 0; j < s->axes->len; j++)
			json_builder_add_string_value(b, p->values[j]);
		json_builder_end_array(b);
		json_builder_set_member_name(b, "input");
		json_builder_add_string_value(b, p->input);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	json_builder_end_object(b);
	return json_builder_get_root(b);
}

/* Make @dir and each missing folder above it, noting each in @made. */
static bool make_dirs(const char *dir, GPtrArray *made, GError **error)
{
	g_autofree char *up = g_path_get_dirname(dir);

	if (g_file_test(dir, G_FILE_TEST_IS_DIR))
		return true;
	if (strcmp(up, dir) && !make_dirs(up, made, error))
		return false;
	if (g_mkdir(dir, 0755) < 0 && errno != EEXIST) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN, "%s: %s", dir, g_strerror(errno));
		return false;
	}
	g_ptr_array_add(made, g_strdup(dir));
	return true;
}

static bool write_file(const char *path, const char *text, GPtrArray *made, GError **error)
{
	if (!g_file_set_contents(path, text, -1, error))
		return false;
	g_ptr_array_add(made, g_strdup(path));
	return true;
}

static bool write_point(const struct sweep *s, const struct sweep_point *p,
			const char *topo_text, const char *scn_text, GPtrArray *made,
			GError **error)
{
	g_autofree char *topo = NULL, *scn = NULL;
	g_autofree char *tpath = g_build_filename(p->dir, "point.topo", NULL);

	return sweep_point_texts(s, p, topo_text, scn_text, &topo, &scn, error) &&
	       make_dirs(p->dir, made, error) && write_file(tpath, topo, made, error) &&
	       (!scn || write_file(p->input, scn, made, error)) &&
	       sweep_check_point(s, p, error);
}

static bool read_text(const char *path, char **text, GError **error)
{
	if (!g_file_get_contents(path, text, NULL, error)) {
		g_prefix_error(error, "%s: ", path);
		return false;
	}
	return true;
}

static bool write_plan(const struct sweep *s, GPtrArray *made, GError **error)
{
	g_autofree char *plan = g_build_filename(s->out, "sweep.json", NULL);
	g_autoptr(JsonNode) root = plan_json(s);
	g_autoptr(JsonGenerator) gen = json_generator_new();

	json_generator_set_root(gen, root);
	json_generator_set_pretty(gen, TRUE);
	if (!json_generator_to_file(gen, plan, error))
		return false;
	g_ptr_array_add(made, g_strdup(plan));
	return true;
}

bool sweep_write_points(const struct sweep *s, GError **error)
{
	g_autofree char *topo_text = NULL, *scn_text = NULL;
	g_autoptr(GPtrArray) made = g_ptr_array_new_with_free_func(g_free);
	bool ok = true;

	if (s->base_is_scenario && !read_text(s->base, &scn_text, error))
		return false;
	if (!read_text(s->topology, &topo_text, error))
		return false;
	for (guint i = 0; i < s->points->len && ok; i++)
		ok = write_point(s, g_ptr_array_index(s->points, i), topo_text, scn_text,
				 made, error);
	if (ok && write_plan(s, made, error))
		return true;
	/* Nothing half-made: take back every file and folder made here. */
	for (guint i = made->len; i-- > 0;)
		g_remove(g_ptr_array_index(made, i));
	return false;
}

static const char *member_str(JsonObject *o, const char *key)
{
	JsonNode *n = json_object_get_member(o, key);

	return n && JSON_NODE_HOLDS_VALUE(n) ? json_node_get_string(n) : NULL;
}

struct sweep *sweep_load_plan(const char *out, GError **error)
{
	g_autofree char *path = g_build_filename(out, "sweep.json", NULL);
	g_autoptr(JsonNode) plan = json_read_file(path, NULL);	/* depth-bounded */
	g_autoptr(sweep) s = sweep_new();
	JsonObject *root;
	JsonArray *axes, *points;

	if (!plan || !JSON_NODE_HOLDS_OBJECT(plan) ||
	    g_strcmp0(member_str(json_node_get_object(plan), "schema"), SWEEP_SCHEMA)) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT,
			    "%s: not a sweep folder (no readable sweep.json, schema "
			    SWEEP_SCHEMA "); expand one with cxlbed sweep SWEEPFILE", out);
		return NULL;
	}
	root = json_node_get_object(plan);
	s->name = g_strdup(member_str(root, "name"));
	s->file = g_strdup(member_str(root, "file"));
	s->base = g_strdup(member_str(root, "base"));
	s->topology = g_strdup(member_str(root, "topology"));
	s->base_is_scenario = json_object_get_boolean_member_with_default(root, "base_is_scenario", false);
	s->out = g_canonicalize_filename(out, NULL);
	axes = json_object_get_array_member(root, "axes");
	points = json_object_get_array_member(root, "points");
	for (guint i = 0; axes && i < json_array_get_length(axes); i++) {
		JsonObject *o = json_array_get_object_element(axes, i);
		JsonArray *v = json_object_get_array_member(o, "values");
		struct sweep_axis *a = g_new0(struct sweep_axis, 1);

		a->name = g_strdup(member_str(o, "name"));
		a->kind = g_strdup(member_str(o, "kind"));
		a->id = g_strdup(member_str(o, "id"));
		a->key = g_strdup(member_str(o, "key"));
		a->values = g_ptr_array_new_with_free_func(g_free);
		for (guint j = 0; v && j < json_array_get_length(v); j++)
			g_ptr_array_add(a->values, g_strdup(json_array_get_string_element(v, j)));
		g_ptr_array_add(s->axes, a);
	}
	for (guint i = 0; points && i < json_array_get_length(points); i++) {
		JsonObject *o = json_array_get_object_element(points, i);
		JsonArray *v = json_object_get_array_member(o, "values");
		struct sweep_point *p = g_new0(struct sweep_point, 1);

		p->id = g_strdup(member_str(o, "id"));
		p->values = g_new0(char *, s->axes->len + 1);
		for (guint j = 0; j < s->axes->len; j++)
			p->values[j] = g_strdup(v && j < json_array_get_length(v) ?
						json_array_get_string_element(v, j) : "");
		/* Where the folder lies now: it may have moved since it was expanded. */
		p->dir = g_build_filename(s->out, "points", p->id, NULL);
		p->run_dir = g_build_filename(p->dir, "run", NULL);
		p->input = g_build_filename(p->dir, s->base_is_scenario ? "point.scn" : "point.topo",
					    NULL);
		g_ptr_array_add(s->points, p);
	}
	return g_steal_pointer(&s);
}
