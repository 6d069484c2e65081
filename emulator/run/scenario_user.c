/* SPDX-License-Identifier: MIT */
/*
 * The scenario keys that bring the user's own programs into the guest:
 * [scenario] packages and files (the guest's extra layer, guest_layer.c)
 * and [workload] command (any shell command line, its whole run one ROI).
 */
#include "run/scenario.h"
#include "common/error.h"

#include <string.h>
#include <sys/stat.h>

void scn_file_free(gpointer p)
{
	struct scn_file *sf = p;

	g_free(sf->host);
	g_free(sf->guest);
	g_free(sf);
}

/* Debian policy: lower case letters, digits, '+', '-', '.'; 2 or more. */
static bool debian_name(const char *n)
{
	if (strlen(n) < 2 || !g_ascii_isalnum(n[0]) || g_ascii_isupper(n[0]))
		return false;
	for (const char *p = n; *p; p++)
		if (!(g_ascii_isdigit(*p) || g_ascii_islower(*p) || strchr("+-.", *p)))
			return false;
	return true;
}

static gint cmp_str(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

bool scenario_add_packages(struct scenario *s, char **names, GError **error)
{
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func(g_free);

	for (char **n = names; n && *n; n++)
		if (!debian_name(*n)) {
			g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT,
				    "'%s' is not a Debian package name (lower case "
				    "letters, digits, '+', '-', '.')", *n);
			return false;
		}
	for (char **n = s->packages; n && *n; n++)
		g_ptr_array_add(all, g_strdup(*n));
	for (char **n = names; n && *n; n++)
		g_ptr_array_add(all, g_strdup(*n));
	g_ptr_array_sort(all, cmp_str);
	for (guint i = 1; i < all->len;)
		if (!strcmp(g_ptr_array_index(all, i), g_ptr_array_index(all, i - 1)))
			g_ptr_array_remove_index(all, i);
		else
			i++;
	g_strfreev(s->packages);
	s->packages = NULL;
	if (all->len) {
		g_ptr_array_add(all, NULL);
		g_ptr_array_set_free_func(all, NULL);
		s->packages = (char **)g_ptr_array_free(g_steal_pointer(&all), FALSE);
	}
	return true;
}

/*
 * HOSTPATH[:GUESTPATH]; GUESTPATH is absolute. Without one, an executable
 * file goes to /usr/bin (first in the guest's PATH), anything else to
 * /root (the shell's and the commands' working folder).
 */
bool scenario_add_file(struct scenario *s, const char *spec, const char *base_dir,
		       const struct cb_src *src, GError **error)
{
	const char *colon = g_strrstr(spec, ":/");
	g_autofree char *host = colon ? g_strndup(spec, colon - spec) : g_strdup(spec);
	g_autofree char *abs = NULL, *base = NULL, *guest = NULL;
	struct scn_file *sf;
	struct stat st;

	if (!*host) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT,
			    "files: '%s' has no host path (HOSTPATH[:/GUEST/PATH])", spec);
		return false;
	}
	abs = g_path_is_absolute(host) ? g_strdup(host) :
		g_build_filename(base_dir ? base_dir : ".", host, NULL);
	if (stat(abs, &st) < 0) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT,
			    "files: host path '%s' does not exist%s", abs,
			    base_dir ? " (relative paths start at the scenario's folder)" : "");
		return false;
	}
	base = g_path_get_basename(abs);
	if (colon)
		guest = g_strdup(colon + 1);
	else if (S_ISREG(st.st_mode) && (st.st_mode & 0111))
		guest = g_build_filename("/usr/bin", base, NULL);
	else
		guest = g_build_filename("/root", base, NULL);
	if (strstr(guest, "/../") || g_str_has_suffix(guest, "/..") || !strcmp(guest, "/")) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT,
			    "files: guest path '%s' must name a place below /", guest);
		return false;
	}
	sf = g_new0(struct scn_file, 1);
	sf->host = g_canonicalize_filename(abs, NULL);
	sf->guest = g_steal_pointer(&guest);
	if (src)
		sf->src = *src;
	g_ptr_array_add(s->files, sf);
	return true;
}

/* An error of @e at its own line. */
static bool entry_error(GError **error, const struct cfg_file *f, int line, GError *e)
{
	cxlbed_input_error(error, f->path, line, "%s", e->message);
	g_error_free(e);
	return false;
}

bool scenario_parse_layer(struct scenario *s, const struct cfg_file *f,
			  const struct cfg_section *sec, GError **error)
{
	g_auto(GStrv) pkgs = cfg_get_list(f, sec, "packages");
	g_auto(GStrv) files = cfg_get_list(f, sec, "files");
	g_autofree char *dir = g_path_get_dirname(f->path);
	GError *e = NULL;

	if (pkgs) {
		int line = cfg_section_find(sec, "packages")->line;

		if (!scenario_add_packages(s, pkgs, &e))
			return entry_error(error, f, line, e);
		s->packages_src = (struct cb_src){ .file = s->file, .line = line };
	}
	for (char **p = files; p && *p; p++) {
		struct cb_src src = { .file = s->file,
				      .line = cfg_section_find(sec, "files")->line };

		if (!scenario_add_file(s, *p, dir, &src, &e))
			return entry_error(error, f, src.line, e);
	}
	return true;
}

/* "{name}" placeholders (not shell's "${name}"): the known ones only. */
static bool check_placeholders(const struct scn_workload *w, const char *text,
			       const struct cfg_file *f, int line, GError **error)
{
	static const char *const known[] = { "node", "local-node", "cxl-node", "dax", NULL };

	for (const char *p = strchr(text, '{'); p; p = strchr(p + 1, '{')) {
		const char *end = p + 1;
		g_autofree char *name = NULL;

		while (g_ascii_islower(*end) || *end == '-')
			end++;
		if (*end != '}' || end == p + 1 || (p > text && p[-1] == '$'))
			continue;
		name = g_strndup(p + 1, end - p - 1);
		if (!g_strv_contains(known, name)) {
			cxlbed_input_error(error, f->path, line, "unknown placeholder "
					   "{%s}; known: {node} {local-node} {cxl-node} {dax}",
					   name);
			return false;
		}
		if (!strcmp(name, "node") && (!w->per_node || w->per_dax)) {
			cxlbed_input_error(error, f->path, line, "{node} needs "
					   "nodes = all (once per NUMA node) and dax = none; "
					   "or name {local-node} / {cxl-node}");
			return false;
		}
	}
	return true;
}

bool scenario_parse_command(struct scn_workload *w, const struct cfg_file *f,
			    const struct cfg_section *sec, GError **error)
{
	const char *command = cfg_get_string(f, sec, "command", NULL);
	struct cfg_entry *args = cfg_section_find(sec, "args");

	static const char *const command_keys[] = { "clock-check", "setup", "cleanup", NULL };

	if (!command) {
		for (const char *const *k = command_keys; *k; k++) {
			struct cfg_entry *e = cfg_section_find(sec, *k);

			if (e) {
				cxlbed_input_error(error, f->path, e->line, "%s applies "
						   "to command workloads (command = ...)", *k);
				return false;
			}
		}
		return true;
	}
	if (args) {
		cxlbed_input_error(error, f->path, args->line, "a command workload "
				   "takes no args: write them into the command");
		return false;
	}
	if (!*command) {
		cxlbed_input_error(error, f->path, cfg_section_find(sec, "command")->line,
				   "command is empty");
		return false;
	}
	w->command = g_strdup(command);
	w->setup = g_strdup(cfg_get_string(f, sec, "setup", NULL));
	w->cleanup = g_strdup(cfg_get_string(f, sec, "cleanup", NULL));
	if (!check_placeholders(w, w->command, f, cfg_section_find(sec, "command")->line,
				error) ||
	    (w->setup && !check_placeholders(w, w->setup, f,
					     cfg_section_find(sec, "setup")->line, error)) ||
	    (w->cleanup && !check_placeholders(w, w->cleanup, f,
					       cfg_section_find(sec, "cleanup")->line, error)))
		return false;
	return cfg_get_bool(f, sec, "clock-check", false, &w->clock_check, error);
}
