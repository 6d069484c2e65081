/* SPDX-License-Identifier: MIT */
/*
 * One point of a sweep: the base files with the point's values set
 * (sweep_rewrite), read back to prove it, and checked exactly as
 * `cxlbed run` checks its input (run_input.h).
 */
#include "sweep/sweep.h"
#include "common/cfgfile.h"
#include "topology/kernel_spec.h"
#include "common/error.h"
#include "run/guest_kernel.h"
#include "run/run_input.h"

#include <stdlib.h>
#include <string.h>

bool sweep_kind_in_scenario(const char *kind)
{
	static const char *const kinds[] = { "scenario", "workload", "event", "fm",
					     "faults", "fault" };

	for (guint i = 0; i < G_N_ELEMENTS(kinds); i++)
		if (!strcmp(kind, kinds[i]))
			return true;
	return false;
}

/* Does section [@sec_kind @sec_name] belong to @a's KIND ID? */
static bool selects(const char *kind, const char *id, const char *sec_kind,
		    const char *sec_name)
{
	if (strcmp(sec_kind, kind))
		return false;
	if (!id)
		return !sec_name;
	return sec_name && (!strcmp(id, "*") || !strcmp(sec_name, id));
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
	if (!words->len || words->len > 2)
		return false;
	return selects(kind, id, g_ptr_array_index(words, 0),
		       words->len == 2 ? g_ptr_array_index(words, 1) : NULL);
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

/* Set every axis whose key lives in the scenario file (@in_scn) or the topology. */
static bool apply(const struct sweep *s, const struct sweep_point *p, bool in_scn,
		  char **text, GError **error)
{
	for (guint i = 0; i < s->axes->len; i++) {
		const struct sweep_axis *a = g_ptr_array_index(s->axes, i);
		guint matched;
		char *next;

		if (sweep_kind_in_scenario(a->kind) != in_scn)
			continue;
		next = sweep_rewrite(*text, a->kind, a->id, a->key, p->values[i], &matched);
		g_free(*text);
		*text = next;
		if (!matched) {
			cxlbed_input_error(error, s->file, a->key_line,
					   "[vary %s]: no [%s%s%s] section in %s", a->name, a->kind,
					   a->id ? " " : "", a->id ? a->id : "",
					   in_scn ? s->base : s->topology);
			return false;
		}
	}
	return true;
}

/*
 * What was written is what the point's label says: every section an axis
 * selects reads its value back. sweep_load refuses values a file cannot
 * carry, so a difference is a bug here (exit 1), not bad input.
 */
static bool reads_back(const struct sweep *s, const struct sweep_point *p, bool in_scn,
		       const char *text, GError **error)
{
	const char *name = in_scn ? "point.scn" : "point.topo";
	g_autoptr(GError) err = NULL;
	g_autoptr(cfg_file) f = cfg_file_parse(name, text, -1, &err);

	if (!f) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN, "%s: point %s: the "
			    "rewritten %s does not parse (%s): a bug in sweep_rewrite()",
			    s->file, p->id, name, err->message);
		return false;
	}
	for (guint i = 0; i < s->axes->len; i++) {
		const struct sweep_axis *a = g_ptr_array_index(s->axes, i);

		for (guint j = 0; sweep_kind_in_scenario(a->kind) == in_scn &&
				  j < f->sections->len; j++) {
			const struct cfg_section *sec = g_ptr_array_index(f->sections, j);
			const struct cfg_entry *e = cfg_section_find(sec, a->key);

			if (selects(a->kind, a->id, sec->kind, sec->name) &&
			    (!e || strcmp(e->value, p->values[i]))) {
				g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN,
					    "%s:%d: point %s: %s line %d reads %s = '%s', "
					    "not '%s': a bug in sweep_rewrite()", s->file,
					    a->values_line, p->id, name, sec->line, a->key,
					    e ? e->value : "(none)", p->values[i]);
				return false;
			}
		}
	}
	return true;
}

/*
 * A kernel path the base file gives relative to itself, made absolute: the
 * point's file lies elsewhere (axis values were made absolute when the
 * sweep file was read).
 */
static void kernel_paths_absolute(char **text, const char *kind, const char *base_path)
{
	static const char *const keys[] = { "kernel", "kernel-modules" };
	g_autoptr(cfg_file) f = cfg_file_parse(base_path, *text, -1, NULL);
	g_autofree char *dir = g_path_get_dirname(base_path);

	for (guint i = 0; f && i < f->sections->len; i++) {
		const struct cfg_section *sec = g_ptr_array_index(f->sections, i);

		if (strcmp(sec->kind, kind) || sec->name)
			continue;
		for (guint k = 0; k < G_N_ELEMENTS(keys); k++) {
			const struct cfg_entry *e = cfg_section_find(sec, keys[k]);
			g_autofree char *abs = NULL;
			guint m;
			char *next;

			if (!e || !cb_kernel_is_path(e->value) || g_path_is_absolute(e->value))
				continue;
			abs = g_canonicalize_filename(e->value, dir);
			next = sweep_rewrite(*text, kind, NULL, keys[k], abs, &m);
			g_free(*text);
			*text = next;
		}
	}
}

static bool point_file(const struct sweep *s, const struct sweep_point *p, bool in_scn,
		       const char *base, char **text, GError **error)
{
	*text = g_strdup(base);
	if (!apply(s, p, in_scn, text, error) || !reads_back(s, p, in_scn, *text, error)) {
		g_clear_pointer(text, g_free);
		return false;
	}
	kernel_paths_absolute(text, in_scn ? "scenario" : "topology",
			      in_scn ? s->base : s->topology);
	return true;
}

bool sweep_point_texts(const struct sweep *s, const struct sweep_point *p,
		       const char *topo_text, const char *scn_text, char **topo,
		       char **scn, GError **error)
{
	guint m;
	char *next;

	*scn = NULL;
	if (!point_file(s, p, false, topo_text, topo, error))
		return false;
	if (!s->base_is_scenario)
		return true;
	if (!point_file(s, p, true, scn_text, scn, error)) {
		g_clear_pointer(topo, g_free);
		return false;
	}
	/* Its topology: this point's, beside it. */
	next = sweep_rewrite(*scn, "scenario", NULL, "topology", "point.topo", &m);
	g_free(*scn);
	*scn = next;
	return true;
}

/* Line @n (from 1) of @path, or NULL. */
static char *line_of(const char *path, long n)
{
	g_autofree char *text = NULL;
	g_auto(GStrv) lines = NULL;

	if (n < 1 || !g_file_get_contents(path, &text, NULL, NULL))
		return NULL;
	lines = g_strsplit(text, "\n", -1);
	return n <= (long)g_strv_length(lines) ? g_strdup(lines[n - 1]) : NULL;
}

/* The line of @path that @msg ("PATH:LINE: ...") names, or NULL. */
static char *named_line(const char *msg, const char *path)
{
	size_t n = strlen(path);

	return !strncmp(msg, path, n) && msg[n] == ':' ?
		line_of(path, strtol(msg + n + 1, NULL, 10)) : NULL;
}

/* Does @msg name @key as a word of its own (not "size" in "ld-size")? */
static bool names_key(const char *msg, const char *key)
{
	size_t n = strlen(key);

	for (const char *m = strstr(msg, key); m; m = strstr(m + 1, key))
		if ((m == msg || !(g_ascii_isalnum(m[-1]) || m[-1] == '-' || m[-1] == '_')) &&
		    !(g_ascii_isalnum(m[n]) || m[n] == '-' || m[n] == '_'))
			return true;
	return false;
}

/*
 * The axis to blame for point error @msg ("POINTFILE:LINE: ..."): the one
 * that wrote the line it names; else one whose key it names; else the first.
 */
static const struct sweep_axis *blame(const struct sweep *s, const struct sweep_point *p,
				      const char *msg)
{
	g_autofree char *topo = g_build_filename(p->dir, "point.topo", NULL);
	g_autofree char *scn_line = s->base_is_scenario ? named_line(msg, p->input) : NULL;
	g_autofree char *line = scn_line ? g_strdup(scn_line) : named_line(msg, topo);
	g_autofree char *code = line ? code_of(line) : NULL;

	for (guint i = 0; code && i < s->axes->len; i++) {
		const struct sweep_axis *a = g_ptr_array_index(s->axes, i);
		g_autofree char *set = g_strdup_printf("%s = %s", a->key, p->values[i]);

		if (sweep_kind_in_scenario(a->kind) == !!scn_line && !strcmp(code, set))
			return a;
	}
	for (guint i = 0; i < s->axes->len; i++) {
		const struct sweep_axis *a = g_ptr_array_index(s->axes, i);

		if (names_key(msg, a->key))
			return a;
	}
	return g_ptr_array_index(s->axes, 0);
}

bool sweep_check_point(const struct sweep *s, const struct sweep_point *p, GError **error)
{
	g_autoptr(GError) err = NULL;
	g_autoptr(scenario) scn = NULL;
	g_autoptr(cb_topology) t = NULL;
	g_autofree char *label = NULL;
	const struct sweep_axis *a;

	g_autoptr(guest_kernel) k = NULL;

	/* A point runs as `cxlbed run --out DIR POINT`: the scenario's own timing,
	 * and the kernel it names as run finds it (checked, nothing downloaded) */
	if (run_input_load(p->input, &scn, &t, &err) &&
	    run_input_check_timing(scn, t, scn->timing, &err) &&
	    (!scenario_kernel(scn, t) ||
	     (k = guest_kernel_find(scenario_kernel(scn, t), t, false, &err))))
		return true;
	if (err->domain != CXLBED_ERROR || err->code != CXLBED_ERROR_INPUT) {
		g_propagate_error(error, g_steal_pointer(&err));
		return false;
	}
	a = blame(s, p, err->message);
	label = sweep_point_label(s, p);
	cxlbed_input_error(error, s->file, a->values_line, "point %s (%s): %s", p->id,
			   label, err->message);
	return false;
}
