/* SPDX-License-Identifier: MIT */
/*
 * cfgfile: the line-oriented reader behind topology and scenario files.
 *
 *   # comment            [kind name]          key = value   # comment
 *
 * Unlike GKeyFile it remembers the line of every section and key, so every
 * later error (unknown id, bad size, ...) can name FILE:LINE.
 */
#ifndef CXLBED_CFGFILE_H
#define CXLBED_CFGFILE_H

#include <glib.h>
#include <stdint.h>
#include <stdbool.h>

struct cfg_entry {
	char *key;
	char *value;
	int line;
	bool used;	/* set by the getters: unused keys are reported as unknown */
};

struct cfg_section {
	char *kind;	/* "host", "device", ... */
	char *name;	/* may be NULL for sections like [scenario] */
	int line;
	GPtrArray *entries;	/* struct cfg_entry *, file order */
	GHashTable *keys;	/* key -> struct cfg_entry * */
};

struct cfg_file {
	char *path;
	GPtrArray *sections;	/* struct cfg_section * */
};

/*
 * What an input file may be: a regular file (not a FIFO or a device, which
 * could be read forever) of at most CFG_MAX_BYTES, UTF-8 text without NUL
 * bytes or control characters other than tab (and CR before a newline), so
 * whatever is echoed from it is safe on a terminal and in JSON.
 */
#define CFG_MAX_BYTES (4u << 20)

/* Read PATH under those rules; errors are "FILE:LINE: ..." input errors. */
bool cfg_read_text(const char *path, char **text, gsize *len, GError **error);
struct cfg_file *cfg_file_load(const char *path, GError **error);
/* @len < 0: @text is NUL-terminated. */
struct cfg_file *cfg_file_parse(const char *path, const char *text, gssize len,
				GError **error);
void cfg_file_free(struct cfg_file *f);
typedef struct cfg_file cfg_file;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(cfg_file, cfg_file_free)

struct cfg_entry *cfg_section_find(const struct cfg_section *s, const char *key);

/* A section's kind or name, or a key: letters, digits, '_', '-', '.'. */
bool cfg_word_ok(const char *w);

/*
 * A name cxlbed turns into QEMU ids, file and folder names: a letter, then
 * letters, digits, '-' or '_', at most CFG_NAME_MAX characters.
 */
#define CFG_NAME_MAX 63
bool cfg_name_ok(const char *name);
#define CFG_NAME_RULE "a letter, then letters, digits, '-' or '_' (at most 63)"
/*
 * The name a file gives when it has none: its base name less @suffix (or
 * less any extension when @suffix is NULL), made to follow the rule
 * (other characters become '_', a 't' goes before a leading non-letter).
 */
char *cfg_name_from_file(const char *path, const char *suffix);

/*
 * Typed getters. Absent key: *out = def, no error. Malformed or out of
 * [min, max]: *error is "FILE:LINE: key: ...; use MIN to MAX", *out = def.
 * Numbers are decimal (a leading 0 is not octal), checked for overflow,
 * and never NaN or infinite.
 */
const char *cfg_get_string(const struct cfg_file *f, const struct cfg_section *s,
			   const char *key, const char *def);
bool cfg_get_uint(const struct cfg_file *f, const struct cfg_section *s,
		  const char *key, uint64_t def, uint64_t min, uint64_t max,
		  uint64_t *out, GError **error);
/* The same, also taking hexadecimal with 0x (serial numbers). */
bool cfg_get_uint_hex(const struct cfg_file *f, const struct cfg_section *s,
		      const char *key, uint64_t def, uint64_t min, uint64_t max,
		      uint64_t *out, GError **error);
/* Sizes: 256M, 4G, 4096, 4k ... (binary units; K M G T, then B or iB). */
bool cfg_get_size(const struct cfg_file *f, const struct cfg_section *s,
		  const char *key, uint64_t def, uint64_t min, uint64_t max,
		  uint64_t *out, GError **error);
/* Reals: digits with an optional fraction (2.5), no sign, no exponent. */
bool cfg_get_real(const struct cfg_file *f, const struct cfg_section *s,
		  const char *key, double def, double min, double max,
		  double *out, GError **error);
bool cfg_get_bool(const struct cfg_file *f, const struct cfg_section *s,
		  const char *key, bool def, bool *out, GError **error);
/* Whitespace- or comma-separated list; NULL when absent. Free with g_strfreev. */
char **cfg_get_list(const struct cfg_file *f, const struct cfg_section *s,
		    const char *key);

/* First key of the section no getter asked for, or NULL. */
struct cfg_entry *cfg_section_first_unused(const struct cfg_section *s);

/* The parsers behind the getters; false on anything malformed or too big. */
bool cfg_parse_uint(const char *text, bool hex_ok, uint64_t *out);
bool cfg_parse_size(const char *text, uint64_t *out);
bool cfg_parse_real(const char *text, double *out);
/* "256M", "4G", "1T", "4096": the largest binary unit that divides @bytes. */
char *cfg_format_size(uint64_t bytes);

#endif
