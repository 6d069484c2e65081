/* SPDX-License-Identifier: MIT */
/* `kernel =` and --kernel: which guest kernel (kernel_spec.h). */
#include "topology/kernel_spec.h"
#include "common/cfgfile.h"
#include "common/error.h"

#include <string.h>

bool cb_kernel_is_version(const char *s)
{
	int parts = 0;

	for (const char *p = s; ; p++) {
		const char *start = p;

		while (g_ascii_isdigit(*p))
			p++;
		if (p == start || p - start > 4)
			return false;
		parts++;
		if (!*p)
			break;
		if (*p != '.')
			return false;
	}
	return parts == 2 || parts == 3;
}

bool cb_kernel_is_path(const char *s)
{
	return *s && !cb_kernel_is_version(s) && !(g_ascii_isdigit(s[0]) && !strchr(s, '/'));
}

/* An input error at FILE:LINE; without @file the message names the option. */
static void spec_error(GError **error, const char *file, int line,
		       const char *fmt, ...) G_GNUC_PRINTF(4, 5);

static void spec_error(GError **error, const char *file, int line,
		       const char *fmt, ...)
{
	g_autofree char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	if (file)
		cxlbed_input_error(error, file, line, "%s", msg);
	else
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT, "%s", msg);
}

static char *absolute(const char *path, const char *base_dir)
{
	return g_canonicalize_filename(path, base_dir);
}

struct cb_kernel_spec *cb_kernel_spec_parse(const char *value, const char *modules,
					    const char *base_dir, const char *file,
					    int line, int modules_line, GError **error)
{
	g_autoptr(cb_kernel_spec) k = g_new0(struct cb_kernel_spec, 1);
	const char *key = file ? "kernel =" : "--kernel";
	const char *mkey = file ? "kernel-modules =" : "--kernel-modules";
	g_autofree char *config = NULL;

	k->file = g_strdup(file);
	k->line_no = line;
	if (!value || !*value) {
		spec_error(error, file, line, "%s needs a Debian version line "
			   "(6.12, 7.3) or the path of a kernel build tree or bzImage", key);
		return NULL;
	}
	if (cb_kernel_is_version(value)) {
		if (modules) {
			spec_error(error, file, modules_line, "%s goes with "
				   "a bzImage, not with Debian's kernel %s", mkey, value);
			return NULL;
		}
		k->kind = CB_KERNEL_DEBIAN;
		k->line = g_strdup(value);
		return g_steal_pointer(&k);
	}
	if (!cb_kernel_is_path(value)) {
		spec_error(error, file, line, "%s '%s': not a Debian version line "
			   "(two or three numbers: 6.12, 7.3, 7.3.4); a folder of that name "
			   "is written ./%s", key, value, value);
		return NULL;
	}
	k->path = absolute(value, base_dir);
	if (g_file_test(k->path, G_FILE_TEST_IS_DIR)) {
		k->kind = CB_KERNEL_TREE;
		config = g_build_filename(k->path, ".config", NULL);
		if (modules) {
			spec_error(error, file, modules_line, "%s goes with "
				   "a bzImage; %s is a folder (a build tree holds its own "
				   "modules)", mkey, k->path);
			return NULL;
		}
		if (!g_file_test(config, G_FILE_TEST_IS_REGULAR)) {
			spec_error(error, file, line, "%s %s: a folder without "
				   ".config, so not a kernel build tree (give the tree "
				   "`make` built the kernel in, or a bzImage with %s)",
				   key, k->path, mkey);
			return NULL;
		}
		return g_steal_pointer(&k);
	}
	if (!g_file_test(k->path, G_FILE_TEST_IS_REGULAR)) {
		spec_error(error, file, line, "%s %s: no such file or folder "
			   "(a Debian version line is two or three numbers: 7.3)", key, k->path);
		return NULL;
	}
	k->kind = CB_KERNEL_IMAGE;
	if (!modules) {
		spec_error(error, file, line, "%s %s is a file, so a bzImage: "
			   "give its modules folder too (%s DIR, as modules_install "
			   "leaves it), or give the build tree instead", key, k->path, mkey);
		return NULL;
	}
	k->modules = absolute(modules, base_dir);
	if (!g_file_test(k->modules, G_FILE_TEST_IS_DIR)) {
		spec_error(error, file, modules_line, "%s %s: no such "
			   "folder", mkey, k->modules);
		return NULL;
	}
	return g_steal_pointer(&k);
}

bool cb_kernel_spec_from_section(const struct cfg_file *f, const struct cfg_section *s,
				 struct cb_kernel_spec **out, GError **error)
{
	const char *value = cfg_get_string(f, s, "kernel", NULL);
	const char *modules = cfg_get_string(f, s, "kernel-modules", NULL);
	struct cfg_entry *e = cfg_section_find(s, "kernel");
	struct cfg_entry *m = cfg_section_find(s, "kernel-modules");
	g_autofree char *dir = g_path_get_dirname(f->path);

	*out = NULL;
	if (!value && modules) {
		cxlbed_input_error(error, f->path, m->line, "kernel-modules = %s: it names "
				   "the modules of a bzImage; give the bzImage too "
				   "(kernel = PATH)", modules);
		return false;
	}
	if (!value)
		return true;
	*out = cb_kernel_spec_parse(value, modules, dir, f->path, e->line,
				    m ? m->line : e->line, error);
	return *out != NULL;
}

void cb_kernel_spec_free(struct cb_kernel_spec *k)
{
	if (!k)
		return;
	g_free(k->line);
	g_free(k->path);
	g_free(k->modules);
	g_free(k->file);
	g_free(k);
}

struct cb_kernel_spec *cb_kernel_spec_copy(const struct cb_kernel_spec *k)
{
	struct cb_kernel_spec *c;

	if (!k)
		return NULL;
	c = g_new0(struct cb_kernel_spec, 1);
	*c = *k;
	c->line = g_strdup(k->line);
	c->path = g_strdup(k->path);
	c->modules = g_strdup(k->modules);
	c->file = g_strdup(k->file);
	return c;
}

char *cb_kernel_spec_describe(const struct cb_kernel_spec *k)
{
	switch (k->kind) {
	case CB_KERNEL_DEBIAN:
		return g_strdup_printf("Debian %s", k->line);
	case CB_KERNEL_TREE:
		return g_strdup_printf("build tree %s", k->path);
	default:
		return g_strdup_printf("bzImage %s with modules %s", k->path, k->modules);
	}
}

char *cb_kernel_spec_where(const struct cb_kernel_spec *k)
{
	return k->file ? g_strdup_printf("%s:%d", k->file, k->line_no) : g_strdup("--kernel");
}
