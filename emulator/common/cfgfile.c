/* SPDX-License-Identifier: MIT */
#include "cfgfile.h"
#include "error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void entry_free(gpointer p)
{
	struct cfg_entry *e = p;

	g_free(e->key);
	g_free(e->value);
	g_free(e);
}

static void section_free(gpointer p)
{
	struct cfg_section *s = p;

	g_free(s->kind);
	g_free(s->name);
	g_ptr_array_unref(s->entries);
	g_free(s);
}

void cfg_file_free(struct cfg_file *f)
{
	if (!f)
		return;
	g_free(f->path);
	g_ptr_array_unref(f->sections);
	g_free(f);
}

/* Strip a trailing "# comment" (a '#' at the start or after whitespace). */
static void strip_comment(char *line)
{
	for (char *p = line; *p; p++) {
		if ((*p == '#' || *p == ';') &&
		    (p == line || g_ascii_isspace(p[-1]))) {
			*p = '\0';
			return;
		}
	}
}

static bool valid_word(const char *w)
{
	if (!*w)
		return false;
	for (const char *p = w; *p; p++)
		if (!g_ascii_isalnum(*p) && !strchr("_-.", *p))
			return false;
	return true;
}

struct cfg_entry *cfg_section_find(const struct cfg_section *s, const char *key)
{
	for (guint i = 0; i < s->entries->len; i++) {
		struct cfg_entry *e = g_ptr_array_index(s->entries, i);

		if (!strcmp(e->key, key))
			return e;
	}
	return NULL;
}

static bool parse_header(struct cfg_file *f, char *line, int lineno,
			 GError **error)
{
	char *end = strchr(line, ']');
	g_auto(GStrv) words = NULL;
	struct cfg_section *s;

	if (!end || end[1] != '\0') {
		cxlbed_input_error(error, f->path, lineno,
				   "section header must look like [kind name]");
		return false;
	}
	*end = '\0';
	words = g_strsplit_set(g_strstrip(line + 1), " \t", -1);
	/* g_strsplit_set leaves empty strings for runs of blanks: squeeze. */
	guint n = 0;
	for (guint i = 0; words[i]; i++)
		if (*words[i])
			words[n++] = words[i];
		else
			g_free(words[i]);
	words[n] = NULL;
	if (n < 1 || n > 2 || !valid_word(words[0]) ||
	    (n == 2 && !valid_word(words[1]))) {
		cxlbed_input_error(error, f->path, lineno,
				   "section header must look like [kind name] "
				   "(names: letters, digits, '-', '_', '.')");
		return false;
	}
	s = g_new0(struct cfg_section, 1);
	s->kind = g_strdup(words[0]);
	s->name = n == 2 ? g_strdup(words[1]) : NULL;
	s->line = lineno;
	s->entries = g_ptr_array_new_with_free_func(entry_free);
	g_ptr_array_add(f->sections, s);
	return true;
}

static bool parse_entry(struct cfg_file *f, char *line, int lineno,
			GError **error)
{
	char *eq = strchr(line, '=');
	struct cfg_section *s;
	struct cfg_entry *e;
	char *key, *value;

	if (!f->sections->len) {
		cxlbed_input_error(error, f->path, lineno,
				   "'%s' outside any section; start one with [kind name]",
				   line);
		return false;
	}
	if (!eq) {
		cxlbed_input_error(error, f->path, lineno,
				   "expected 'key = value', got '%s'", line);
		return false;
	}
	*eq = '\0';
	key = g_strstrip(line);
	value = g_strstrip(eq + 1);
	if (!valid_word(key)) {
		cxlbed_input_error(error, f->path, lineno, "bad key '%s'", key);
		return false;
	}
	s = g_ptr_array_index(f->sections, f->sections->len - 1);
	e = cfg_section_find(s, key);
	if (e) {
		cxlbed_input_error(error, f->path, lineno,
				   "'%s' set twice in [%s%s%s] (first at line %d)",
				   key, s->kind, s->name ? " " : "",
				   s->name ? s->name : "", e->line);
		return false;
	}
	e = g_new0(struct cfg_entry, 1);
	e->key = g_strdup(key);
	e->value = g_strdup(value);
	e->line = lineno;
	g_ptr_array_add(s->entries, e);
	return true;
}

struct cfg_file *cfg_file_parse(const char *path, const char *text,
				GError **error)
{
	g_autoptr(cfg_file) f = g_new0(struct cfg_file, 1);
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);

	f->path = g_strdup(path);
	f->sections = g_ptr_array_new_with_free_func(section_free);
	for (int i = 0; lines[i]; i++) {
		char *line = lines[i];

		strip_comment(line);
		line = g_strstrip(line);
		if (!*line)
			continue;
		if (*line == '[') {
			if (!parse_header(f, line, i + 1, error))
				return NULL;
		} else if (!parse_entry(f, line, i + 1, error)) {
			return NULL;
		}
	}
	return g_steal_pointer(&f);
}

struct cfg_file *cfg_file_load(const char *path, GError **error)
{
	g_autofree char *text = NULL;
	g_autoptr(GError) local = NULL;

	if (!g_file_get_contents(path, &text, NULL, &local)) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT, "%s:0: %s",
			    path, local->message);
		return NULL;
	}
	return cfg_file_parse(path, text, error);
}

static struct cfg_entry *take(const struct cfg_section *s, const char *key)
{
	struct cfg_entry *e = cfg_section_find(s, key);

	if (e)
		e->used = true;
	return e;
}

const char *cfg_get_string(const struct cfg_file *f, const struct cfg_section *s,
			   const char *key, const char *def)
{
	struct cfg_entry *e = take(s, key);

	(void)f;
	return e ? e->value : def;
}

bool cfg_parse_size(const char *text, uint64_t *out)
{
	char *end;
	uint64_t v, mult = 1;

	if (!g_ascii_isdigit(*text))
		return false;
	errno = 0;
	v = g_ascii_strtoull(text, &end, 0);
	if (errno)
		return false;
	switch (g_ascii_toupper(*end)) {
	case '\0': break;
	case 'K': mult = 1ull << 10; end++; break;
	case 'M': mult = 1ull << 20; end++; break;
	case 'G': mult = 1ull << 30; end++; break;
	case 'T': mult = 1ull << 40; end++; break;
	default: return false;
	}
	if (g_ascii_toupper(*end) == 'I' && g_ascii_toupper(end[1]) == 'B')
		end += 2;
	else if (g_ascii_toupper(*end) == 'B')
		end++;
	if (*end || (v && mult > UINT64_MAX / v))
		return false;
	*out = v * mult;
	return true;
}

bool cfg_get_size(const struct cfg_file *f, const struct cfg_section *s,
		  const char *key, uint64_t def, uint64_t *out, GError **error)
{
	struct cfg_entry *e = take(s, key);

	*out = def;
	if (!e)
		return true;
	if (!cfg_parse_size(e->value, out)) {
		cxlbed_input_error(error, f->path, e->line,
				   "%s: '%s' is not a size (use e.g. 256M, 4G)",
				   key, e->value);
		return false;
	}
	return true;
}

bool cfg_get_u64(const struct cfg_file *f, const struct cfg_section *s,
		 const char *key, uint64_t def, uint64_t *out, GError **error)
{
	struct cfg_entry *e = take(s, key);
	char *end;

	*out = def;
	if (!e)
		return true;
	errno = 0;
	*out = g_ascii_strtoull(e->value, &end, 0);
	if (errno || end == e->value || *end || e->value[0] == '-') {
		cxlbed_input_error(error, f->path, e->line,
				   "%s: '%s' is not a non-negative integer",
				   key, e->value);
		*out = def;
		return false;
	}
	return true;
}

bool cfg_get_double(const struct cfg_file *f, const struct cfg_section *s,
		    const char *key, double def, double *out, GError **error)
{
	struct cfg_entry *e = take(s, key);
	char *end;

	*out = def;
	if (!e)
		return true;
	errno = 0;
	*out = g_ascii_strtod(e->value, &end);
	if (errno || end == e->value || *end || *out < 0) {
		cxlbed_input_error(error, f->path, e->line,
				   "%s: '%s' is not a non-negative number",
				   key, e->value);
		*out = def;
		return false;
	}
	return true;
}

bool cfg_get_bool(const struct cfg_file *f, const struct cfg_section *s,
		  const char *key, bool def, bool *out, GError **error)
{
	struct cfg_entry *e = take(s, key);

	*out = def;
	if (!e)
		return true;
	if (!g_ascii_strcasecmp(e->value, "on") ||
	    !g_ascii_strcasecmp(e->value, "yes") ||
	    !g_ascii_strcasecmp(e->value, "true") || !strcmp(e->value, "1")) {
		*out = true;
	} else if (!g_ascii_strcasecmp(e->value, "off") ||
		   !g_ascii_strcasecmp(e->value, "no") ||
		   !g_ascii_strcasecmp(e->value, "false") ||
		   !strcmp(e->value, "0")) {
		*out = false;
	} else {
		cxlbed_input_error(error, f->path, e->line,
				   "%s: '%s' is not on/off", key, e->value);
		return false;
	}
	return true;
}

char **cfg_get_list(const struct cfg_file *f, const struct cfg_section *s,
		    const char *key)
{
	struct cfg_entry *e = take(s, key);
	GPtrArray *out;
	g_auto(GStrv) parts = NULL;

	(void)f;
	if (!e)
		return NULL;
	parts = g_strsplit_set(e->value, " \t,", -1);
	out = g_ptr_array_new();
	for (guint i = 0; parts[i]; i++)
		if (*parts[i])
			g_ptr_array_add(out, g_strdup(parts[i]));
	g_ptr_array_add(out, NULL);
	return (char **)g_ptr_array_free(out, FALSE);
}

struct cfg_entry *cfg_section_first_unused(const struct cfg_section *s)
{
	for (guint i = 0; i < s->entries->len; i++) {
		struct cfg_entry *e = g_ptr_array_index(s->entries, i);

		if (!e->used)
			return e;
	}
	return NULL;
}
