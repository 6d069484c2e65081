/* SPDX-License-Identifier: MIT */
#include "run/guest_layer.h"
#include "qemu/argv.h"
#include "common/error.h"
#include "common/paths.h"
#include "common/progress.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEY_FORMAT "cxlbed-layer/1"
#define KEY_CHARS 16	/* of the hex digest, in file names */

bool guest_layer_wanted(const struct scenario *s)
{
	return (s->packages && s->packages[0]) || (s->files && s->files->len);
}

static bool input_error(GError **error, const struct cb_src *src, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);

static bool input_error(GError **error, const struct cb_src *src, const char *fmt, ...)
{
	va_list ap;
	g_autofree char *msg = NULL;

	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	if (src && src->file)
		cxlbed_input_error(error, src->file, src->line, "%s", msg);
	else
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT, "--packages: %s", msg);
	return false;
}

/* Names `apt-cache policy` knows with a real candidate version. */
static GHashTable *apt_candidates(char *const *names, GError **error)
{
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_autofree char *out = NULL;
	g_auto(GStrv) lines = NULL;
	GHashTable *ok = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	char *current = NULL;
	gint status;

	g_ptr_array_add(argv, "apt-cache");
	g_ptr_array_add(argv, "policy");
	for (char *const *n = names; *n; n++)
		g_ptr_array_add(argv, *n);
	g_ptr_array_add(argv, NULL);
	if (!g_spawn_sync(NULL, (char **)argv->pdata, NULL,
			  G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
			  &out, NULL, &status, error)) {
		g_prefix_error(error, "packages need APT (a Debian 12 host): ");
		g_hash_table_unref(ok);
		return NULL;
	}
	lines = g_strsplit(out, "\n", -1);
	for (char **l = lines; *l; l++) {
		if (**l && !g_ascii_isspace(**l) && g_str_has_suffix(*l, ":")) {
			g_free(current);
			current = g_strndup(*l, strlen(*l) - 1);
		} else if (current && g_str_has_prefix(g_strchug(*l), "Candidate:") &&
			   !strstr(*l, "(none)")) {
			g_hash_table_add(ok, current);
			current = NULL;
		}
	}
	g_free(current);
	return ok;
}

bool guest_layer_check_packages(char *const *names, const struct cb_src *src,
				GError **error)
{
	g_autoptr(GHashTable) ok = NULL;

	if (!names || !names[0])
		return true;
	ok = apt_candidates(names, error);
	if (!ok) {
		g_autofree char *msg = g_strdup((*error)->message);

		g_clear_error(error);
		return input_error(error, src, "%s", msg);
	}
	for (char *const *n = names; *n; n++)
		if (!g_hash_table_contains(ok, *n))
			return input_error(error, src, "package '%s' is not in APT's sources "
					   "(no installable candidate): check the name "
					   "(apt-cache search), or run apt-get update", *n);
	return true;
}

bool guest_layer_add_cli(struct scenario *s, char **package_lists,
			 char **file_specs, GError **error)
{
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);

	for (char **l = package_lists; l && *l; l++) {
		g_auto(GStrv) parts = g_strsplit_set(*l, " \t,", -1);

		for (char **p = parts; *p; p++)
			if (**p)
				g_ptr_array_add(names, g_strdup(*p));
	}
	g_ptr_array_add(names, NULL);
	if (!scenario_add_packages(s, (char **)names->pdata, error) ||
	    !guest_layer_check_packages((char **)names->pdata, NULL, error))
		return false;
	for (char **f = file_specs; f && *f; f++)
		if (!scenario_add_file(s, *f, NULL, NULL, error)) {
			g_prefix_error(error, "--files ");
			return false;
		}
	return true;
}

static void hash_file(GChecksum *c, const char *path, GError **error)
{
	g_autofree char *text = NULL;
	gsize len;

	if (!g_file_get_contents(path, &text, &len, error))
		return;
	g_checksum_update(c, (const guchar *)text, len);
}

static gint cmp_names(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A host file or tree: names, modes, and contents (link targets). */
static void hash_tree(GChecksum *c, const char *path, const char *rel)
{
	struct stat st;
	g_autofree char *line = NULL;

	if (lstat(path, &st) < 0)
		return;
	line = g_strdup_printf("%s %o %lld\n", rel, st.st_mode, (long long)st.st_size);
	g_checksum_update(c, (const guchar *)line, -1);
	if (S_ISLNK(st.st_mode)) {
		g_autofree char *t = g_file_read_link(path, NULL);

		if (t)
			g_checksum_update(c, (const guchar *)t, -1);
	} else if (S_ISREG(st.st_mode)) {
		g_autoptr(GMappedFile) m = g_mapped_file_new(path, FALSE, NULL);

		if (m)
			g_checksum_update(c, (const guchar *)g_mapped_file_get_contents(m),
					  g_mapped_file_get_length(m));
	} else if (S_ISDIR(st.st_mode)) {
		g_autoptr(GDir) d = g_dir_open(path, 0, NULL);
		g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
		const char *n;

		while (d && (n = g_dir_read_name(d)))
			g_ptr_array_add(names, g_strdup(n));
		g_ptr_array_sort(names, cmp_names);
		for (guint i = 0; i < names->len; i++) {
			const char *name = g_ptr_array_index(names, i);
			g_autofree char *sub = g_build_filename(path, name, NULL);
			g_autofree char *subrel = g_build_filename(rel, name, NULL);

			hash_tree(c, sub, subrel);
		}
	}
}

char *guest_layer_key(const struct scenario *s, const char *manifest, GError **error)
{
	g_autoptr(GChecksum) c = g_checksum_new(G_CHECKSUM_SHA256);
	GError *e = NULL;

	g_checksum_update(c, (const guchar *)KEY_FORMAT "\n", -1);
	hash_file(c, cxlbed_path(GUEST_LAYER_BUILDER), &e);
	if (!e)
		hash_file(c, manifest ? manifest : cxlbed_path(GUEST_BASE_MANIFEST), &e);
	if (e) {
		g_propagate_prefixed_error(error, e, "guest layer (run make): ");
		return NULL;
	}
	for (char **p = s->packages; p && *p; p++) {
		g_checksum_update(c, (const guchar *)"package ", -1);
		g_checksum_update(c, (const guchar *)*p, -1);
		g_checksum_update(c, (const guchar *)"\n", 1);
	}
	for (guint i = 0; s->files && i < s->files->len; i++) {
		const struct scn_file *f = g_ptr_array_index(s->files, i);
		g_autofree char *head = g_strdup_printf("file %s\n", f->guest);

		g_checksum_update(c, (const guchar *)head, -1);
		hash_tree(c, f->host, ".");
	}
	return g_strdup(g_checksum_get_string(c));
}

static bool run_builder(const struct scenario *s, const char *manifest, const char *out,
			GError **error)
{
	g_autofree char *list = g_strdup_printf("%s.files.%d", out, (int)getpid());
	g_autoptr(GString) text = g_string_new(NULL);
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	gint status;
	bool ok;

	for (guint i = 0; i < s->files->len; i++) {
		const struct scn_file *f = g_ptr_array_index(s->files, i);

		g_string_append_printf(text, "%s\t%s\n", f->host, f->guest);
	}
	if (!g_file_set_contents(list, text->str, -1, error))
		return false;
	g_ptr_array_add(argv, "sh");
	g_ptr_array_add(argv, (char *)cxlbed_path(GUEST_LAYER_BUILDER));
	g_ptr_array_add(argv, "-c");
	g_ptr_array_add(argv, (char *)cxlbed_path(GUEST_LAYER_DEBS));
	g_ptr_array_add(argv, "-f");
	g_ptr_array_add(argv, list);
	g_ptr_array_add(argv, (char *)manifest);
	g_ptr_array_add(argv, (char *)out);
	for (char **p = s->packages; p && *p; p++)
		g_ptr_array_add(argv, *p);
	g_ptr_array_add(argv, NULL);
	/* its messages go straight to our stderr, beside the progress lines */
	ok = g_spawn_sync(cxlbed_root(), (char **)argv->pdata, NULL, G_SPAWN_SEARCH_PATH,
			  NULL, NULL, NULL, NULL, &status, error) &&
		g_spawn_check_wait_status(status, error);
	unlink(list);
	if (!ok)
		g_prefix_error(error, "%s: ", GUEST_LAYER_BUILDER);
	return ok;
}

static bool newer_or_same(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
		(sa.st_mtim.tv_sec > sb.st_mtim.tv_sec ||
		 (sa.st_mtim.tv_sec == sb.st_mtim.tv_sec &&
		  sa.st_mtim.tv_nsec >= sb.st_mtim.tv_nsec));
}

/* base + layer, back to back; kept until either is newer. */
static bool write_initrd(const char *base, const char *layer, const char *initrd,
			 GError **error)
{
	g_autofree char *tmp = g_strdup_printf("%s.%d", initrd, (int)getpid());
	g_autofree char *a = NULL, *b = NULL;
	gsize na, nb;
	FILE *f;
	bool ok;

	if (newer_or_same(initrd, base) && newer_or_same(initrd, layer))
		return true;
	if (!g_file_get_contents(base, &a, &na, error) ||
	    !g_file_get_contents(layer, &b, &nb, error))
		return false;
	f = fopen(tmp, "we");
	if (!f) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN, "%s: %s", tmp,
			    g_strerror(errno));
		return false;
	}
	ok = fwrite(a, 1, na, f) == na && fwrite(b, 1, nb, f) == nb;
	ok = fclose(f) == 0 && ok;
	if (!ok || rename(tmp, initrd) < 0) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN, "writing %s: %s",
			    initrd, g_strerror(errno));
		unlink(tmp);
		return false;
	}
	return true;
}

char *guest_layer_prepare(const struct scenario *s, const char *base, const char *manifest,
			  bool *built, GError **error)
{
	g_autofree char *key = NULL;
	g_autofree char *dir = NULL, *layer = NULL, *initrd = NULL, *what = NULL;

	if (!base)
		base = cxlbed_path(CXLBED_DEFAULT_INITRD);
	if (!manifest)
		manifest = cxlbed_path(GUEST_BASE_MANIFEST);
	key = guest_layer_key(s, manifest, error);

	*built = false;
	if (!key)
		return NULL;
	key[KEY_CHARS] = '\0';
	dir = g_strdup(cxlbed_path(GUEST_LAYER_DIR));
	layer = g_strdup_printf("%s/%s.cpio.gz", dir, key);
	initrd = g_strdup_printf("%s/%s.initrd", dir, key);
	what = s->packages ? g_strjoinv(" ", s->packages) : g_strdup("no packages");
	if (s->files->len) {
		g_autofree char *w = what;

		what = g_strdup_printf("%s, %u host path(s)", w, s->files->len);
	}
	if (g_mkdir_with_parents(dir, 0755) < 0) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN, "%s: %s", dir,
			    g_strerror(errno));
		return NULL;
	}
	if (g_file_test(layer, G_FILE_TEST_EXISTS)) {
		progress(NULL, "layer", "reused %s/%s.cpio.gz (%s)", GUEST_LAYER_DIR, key, what);
	} else {
		gint64 t0 = g_get_monotonic_time();

		progress(NULL, "layer", "building %s/%s.cpio.gz (%s)", GUEST_LAYER_DIR, key, what);
		if (!run_builder(s, manifest, layer, error))
			return NULL;
		*built = true;
		progress(NULL, "layer", "built %s/%s.cpio.gz in %.1f s", GUEST_LAYER_DIR, key,
			 (g_get_monotonic_time() - t0) / 1e6);
	}
	if (!write_initrd(base, layer, initrd, error))
		return NULL;
	return g_steal_pointer(&initrd);
}
