/* SPDX-License-Identifier: MIT */
#include "common/paths.h"

#include <glib.h>

const char *cxlbed_root(void)
{
	static char *root;

	if (!root) {
		const char *env = g_getenv("CXLBED_ROOT");
		g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);

		if (env && *env)
			root = g_strdup(env);
		else if (exe)
			root = g_path_get_dirname(exe);
		else
			root = g_get_current_dir();
	}
	return root;
}

const char *cxlbed_path(const char *relative)
{
	static GHashTable *cache;
	char *p;

	if (g_path_is_absolute(relative))
		return relative;
	if (!cache)
		cache = g_hash_table_new(g_str_hash, g_str_equal);
	p = g_hash_table_lookup(cache, relative);
	if (!p) {
		p = g_build_filename(cxlbed_root(), relative, NULL);
		g_hash_table_insert(cache, g_strdup(relative), p);
	}
	return p;
}

const char *cxlbed_state_dir(void)
{
	static char *dir;

	if (!dir) {
		const char *env = g_getenv("CXLBED_STATE_DIR");

		dir = env && *env ? g_strdup(env) :
			g_build_filename(g_get_user_cache_dir(), "cxlbed", NULL);
	}
	return dir;
}
