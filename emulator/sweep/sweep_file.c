/* SPDX-License-Identifier: MIT */
/*
 * Reading a sweep file (sweep.h, docs/sweeps.md): everything it says is
 * checked here, before a folder is made or a point allocated; what a
 * point's values make of the base files is checked per point
 * (sweep_point.c).
 */
#include "sweep/sweep.h"
#include "topology/kernel_spec.h"
#include "common/cfgfile.h"
#include "common/error.h"
#include "run/scenario.h"

#include <string.h>

/* The sections whose keys a sweep may set, and whether they take a name. */
static const struct {
	const char *kind;
	bool named;
} settable[] = {
	{ "scenario", false }, { "workload", true }, { "event", true }, { "fm", false },
	{ "faults", false }, { "fault", true },
	{ "topology", false }, { "host", true }, { "bridge", true }, { "rootport", true },
	{ "switch", true }, { "device", true }, { "window", true }, { "region", true },
	{ "pool", true },
};
#define SETTABLE_KINDS "scenario, workload, event, fm, faults, fault (the scenario); " \
	"topology, host, bridge, rootport, switch, device, window, region, pool"

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

/* A value that would start a comment in the point's file ('#' or ';' first or after a blank). */
static bool reads_as_comment(const char *v)
{
	for (const char *p = v; *p; p++)
		if ((*p == '#' || *p == ';') && (p == v || g_ascii_isspace(p[-1])))
			return true;
	return false;
}

/* KIND [ID] KEY of `key =`: known kind, a name where the kind has one, words. */
static bool check_target(const struct cfg_file *f, const struct sweep_axis *a, int line,
			 GError **error)
{
	guint k = 0;

	while (k < G_N_ELEMENTS(settable) && strcmp(settable[k].kind, a->kind))
		k++;
	if (k == G_N_ELEMENTS(settable)) {
		cxlbed_input_error(error, f->path, line, "[vary %s]: no section kind '%s' in a "
				   "topology or scenario; the kinds: " SETTABLE_KINDS, a->name,
				   a->kind);
		return false;
	}
	if (settable[k].named != !!a->id) {
		cxlbed_input_error(error, f->path, line, settable[k].named ?
				   "[vary %s]: [%s NAME] sections have names: key = %s NAME %s "
				   "(NAME * for every one)" :
				   "[vary %s]: [%s] has no name: key = %s %s", a->name, a->kind,
				   a->kind, a->key);
		return false;
	}
	if (a->id && strcmp(a->id, "*") && !cfg_word_ok(a->id)) {
		cxlbed_input_error(error, f->path, line, "[vary %s]: '%s' is not a section "
				   "name: letters, digits, '_', '-', '.' (or * for every "
				   "section)", a->name, a->id);
		return false;
	}
	if (!cfg_word_ok(a->key)) {
		cxlbed_input_error(error, f->path, line, "[vary %s]: '%s' is not a key: "
				   "letters, digits, '_', '-', '.'", a->name, a->key);
		return false;
	}
	if (!strcmp(a->kind, "scenario") && !strcmp(a->key, "topology")) {
		cxlbed_input_error(error, f->path, line, "[vary %s]: each point's scenario "
				   "runs the point's own topology (point.topo): sweep that "
				   "topology's keys instead", a->name);
		return false;
	}
	return true;
}

/* One axis per section key: a second would overwrite the first's value. */
static bool check_distinct(const struct cfg_file *f, const struct sweep *s,
			   const struct sweep_axis *a, GError **error)
{
	for (guint i = 0; i < s->axes->len; i++) {
		const struct sweep_axis *o = g_ptr_array_index(s->axes, i);
		bool same_ids = !g_strcmp0(o->id, a->id) ||
			(o->id && a->id && (!strcmp(o->id, "*") || !strcmp(a->id, "*")));

		if (!strcmp(o->name, a->name)) {
			cxlbed_input_error(error, f->path, a->line, "[vary %s] twice (first at "
					   "line %d): each axis is a column of sweep.csv",
					   a->name, o->line);
			return false;
		}
		if (!strcmp(o->kind, a->kind) && !strcmp(o->key, a->key) && same_ids) {
			cxlbed_input_error(error, f->path, a->key_line, "[vary %s] sets a key "
					   "[vary %s] (line %d) sets too: one axis per key",
					   a->name, o->name, o->key_line);
			return false;
		}
	}
	return true;
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
	a->key_line = cfg_section_find(sec, "key")->line;
	a->values_line = cfg_section_find(sec, "values")->line;
	if (!check_target(f, a, a->key_line, error) || !check_distinct(f, s, a, error)) {
		sweep_axis_free(a);
		return false;
	}
	g_ptr_array_add(s->axes, a);
	if (!a->values->len) {
		cxlbed_input_error(error, f->path, a->values_line, "[vary %s]: values holds "
				   "no value", a->name);
		return false;
	}
	/* a kernel's path is the sweep file's, not the point folder's */
	if (!strcmp(a->key, "kernel") || !strcmp(a->key, "kernel-modules")) {
		g_autofree char *dir = g_path_get_dirname(f->path);

		for (guint i = 0; i < a->values->len; i++) {
			char **v = (char **)&g_ptr_array_index(a->values, i);

			if (cb_kernel_is_path(*v) && !g_path_is_absolute(*v)) {
				char *abs = g_canonicalize_filename(*v, dir);

				g_free(*v);
				*v = abs;
			}
		}
	}
	for (guint i = 0; i < a->values->len; i++)
		if (reads_as_comment(g_ptr_array_index(a->values, i))) {
			cxlbed_input_error(error, f->path, a->values_line, "[vary %s]: value "
					   "'%s' would read as a comment in the point's file "
					   "('#' or ';' first or after a blank)", a->name,
					   (char *)g_ptr_array_index(a->values, i));
			return false;
		}
	if (sweep_kind_in_scenario(a->kind) && !s->base_is_scenario) {
		cxlbed_input_error(error, f->path, a->key_line,
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
	const char *name = cfg_get_string(f, sec, "name", NULL);
	g_autofree char *dir = g_path_get_dirname(f->path);
	g_autoptr(cfg_file) topo_file = NULL;
	int base_line;
	struct cfg_entry *e;

	if (!!scn == !!topo) {
		cxlbed_input_error(error, f->path, sec->line,
				   "[sweep] needs one of scenario = FILE or topology = FILE "
				   "(relative to the sweep file)");
		return false;
	}
	base_line = cfg_section_find(sec, scn ? "scenario" : "topology")->line;
	s->base_is_scenario = scn != NULL;
	s->base = g_path_is_absolute(scn ? scn : topo) ? g_strdup(scn ? scn : topo) :
		g_build_filename(dir, scn ? scn : topo, NULL);
	if (!g_file_test(s->base, G_FILE_TEST_IS_REGULAR)) {
		cxlbed_input_error(error, f->path, base_line, "%s '%s' does not exist",
				   scn ? "scenario" : "topology", s->base);
		return false;
	}
	if (scn) {
		g_autoptr(scenario) loaded = scenario_load(s->base, error);

		if (!loaded) {
			g_prefix_error(error, "%s:%d: scenario: ", f->path, base_line);
			return false;
		}
		s->topology = g_strdup(loaded->topology_path);
	} else {
		s->topology = g_strdup(s->base);
	}
	/* Rewriting needs text it can read back: a topology cfgfile parses. */
	topo_file = cfg_file_load(s->topology, error);
	if (!topo_file) {
		g_prefix_error(error, "%s:%d: topology: ", f->path, base_line);
		return false;
	}
	/* It names the default results folder and the Slurm job. */
	s->name = name ? g_strdup(name) : cfg_name_from_file(f->path, NULL);
	if (!cfg_name_ok(s->name)) {
		cxlbed_input_error(error, f->path, cfg_section_find(sec, "name")->line,
				   "name: '%s' is not a name; use %s", s->name, CFG_NAME_RULE);
		return false;
	}
	if ((e = cfg_section_first_unused(sec))) {
		cxlbed_input_error(error, f->path, e->line,
				   "unknown key '%s' in [sweep]; expected name, scenario, topology",
				   e->key);
		return false;
	}
	return true;
}

/*
 * At most SWEEP_MAX_POINTS: the product of the axes' sizes, multiplied
 * one axis at a time and refused at the first past the limit, so that no
 * size overflows and nothing is allocated for a matrix that is refused.
 */
static bool check_size(const struct cfg_file *f, const struct sweep *s, GError **error)
{
	guint64 n = 1, total = 1;
	GString *sizes;

	for (guint i = 0; i < s->axes->len; i++) {
		const struct sweep_axis *a = g_ptr_array_index(s->axes, i);

		if (a->values->len <= SWEEP_MAX_POINTS / n) {
			n *= a->values->len;
			continue;
		}
		sizes = g_string_new(NULL);
		for (guint j = 0; j < s->axes->len; j++) {
			const struct sweep_axis *b = g_ptr_array_index(s->axes, j);

			g_string_append_printf(sizes, "%s%u", j ? " x " : "", b->values->len);
			if (total && !g_uint64_checked_mul(&total, total, b->values->len))
				total = 0;
		}
		if (total)
			g_string_append_printf(sizes, " = %" G_GUINT64_FORMAT, total);
		cxlbed_input_error(error, f->path, a->values_line, "[vary %s]: the matrix has "
				   "%s points, more than %u, the most a sweep may have: "
				   "use fewer values or split the sweep (docs/sweeps.md)",
				   a->name, sizes->str, SWEEP_MAX_POINTS);
		g_string_free(sizes, TRUE);
		return false;
	}
	return true;
}

struct sweep *sweep_parse(const char *path, const char *text, gssize len, GError **error)
{
	g_autoptr(cfg_file) f = cfg_file_parse(path, text, len, error);
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
	if (!check_size(f, s, error))
		return NULL;
	return g_steal_pointer(&s);
}

struct sweep *sweep_load(const char *path, GError **error)
{
	g_autofree char *text = NULL;
	gsize len;

	if (!cfg_read_text(path, &text, &len, error))
		return NULL;
	return sweep_parse(path, text, len, error);
}
