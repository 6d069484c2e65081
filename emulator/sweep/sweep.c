/* SPDX-License-Identifier: MIT */
/* Sweep files, the matrix and each point's files (see sweep.h). */
#include "sweep.h"
#include "argv.h"
#include "cfgfile.h"
#include "error.h"
#include "json_read.h"
#include "pci_numbers.h"
#include "scenario.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

static void axis_free(gpointer p)
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

static struct sweep *sweep_new(void)
{
	struct sweep *s = g_new0(struct sweep, 1);

	s->axes = g_ptr_array_new_with_free_func(axis_free);
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

/* Keys of these sections live in the scenario file; the rest in the topology. */
static bool in_scenario(const struct sweep_axis *a)
{
	return !strcmp(a->kind, "scenario") || !strcmp(a->kind, "workload");
}

static GPtrArray *split_values(const char *text)
{
	GPtrArray *v = g_ptr_array_new_with_free_func(g_free);
	g_auto(GStrv) parts = strchr(text, '|') ? g_strsplit(text, "|", -1) :
		g_strsplit_set(text, " \t", -1);

	for (guint i = 0; parts[i]; i++) {
		g_strstrip(parts[i]);
		if (*parts[i])
			g_ptr_array_add(v, g_strdup(parts[i]));
	}
	return v;
}

static bool parse_axis(struct sweep *s, const struct cfg_file *f,
		       const struct cfg_section *sec, GError **error)
{
	const char *key = cfg_get_string(f, sec, "key", NULL);
	const char *values = cfg_get_string(f, sec, "values", NULL);
	g_auto(GStrv) words = key ? g_strsplit_set(key, " \t", -1) : NULL;
	g_autoptr(GPtrArray) w = g_ptr_array_new();
	struct sweep_axis *a;
	struct cfg_entry *e;

	if (!sec->name) {
		cxlbed_input_error(error, f->path, sec->line,
				   "[vary] needs a name: [vary latency]");
		return false;
	}
	for (guint i = 0; words && words[i]; i++)
		if (*words[i])
			g_ptr_array_add(w, words[i]);
	if (w->len < 2 || w->len > 3) {
		cxlbed_input_error(error, f->path, key ? cfg_section_find(sec, "key")->line : sec->line,
				   "[vary %s] needs key = KIND ID KEY (e.g. key = device mem0 "
				   "read-latency-ns; ID * for every such section) or KIND KEY "
				   "for a section without a name (key = scenario timeout)", sec->name);
		return false;
	}
	if (!values || !*values) {
		cxlbed_input_error(error, f->path, sec->line,
				   "[vary %s] needs values = V1 V2 ... (or V1 | V2 when values "
				   "hold spaces)", sec->name);
		return false;
	}
	if ((e = cfg_section_first_unused(sec))) {
		cxlbed_input_error(error, f->path, e->line,
				   "unknown key '%s' in [vary %s]; expected key, values",
				   e->key, sec->name);
		return false;
	}
	a = g_new0(struct sweep_axis, 1);
	a->name = g_strdup(sec->name);
	a->kind = g_strdup(g_ptr_array_index(w, 0));
	a->id = w->len == 3 ? g_strdup(g_ptr_array_index(w, 1)) : NULL;
	a->key = g_strdup(g_ptr_array_index(w, w->len - 1));
	a->values = split_values(values);
	a->line = sec->line;
	g_ptr_array_add(s->axes, a);
	if (in_scenario(a) && !s->base_is_scenario) {
		cxlbed_input_error(error, f->path, cfg_section_find(sec, "key")->line,
				   "[vary %s] sets a scenario key, but the sweep runs a bare "
				   "topology: give scenario = FILE in [sweep]", sec->name);
		return false;
	}
	return true;
}

static bool parse_head(struct sweep *s, const struct cfg_file *f,
		       const struct cfg_section *sec, GError **error)
{
	const char *scn = cfg_get_string(f, sec, "scenario", NULL);
	const char *topo = cfg_get_string(f, sec, "topology", NULL);
	g_autofree char *dir = g_path_get_dirname(f->path);
	struct cfg_entry *e;

	if (!!scn == !!topo) {
		cxlbed_input_error(error, f->path, sec->line,
				   "[sweep] needs one of scenario = FILE or topology = FILE "
				   "(relative to the sweep file)");
		return false;
	}
	s->base_is_scenario = scn != NULL;
	s->base = g_path_is_absolute(scn ? scn : topo) ? g_strdup(scn ? scn : topo) :
		g_build_filename(dir, scn ? scn : topo, NULL);
	if (!g_file_test(s->base, G_FILE_TEST_IS_REGULAR)) {
		cxlbed_input_error(error, f->path, cfg_section_find(sec, scn ? "scenario" : "topology")->line,
				   "%s '%s' does not exist", scn ? "scenario" : "topology", s->base);
		return false;
	}
	if (scn) {
		g_autoptr(scenario) loaded = scenario_load(s->base, error);

		if (!loaded) {
			g_prefix_error(error, "%s:%d: scenario: ", f->path,
				       cfg_section_find(sec, "scenario")->line);
			return false;
		}
		s->topology = g_strdup(loaded->topology_path);
	} else {
		s->topology = g_strdup(s->base);
	}
	s->name = g_strdup(cfg_get_string(f, sec, "name", NULL));
	if ((e = cfg_section_first_unused(sec))) {
		cxlbed_input_error(error, f->path, e->line,
				   "unknown key '%s' in [sweep]; expected name, scenario, topology",
				   e->key);
		return false;
	}
	return true;
}

struct sweep *sweep_load(const char *path, GError **error)
{
	g_autoptr(cfg_file) f = cfg_file_load(path, error);
	g_autoptr(sweep) s = NULL;
	const struct cfg_section *head = NULL;

	if (!f)
		return NULL;
	s = sweep_new();
	s->file = g_strdup(path);
	for (guint i = 0; i < f->sections->len; i++) {
		const struct cfg_section *sec = g_ptr_array_index(f->sections, i);

		if (!strcmp(sec->kind, "sweep")) {
			if (head) {
				cxlbed_input_error(error, path, sec->line, "only one [sweep] section");
				return NULL;
			}
			head = sec;
			if (!parse_head(s, f, sec, error))
				return NULL;
		}
	}
	if (!head) {
		cxlbed_input_error(error, path, 1, "no [sweep] section: a sweep file starts "
				   "with [sweep] and scenario = FILE or topology = FILE");
		return NULL;
	}
	for (guint i = 0; i < f->sections->len; i++) {
		const struct cfg_section *sec = g_ptr_array_index(f->sections, i);

		if (!strcmp(sec->kind, "sweep"))
			continue;
		if (strcmp(sec->kind, "vary")) {
			cxlbed_input_error(error, path, sec->line,
					   "unknown section [%s] in a sweep; expected [sweep] "
					   "or [vary NAME]", sec->kind);
			return NULL;
		}
		if (!parse_axis(s, f, sec, error))
			return NULL;
	}
	if (!s->axes->len) {
		cxlbed_input_error(error, path, head->line,
				   "nothing varies: add a [vary NAME] section with key and values");
		return NULL;
	}
	if (!s->name) {
		g_autofree char *b = g_path_get_basename(path);
		char *dot = strrchr(b, '.');

		if (dot)
			*dot = '\0';
		s->name = g_strdup(b);
	}
	return g_steal_pointer(&s);
}

void sweep_expand(struct sweep *s, const char *out)
{
	guint n = 1, na = s->axes->len;

	g_free(s->out);
	s->out = g_canonicalize_filename(out, NULL);
	g_ptr_array_set_size(s->points, 0);
	for (guint i = 0; i < na; i++)
		n *= ((struct sweep_axis *)g_ptr_array_index(s->axes, i))->values->len;
	for (guint k = 0; k < n; k++) {
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

/* The part of a line before a comment ('#' or ';' at the start or after a blank). */
static char *code_of(const char *line)
{
	char *c = g_strdup(line);

	for (char *p = c; *p; p++)
		if ((*p == '#' || *p == ';') && (p == c || g_ascii_isspace(p[-1]))) {
			*p = '\0';
			break;
		}
	return g_strstrip(c);
}

/* Does header line code "[kind name]" select @kind/@id? */
static bool header_matches(const char *code, const char *kind, const char *id)
{
	g_autofree char *inner = g_strndup(code + 1, strlen(code) - 2);
	g_auto(GStrv) w = g_strsplit_set(g_strstrip(inner), " \t", -1);
	g_autoptr(GPtrArray) words = g_ptr_array_new();

	for (guint i = 0; w[i]; i++)
		if (*w[i])
			g_ptr_array_add(words, w[i]);
	if (!words->len || strcmp(g_ptr_array_index(words, 0), kind))
		return false;
	if (!id)
		return words->len == 1;
	return words->len == 2 && (!strcmp(id, "*") || !strcmp(g_ptr_array_index(words, 1), id));
}

char *sweep_rewrite(const char *text, const char *kind, const char *id,
		    const char *key, const char *value, guint *matched)
{
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
	g_autofree char *set = g_strdup_printf("%s = %s", key, value);
	bool in = false, done = false;
	guint insert_at = 0;	/* after the matching section's last content line */
	char *joined;

	*matched = 0;
	for (guint i = 0; lines[i]; i++) {
		g_autofree char *code = code_of(lines[i]);

		if (code[0] == '[' && g_str_has_suffix(code, "]")) {
			if (in && !done)
				g_ptr_array_insert(out, insert_at, g_strdup(set));
			in = header_matches(code, kind, id);
			done = false;
			*matched += in;
			g_ptr_array_add(out, g_strdup(lines[i]));
			insert_at = out->len;
			continue;
		}
		if (in && *code) {
			char *eq = strchr(code, '=');
			g_autofree char *k = eq ? g_strstrip(g_strndup(code, eq - code)) : NULL;

			g_ptr_array_add(out, g_strdup(k && !strcmp(k, key) ? set : lines[i]));
			done |= k && !strcmp(k, key);
			insert_at = out->len;
			continue;
		}
		g_ptr_array_add(out, g_strdup(lines[i]));
	}
	if (in && !done)
		g_ptr_array_insert(out, insert_at, g_strdup(set));
	g_ptr_array_add(out, NULL);
	joined = g_strjoinv("\n", (char **)out->pdata);
	g_ptr_array_unref(out);
	return joined;
}

static bool read_text(const char *path, char **text, GError **error)
{
	if (!g_file_get_contents(path, text, NULL, error)) {
		g_prefix_error(error, "%s: ", path);
		return false;
	}
	return true;
}

/* Apply every axis whose key lives in @scenario's file (or the topology's). */
static bool apply(const struct sweep *s, const struct sweep_point *p, bool in_scn,
		  char **text, GError **error)
{
	for (guint i = 0; i < s->axes->len; i++) {
		const struct sweep_axis *a = g_ptr_array_index(s->axes, i);
		guint matched;
		char *next;

		if (in_scenario(a) != in_scn)
			continue;
		next = sweep_rewrite(*text, a->kind, a->id, a->key, p->values[i], &matched);
		g_free(*text);
		*text = next;
		if (!matched) {
			cxlbed_input_error(error, s->file, a->line,
					   "[vary %s]: no [%s%s%s] section in %s", a->name, a->kind,
					   a->id ? " " : "", a->id ? a->id : "",
					   in_scn ? s->base : s->topology);
			return false;
		}
	}
	return true;
}

/* A point as `cxlbed run` would take it, or the reason it would not. */
static bool check_point(const struct sweep *s, const struct sweep_point *p, GError **error)
{
	g_autoptr(GError) err = NULL;
	g_autoptr(scenario) scn = scenario_load(p->input, &err);
	g_autoptr(cb_topology) t = scn ? topology_load(scn->topology_path, &err) : NULL;
	g_autofree char *label = NULL;
	int line = 0;

	if (t && qemu_check_topology(t, &err))
		return true;
	/* Name the axis whose key the message speaks of, else the [vary] of the first. */
	for (guint i = 0; i < s->axes->len && !line; i++) {
		const struct sweep_axis *a = g_ptr_array_index(s->axes, i);

		if (strstr(err->message, a->key))
			line = a->line;
	}
	label = sweep_point_label(s, p);
	cxlbed_input_error(error, s->file, line ? line : ((struct sweep_axis *)
			   g_ptr_array_index(s->axes, 0))->line,
			   "point %s (%s): %s", p->id, label, err->message);
	return false;
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
	g_autofree char *topo = g_strdup(topo_text);
	g_autofree char *tpath = g_build_filename(p->dir, "point.topo", NULL);

	if (!make_dirs(p->dir, made, error) || !apply(s, p, false, &topo, error) ||
	    !write_file(tpath, topo, made, error))
		return false;
	if (s->base_is_scenario) {
		g_autofree char *scn = g_strdup(scn_text);
		guint m;
		char *next;

		if (!apply(s, p, true, &scn, error))
			return false;
		/* Its topology: this point's, beside it. */
		next = sweep_rewrite(scn, "scenario", NULL, "topology", "point.topo", &m);
		g_free(scn);
		scn = next;
		if (!write_file(p->input, scn, made, error))
			return false;
	}
	return check_point(s, p, error);
}

bool sweep_write_points(const struct sweep *s, GError **error)
{
	g_autofree char *topo_text = NULL, *scn_text = NULL;
	g_autofree char *plan = g_build_filename(s->out, "sweep.json", NULL);
	g_autoptr(GPtrArray) made = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(JsonNode) root = NULL;
	g_autoptr(JsonGenerator) gen = json_generator_new();
	bool ok = true;

	if (s->base_is_scenario && !read_text(s->base, &scn_text, error))
		return false;
	if (!read_text(s->topology, &topo_text, error))
		return false;
	for (guint i = 0; i < s->points->len && ok; i++)
		ok = write_point(s, g_ptr_array_index(s->points, i), topo_text, scn_text,
				 made, error);
	if (!ok) {
		/* Nothing half-made: take back every file and folder made here. */
		for (guint i = made->len; i-- > 0;)
			g_remove(g_ptr_array_index(made, i));
		return false;
	}
	root = plan_json(s);
	json_generator_set_root(gen, root);
	json_generator_set_pretty(gen, TRUE);
	return json_generator_to_file(gen, plan, error);
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
