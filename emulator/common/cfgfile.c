/* SPDX-License-Identifier: MIT */
#include "common/cfgfile.h"
#include "common/error.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	g_hash_table_unref(s->keys);
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

bool cfg_word_ok(const char *w)
{
	if (!*w)
		return false;
	for (const char *p = w; *p; p++)
		if (!g_ascii_isalnum(*p) && !strchr("_-.", *p))
			return false;
	return true;
}

char *cfg_name_from_file(const char *path, const char *suffix)
{
	g_autofree char *base = g_path_get_basename(path);
	GString *name = g_string_new(g_ascii_isalpha(base[0]) ? "" : "t");
	char *dot = suffix ? NULL : strrchr(base, '.');

	if (suffix && g_str_has_suffix(base, suffix))
		base[strlen(base) - strlen(suffix)] = '\0';
	else if (dot)
		*dot = '\0';
	for (const char *p = base; *p && name->len < CFG_NAME_MAX;
	     p = g_utf8_next_char(p))
		g_string_append_c(name, g_ascii_isalnum(*p) || *p == '-' ?
				  *p : '_');
	return g_string_free(name, FALSE);
}

struct cfg_entry *cfg_section_find(const struct cfg_section *s, const char *key)
{
	return g_hash_table_lookup(s->keys, key);
}

bool cfg_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (!n || n > CFG_NAME_MAX || !g_ascii_isalpha(name[0]))
		return false;
	for (const char *p = name; *p; p++)
		if (!g_ascii_isalnum(*p) && *p != '-' && *p != '_')
			return false;
	return true;
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
	if (n < 1 || n > 2 || !cfg_word_ok(words[0]) ||
	    (n == 2 && !cfg_word_ok(words[1]))) {
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
	s->keys = g_hash_table_new(g_str_hash, g_str_equal);
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
	if (!cfg_word_ok(key)) {
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
	g_hash_table_insert(s->keys, e->key, e);
	return true;
}

/*
 * Check one line (without its newline) is text cxlbed can echo: no NUL,
 * valid UTF-8, no control character but tab (CR only at the end).
 */
static bool check_line(const char *path, int lineno, const char *line,
		       gsize len, GError **error)
{
	const char *end, *p;
	const char *nul = memchr(line, '\0', len);

	if (nul) {
		cxlbed_input_error(error, path, lineno, "a NUL byte (column %ld); "
				   "topology and scenario files are text: remove it",
				   g_utf8_strlen(line, nul - line) + 1);
		return false;
	}
	if (!g_utf8_validate_len(line, len, &end)) {
		cxlbed_input_error(error, path, lineno, "byte 0x%02x (column %ld) "
				   "is not UTF-8; save the file as UTF-8 text",
				   (guint8)*end, g_utf8_strlen(line, end - line) + 1);
		return false;
	}
	for (p = line; p < line + len; p = g_utf8_next_char(p)) {
		gunichar ch = g_utf8_get_char(p);

		if (ch == '\t' || (ch == '\r' && p + 1 == line + len))
			continue;
		if (g_unichar_iscntrl(ch)) {
			cxlbed_input_error(error, path, lineno, "control character "
					   "U+%04X (column %ld); remove it (only tabs "
					   "and line ends are allowed)", ch,
					   g_utf8_strlen(line, p - line) + 1);
			return false;
		}
	}
	return true;
}

struct cfg_file *cfg_file_parse(const char *path, const char *text, gssize len,
				GError **error)
{
	g_autoptr(cfg_file) f = g_new0(struct cfg_file, 1);
	const char *p = text, *end;
	int lineno = 0;

	if (len < 0)
		len = strlen(text);
	end = text + len;
	f->path = g_strdup(path);
	f->sections = g_ptr_array_new_with_free_func(section_free);
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		gsize n = (nl ? nl : end) - p;
		g_autofree char *copy = NULL;
		char *line;

		lineno++;
		if (!check_line(path, lineno, p, n, error))
			return NULL;
		copy = g_strndup(p, n);
		p += n + 1;
		line = copy;
		strip_comment(line);
		line = g_strstrip(line);
		if (!*line)
			continue;
		if (*line == '[') {
			if (!parse_header(f, line, lineno, error))
				return NULL;
		} else if (!parse_entry(f, line, lineno, error)) {
			return NULL;
		}
	}
	return g_steal_pointer(&f);
}

static const char *file_kind(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" :
	       S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" :
	       S_ISSOCK(m) ? "a socket" : "not a regular file";
}

/* Paths are echoed in messages and written into summary.json. */
static bool path_ok(const char *path)
{
	if (!g_utf8_validate(path, -1, NULL))
		return false;
	for (const char *p = path; *p; p = g_utf8_next_char(p))
		if (g_unichar_iscntrl(g_utf8_get_char(p)))
			return false;
	return true;
}

bool cfg_read_text(const char *path, char **text, gsize *len, GError **error)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer */
	int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	g_autofree char *buf = NULL;
	struct stat st;
	gsize n = 0;
	bool good = false;

	*text = NULL;
	*len = 0;
	if (!path_ok(path)) {
		if (fd >= 0)
			close(fd);
		cxlbed_input_error(error, path, 0, "the file name is not UTF-8 "
				   "or has control characters, and results and "
				   "messages carry it: rename the file");
		return false;
	}
	if (fd < 0) {
		cxlbed_input_error(error, path, 0, "cannot open: %s",
				   g_strerror(errno));
		return false;
	}
	if (fstat(fd, &st) < 0) {
		cxlbed_input_error(error, path, 0, "cannot stat: %s",
				   g_strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		cxlbed_input_error(error, path, 0, "is %s, not a file; give a "
				   "topology or scenario file", file_kind(st.st_mode));
	} else {
		/* room for one byte past the cap, and the NUL */
		gsize cap = MIN((gsize)st.st_size, CFG_MAX_BYTES) + 2;

		buf = g_malloc(cap);
		for (;;) {
			ssize_t r;

			if (n + 1 == cap) {
				if (n > CFG_MAX_BYTES) {
					cxlbed_input_error(error, path, 0, "larger "
							   "than %u MiB, the most an "
							   "input file may be; split "
							   "it or trim it",
							   CFG_MAX_BYTES >> 20);
					break;
				}
				/* the file grew since fstat */
				cap = MIN(2 * cap, (gsize)CFG_MAX_BYTES + 2);
				buf = g_realloc(buf, cap);
			}
			r = read(fd, buf + n, cap - 1 - n);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				cxlbed_input_error(error, path, 0, "cannot read: %s",
						   g_strerror(errno));
				break;
			}
			if (!r) {
				good = true;
				break;
			}
			n += r;
		}
	}
	close(fd);
	if (!good)
		return false;
	buf[n] = '\0';
	*text = g_steal_pointer(&buf);
	*len = n;
	return true;
}

struct cfg_file *cfg_file_load(const char *path, GError **error)
{
	g_autofree char *text = NULL;
	gsize len;

	if (!cfg_read_text(path, &text, &len, error))
		return NULL;
	return cfg_file_parse(path, text, len, error);
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

static bool leading_zero(const char *digits)
{
	return digits[0] == '0' && g_ascii_isdigit(digits[1]);
}

bool cfg_parse_uint(const char *text, bool hex_ok, uint64_t *out)
{
	unsigned base = 10;
	uint64_t v = 0;
	const char *p = text;

	if (hex_ok && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	/* "010": octal to C, ten to people; neither reading is safe */
	if (!g_ascii_isxdigit(*p) || (base == 10 && leading_zero(p)))
		return false;
	for (; *p; p++) {
		int d = g_ascii_xdigit_value(*p);

		if (d < 0 || (unsigned)d >= base || v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

bool cfg_parse_size(const char *text, uint64_t *out)
{
	g_autofree char *digits = NULL;
	const char *unit = text;
	uint64_t v, mult = 1;

	while (g_ascii_isdigit(*unit))
		unit++;
	digits = g_strndup(text, unit - text);
	if (!cfg_parse_uint(digits, false, &v))
		return false;
	switch (g_ascii_toupper(*unit)) {
	case '\0': break;
	case 'K': mult = 1ull << 10; unit++; break;
	case 'M': mult = 1ull << 20; unit++; break;
	case 'G': mult = 1ull << 30; unit++; break;
	case 'T': mult = 1ull << 40; unit++; break;
	default: return false;
	}
	if (g_ascii_toupper(*unit) == 'I' && g_ascii_toupper(unit[1]) == 'B')
		unit += 2;
	else if (g_ascii_toupper(*unit) == 'B')
		unit++;
	if (*unit || (v && mult > UINT64_MAX / v))
		return false;
	*out = v * mult;
	return true;
}

bool cfg_parse_real(const char *text, double *out)
{
	const char *p = text;
	double v;

	/* strtod alone takes nan, inf, hex, exponents and a sign */
	if (!g_ascii_isdigit(*p) || leading_zero(p))
		return false;
	while (g_ascii_isdigit(*p))
		p++;
	if (*p == '.') {
		p++;
		if (!g_ascii_isdigit(*p))
			return false;
		while (g_ascii_isdigit(*p))
			p++;
	}
	if (*p)
		return false;
	errno = 0;
	v = g_ascii_strtod(text, NULL);
	if (errno || !isfinite(v))
		return false;
	*out = v;
	return true;
}

char *cfg_format_size(uint64_t bytes)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (u < 3 && bytes && !(bytes & 1023)) {
		bytes >>= 10;
		u++;
	}
	return u < 0 ? g_strdup_printf("%" G_GUINT64_FORMAT, bytes) :
	       g_strdup_printf("%" G_GUINT64_FORMAT "%c", bytes, units[u]);
}

/* An echoed value, cut short: a line may be long. */
static char *shown(const char *value)
{
	g_autofree char *head = NULL;

	if (g_utf8_strlen(value, -1) <= 40)
		return g_strdup(value);
	head = g_utf8_substring(value, 0, 37);
	return g_strdup_printf("%s...", head);
}

enum num_kind { NUM_UINT, NUM_HEX, NUM_SIZE };

static bool get_uint(const struct cfg_file *f, const struct cfg_section *s,
		     const char *key, enum num_kind kind, uint64_t def,
		     uint64_t min, uint64_t max, uint64_t *out, GError **error)
{
	struct cfg_entry *e = take(s, key);
	g_autofree char *lo = NULL, *hi = NULL, *val = NULL;
	uint64_t v;
	bool parsed;

	*out = def;
	if (!e)
		return true;
	parsed = kind == NUM_SIZE ? cfg_parse_size(e->value, &v) :
		 cfg_parse_uint(e->value, kind == NUM_HEX, &v);
	if (parsed && v >= min && v <= max) {
		*out = v;
		return true;
	}
	lo = kind == NUM_SIZE ? cfg_format_size(min) :
	     g_strdup_printf("%" G_GUINT64_FORMAT, min);
	hi = kind == NUM_SIZE ? cfg_format_size(max) :
	     g_strdup_printf("%" G_GUINT64_FORMAT, max);
	val = shown(e->value);
	cxlbed_input_error(error, f->path, e->line, "%s: '%s' is %s; use %s to %s%s",
			   key, val, parsed ? "out of range" :
			   leading_zero(e->value) ? "written with a leading 0 "
			   "(octal to some readers; numbers are decimal)" :
			   kind == NUM_SIZE ? "not a size" :
			   "not a whole decimal number", lo, hi, kind == NUM_SIZE ?
			   " (e.g. 256M, 4G)" : kind == NUM_HEX ?
			   " (decimal, or hexadecimal with 0x)" : "");
	return false;
}

bool cfg_get_uint(const struct cfg_file *f, const struct cfg_section *s,
		  const char *key, uint64_t def, uint64_t min, uint64_t max,
		  uint64_t *out, GError **error)
{
	return get_uint(f, s, key, NUM_UINT, def, min, max, out, error);
}

bool cfg_get_uint_hex(const struct cfg_file *f, const struct cfg_section *s,
		      const char *key, uint64_t def, uint64_t min, uint64_t max,
		      uint64_t *out, GError **error)
{
	return get_uint(f, s, key, NUM_HEX, def, min, max, out, error);
}

bool cfg_get_size(const struct cfg_file *f, const struct cfg_section *s,
		  const char *key, uint64_t def, uint64_t min, uint64_t max,
		  uint64_t *out, GError **error)
{
	return get_uint(f, s, key, NUM_SIZE, def, min, max, out, error);
}

bool cfg_get_real(const struct cfg_file *f, const struct cfg_section *s,
		  const char *key, double def, double min, double max,
		  double *out, GError **error)
{
	struct cfg_entry *e = take(s, key);
	g_autofree char *val = NULL;
	double v;
	bool parsed;

	*out = def;
	if (!e)
		return true;
	parsed = cfg_parse_real(e->value, &v);
	if (parsed && v >= min && v <= max) {
		*out = v;
		return true;
	}
	val = shown(e->value);
	cxlbed_input_error(error, f->path, e->line, "%s: '%s' is %s; use %.15g to %.15g",
			   key, val, parsed ? "out of range" :
			   leading_zero(e->value) ? "written with a leading 0 "
			   "(octal to some readers; numbers are decimal)" :
			   "not a decimal number (digits, optionally a fraction "
			   "like 2.5)", min, max);
	return false;
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
