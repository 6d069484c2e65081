/* SPDX-License-Identifier: MIT */
#include "run/run_dir.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *run_stamp_new(void)
{
	static char last[32];
	static int again;	/* stamps this process already made this second */
	g_autoptr(GDateTime) now = g_date_time_new_now_utc();
	g_autofree char *stamp = g_date_time_format(now, "%Y%m%d-%H%M%S");

	if (strcmp(stamp, last)) {
		g_strlcpy(last, stamp, sizeof(last));
		again = 0;
		return g_strdup_printf("%s-%d", stamp, (int)getpid());
	}
	/* `cxlbed table` runs one topology after another in one process. */
	return g_strdup_printf("%s-%d.%d", stamp, (int)getpid(), ++again + 1);
}

char *run_id_new(const char *name)
{
	g_autofree char *stamp = run_stamp_new();

	return g_strdup_printf("%s-%s", stamp, name);
}

/* The first entry of folder @dir, or NULL when it is empty. */
static char *first_entry(const char *dir)
{
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	const char *name = d ? g_dir_read_name(d) : NULL;

	return g_strdup(name);
}

/* The nearest ancestor of @path that exists (the path itself if it does). */
static char *existing_ancestor(const char *path)
{
	char *p = g_canonicalize_filename(path, NULL);

	while (!g_file_test(p, G_FILE_TEST_EXISTS) && strcmp(p, "/")) {
		char *up = g_path_get_dirname(p);

		g_free(p);
		p = up;
	}
	return p;
}

static bool refuse(GError **error, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static bool refuse(GError **error, const char *fmt, ...)
{
	va_list ap;
	g_autofree char *msg = NULL;

	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	g_set_error_literal(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, msg);
	return false;
}

bool run_out_acceptable(const char *dir, const char *flag, GError **error)
{
	g_autofree char *base = NULL;
	g_autofree char *entry = NULL;

	if (!*dir)
		return refuse(error, "%s: empty path; give a new or empty folder", flag);
	if (strchr(dir, ','))
		return refuse(error, "%s %s: the path has a ',', which QEMU option values "
			      "cannot carry; choose a folder without one", flag, dir);
	if (g_file_test(dir, G_FILE_TEST_EXISTS)) {
		if (!g_file_test(dir, G_FILE_TEST_IS_DIR))
			return refuse(error, "%s %s: exists and is not a folder; give a new "
				      "or empty folder", flag, dir);
		entry = first_entry(dir);
		if (entry)
			return refuse(error, "%s %s: folder is not empty (it holds %s); "
				      "cxlbed never writes over results: give a new or empty "
				      "folder", flag, dir, entry);
		if (access(dir, W_OK | X_OK) < 0)
			return refuse(error, "%s %s: folder is not writable (%s); give "
				      "one you can write", flag, dir, g_strerror(errno));
		return true;
	}
	base = existing_ancestor(dir);
	if (!g_file_test(base, G_FILE_TEST_IS_DIR))
		return refuse(error, "%s %s: cannot be created, %s is not a folder; "
			      "give a path under a folder you can write", flag, dir, base);
	if (access(base, W_OK | X_OK) < 0)
		return refuse(error, "%s %s: cannot be created in %s (%s); give a path "
			      "under a folder you can write", flag, dir, base, g_strerror(errno));
	return true;
}

bool run_dir_make(const char *dir, bool exclusive, bool *created, GError **error)
{
	g_autofree char *parent = g_path_get_dirname(dir);
	g_autofree char *entry = NULL;

	*created = false;
	if (g_mkdir_with_parents(parent, 0755) < 0) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "cannot create %s: %s; give a path under a folder you can write",
			    parent, g_strerror(errno));
		return false;
	}
	if (mkdir(dir, RUN_DIR_MODE) == 0) {
		*created = true;
		return true;
	}
	if (errno != EEXIST || exclusive) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "cannot create %s: %s%s", dir, g_strerror(errno),
			    errno == EEXIST ? "" : "; give a path under a folder you can write");
		return false;
	}
	if (!g_file_test(dir, G_FILE_TEST_IS_DIR) || (entry = first_entry(dir))) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
			    "%s: not an empty folder (it holds %s)", dir,
			    entry ? entry : "a file");
		return false;
	}
	/* an empty --out folder becomes the run's: the user's alone too */
	if (chmod(dir, RUN_DIR_MODE) < 0) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "%s: cannot make it the run's folder (mode 0700: its sockets "
			    "drive QEMU): %s; give a folder of your own", dir, g_strerror(errno));
		return false;
	}
	return true;
}
