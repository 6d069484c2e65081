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
	GPtrArray *entries;	/* struct cfg_entry * */
};

struct cfg_file {
	char *path;
	GPtrArray *sections;	/* struct cfg_section * */
};

struct cfg_file *cfg_file_load(const char *path, GError **error);
struct cfg_file *cfg_file_parse(const char *path, const char *text, GError **error);
void cfg_file_free(struct cfg_file *f);
typedef struct cfg_file cfg_file;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(cfg_file, cfg_file_free)

struct cfg_entry *cfg_section_find(const struct cfg_section *s, const char *key);

/*
 * Typed getters. Absent key: return default, no error. Malformed value: set
 * *error to "FILE:LINE: key: ..." and return the default.
 */
const char *cfg_get_string(const struct cfg_file *f, const struct cfg_section *s,
			   const char *key, const char *def);
bool cfg_get_u64(const struct cfg_file *f, const struct cfg_section *s,
		 const char *key, uint64_t def, uint64_t *out, GError **error);
/* Sizes: 256M, 4G, 4096, 4k ... (binary units). */
bool cfg_get_size(const struct cfg_file *f, const struct cfg_section *s,
		  const char *key, uint64_t def, uint64_t *out, GError **error);
bool cfg_get_double(const struct cfg_file *f, const struct cfg_section *s,
		    const char *key, double def, double *out, GError **error);
bool cfg_get_bool(const struct cfg_file *f, const struct cfg_section *s,
		  const char *key, bool def, bool *out, GError **error);
/* Whitespace- or comma-separated list; NULL when absent. Free with g_strfreev. */
char **cfg_get_list(const struct cfg_file *f, const struct cfg_section *s,
		    const char *key);

/* First key of the section no getter asked for, or NULL. */
struct cfg_entry *cfg_section_first_unused(const struct cfg_section *s);

/* Parse "256M", "4G", "4k", "123" into bytes. */
bool cfg_parse_size(const char *text, uint64_t *out);

#endif
