/* SPDX-License-Identifier: MIT */
/* The guest kernel a run boots (guest_kernel.h). */
#include "run/guest_kernel.h"
#include "common/error.h"
#include "common/paths.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

/* The scripts' exit status for a kernel cxlbed refuses (bad input). */
#define SCRIPT_REFUSED 3

void guest_kernel_free(struct guest_kernel *k)
{
	if (!k)
		return;
	g_free(k->chosen_by);
	g_free(k->dir);
	g_free(k->release);
	g_free(k->source);
	g_free(k->version);
	g_free(k->suite);
	g_free(k->package);
	g_free(k->path);
	g_free(k->modules);
	g_free(k->link_from);
	g_free(k->config_from);
	g_free(k->pending);
	g_free(k);
}

/* An input error at the place @spec was given. */
static void refuse(GError **error, const struct cb_kernel_spec *spec, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);

static void refuse(GError **error, const struct cb_kernel_spec *spec, const char *fmt, ...)
{
	g_autofree char *msg = NULL, *what = NULL;
	va_list ap;

	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	if (!spec) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT, "the default guest kernel "
			    "(%s): %s", GUEST_DEFAULT_IMAGE_DIR, msg);
		return;
	}
	what = spec->kind == CB_KERNEL_DEBIAN ? g_strdup(spec->line) : g_strdup(spec->path);
	if (spec->file)
		cxlbed_input_error(error, spec->file, spec->line_no, "kernel = %s: %s", what, msg);
	else
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT, "--kernel %s: %s", what, msg);
}

/*
 * Run a script of ours from the cxlbed root: its stdout into *out (may be
 * NULL), its messages to our stderr after it ends. A refusal (exit 3)
 * becomes an input error at @spec's place with the script's last line.
 */
static bool run_script(const struct cb_kernel_spec *spec, char **argv, char **out,
		       GError **error)
{
	g_autofree char *so = NULL, *se = NULL;
	g_autoptr(GError) e = NULL;
	gint status;

	if (!g_spawn_sync(cxlbed_root(), argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
			  &so, &se, &status, &e)) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN, "%s: %s", argv[1], e->message);
		return false;
	}
	if (se && *se)
		fputs(se, stderr);
	if (!g_spawn_check_wait_status(status, &e)) {
		g_auto(GStrv) lines = g_strsplit(se ? g_strstrip(se) : "", "\n", -1);
		guint n = g_strv_length(lines);
		const char *last = n ? lines[n - 1] : "failed";

		if (WIFEXITED(status) && WEXITSTATUS(status) == SCRIPT_REFUSED)
			refuse(error, spec, "%s", last);
		else
			g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN, "%s: %s", argv[1], last);
		return false;
	}
	if (out)
		*out = g_strdup(g_strstrip(so));
	return true;
}

/* kernel.env (KEY=VALUE lines) into @k. */
static bool read_env(struct guest_kernel *k, GError **error)
{
	g_autofree char *path = g_build_filename(k->dir, "kernel.env", NULL);
	g_autofree char *text = NULL;
	g_auto(GStrv) lines = NULL;
	const char *unit = NULL, *width = NULL;

	if (!g_file_get_contents(path, &text, NULL, error)) {
		g_prefix_error(error, "the guest kernel's description (run make): ");
		return false;
	}
	lines = g_strsplit(text, "\n", -1);
	for (char **l = lines; *l; l++) {
		char *eq = strchr(*l, '=');
		static const struct { const char *key; size_t off; } keys[] = {
#define K(f) { #f, offsetof(struct guest_kernel, f) }
			K(release), K(source), K(version), K(suite), K(package), K(path),
			K(modules), K(config_from),
#undef K
		};

		if (!eq)
			continue;
		*eq = '\0';
		for (guint i = 0; i < G_N_ELEMENTS(keys); i++)
			if (!strcmp(*l, keys[i].key)) {
				char **f = (char **)((char *)k + keys[i].off);

				g_free(*f);
				*f = g_strdup(eq + 1);
			}
		if (!strcmp(*l, "cxl_link_unit"))
			unit = eq + 1;
		else if (!strcmp(*l, "cxl_link_width"))
			width = eq + 1;
		else if (!strcmp(*l, "cxl_link_from"))
			k->link_from = (g_free(k->link_from), g_strdup(eq + 1));
	}
	k->link = kernel_link_rule_parse(unit, width);
	if (!k->release) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN, "%s names no release "
			    "(run make)", path);
		return false;
	}
	return true;
}

static char *default_release(void)
{
	g_autofree char *text = NULL;
	g_autofree char *path = g_build_filename(cxlbed_path(GUEST_DEFAULT_IMAGE_DIR),
						 "kernel.release", NULL);

	return g_file_get_contents(path, &text, NULL, NULL) ? g_strdup(g_strstrip(text)) : NULL;
}

/* Is @release ("7.3.4+deb13-amd64") of @line ("7.3" or "7.3.4")? */
static bool of_line(const char *release, const char *line)
{
	size_t n = strlen(line);
	char next = release[n];

	if (strncmp(release, line, n))
		return false;
	return strchr(line, '.') != strrchr(line, '.') ?
		(next == '+' || next == '-' || next == '\0') : next == '.';
}

static gint newer_first(gconstpointer a, gconstpointer b)
{
	int va[3], vb[3];

	kernel_version(*(const char *const *)a, va);
	kernel_version(*(const char *const *)b, vb);
	for (int i = 0; i < 3; i++)
		if (va[i] != vb[i])
			return vb[i] - va[i];
	return strcmp(*(const char *const *)b, *(const char *const *)a);
}

/* The newest release of @line fetched before (build/cache/kernels/R.list). */
static char *cached_release(const char *line)
{
	g_autoptr(GDir) d = g_dir_open(cxlbed_path(GUEST_KERNEL_CACHE), 0, NULL);
	g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func(g_free);
	const char *name;

	while (d && (name = g_dir_read_name(d)))
		if (g_str_has_suffix(name, ".list")) {
			g_autofree char *rel = g_strndup(name, strlen(name) - 5);

			if (of_line(rel, line))
				g_ptr_array_add(found, g_steal_pointer(&rel));
		}
	if (!found->len)
		return NULL;
	g_ptr_array_sort(found, newer_first);
	return g_strdup(g_ptr_array_index(found, 0));
}

static char *user_key(const struct cb_kernel_spec *spec)
{
	g_autofree char *id = g_strdup_printf("%s\n%s", spec->path,
					      spec->modules ? spec->modules : "");
	g_autofree char *sum = g_compute_checksum_for_string(G_CHECKSUM_SHA256, id, -1);

	return g_strdup_printf("user-%.16s", sum);
}

static bool config_step(const struct cb_kernel_spec *spec, struct guest_kernel *k,
			const char *form, const char *a, const char *b, GError **error)
{
	char *argv[] = { "sh", (char *)cxlbed_path(GUEST_KERNEL_PREPARE), "config", k->dir,
			 (char *)form, (char *)a, (char *)b, NULL };

	return run_script(spec, argv, NULL, error);
}

/* A Debian kernel: here already, fetched now, or (plan) pending. */
static bool find_debian(const struct cb_kernel_spec *spec, struct guest_kernel *k,
			bool fetch, GError **error)
{
	g_autofree char *def = default_release();
	g_autofree char *rel = NULL, *list = NULL;

	if (def && of_line(def, spec->line)) {
		k->is_default = true;
		k->dir = g_strdup(cxlbed_path(GUEST_DEFAULT_IMAGE_DIR));
		return true;
	}
	rel = cached_release(spec->line);
	if (!rel && !fetch) {
		k->pending = g_strdup_printf("Debian %s is not in %s yet: cxlbed run downloads "
					     "the newest %s release a Debian suite serves",
					     spec->line, GUEST_KERNEL_CACHE, spec->line);
		return true;
	}
	if (!rel) {
		char *argv[] = { "sh", (char *)cxlbed_path(GUEST_KERNEL_FETCH), spec->line,
				 (char *)cxlbed_path(GUEST_KERNEL_CACHE), NULL };
		gint64 t0 = g_get_monotonic_time();

		g_printerr("cxlbed: kernel %s: not here yet, downloading it into %s\n",
			   spec->line, GUEST_KERNEL_CACHE);
		if (!run_script(spec, argv, &rel, error))
			return false;
		g_printerr("cxlbed: kernel %s: %s downloaded in %.1f s\n", spec->line, rel,
			   (g_get_monotonic_time() - t0) / 1e6);
	}
	list = g_strdup_printf("%s/%s.list", cxlbed_path(GUEST_KERNEL_CACHE), rel);
	k->dir = g_strdup_printf("%s/debian-%s", cxlbed_path(GUEST_KERNELS_DIR), rel);
	return config_step(spec, k, "debian", list, NULL, error);
}

static bool topology_persistent(const struct cb_topology *t)
{
	const struct cb_device *d;

	if (!t)
		return false;
	cb_foreach(t->devices, const struct cb_device, d)
		if (d->persistent)
			return true;
	return false;
}

struct kconfig *guest_kernel_config(const struct guest_kernel *k)
{
	g_autofree char *path = NULL;

	if (!k->release)
		return NULL;
	path = guest_kernel_file(k, "config");
	return kconfig_load(path, NULL);
}

struct guest_kernel *guest_kernel_find(const struct cb_kernel_spec *spec,
				       const struct cb_topology *t, bool fetch,
				       GError **error)
{
	g_autoptr(guest_kernel) k = g_new0(struct guest_kernel, 1);
	g_autoptr(kconfig) config = NULL;
	g_autofree char *missing = NULL, *config_path = NULL, *config_text = NULL;
	g_autofree char *key = NULL;
	bool ok = true;

	if (spec) {
		g_autofree char *what = cb_kernel_spec_describe(spec);
		g_autofree char *where = cb_kernel_spec_where(spec);

		k->chosen_by = g_strdup_printf("%s (%s)", what, where);
	} else {
		k->chosen_by = g_strdup("default");
	}
	if (!spec) {
		k->is_default = true;
		k->dir = g_strdup(cxlbed_path(GUEST_DEFAULT_IMAGE_DIR));
	} else if (spec->kind == CB_KERNEL_DEBIAN) {
		ok = find_debian(spec, k, fetch, error);
	} else {
		key = user_key(spec);
		k->dir = g_strdup_printf("%s/%s", cxlbed_path(GUEST_KERNELS_DIR), key);
		ok = spec->kind == CB_KERNEL_TREE ?
			config_step(spec, k, "tree", spec->path, NULL, error) :
			config_step(spec, k, "image", spec->path, spec->modules, error);
	}
	if (!ok)
		return NULL;
	if (k->pending)
		return g_steal_pointer(&k);
	if (!read_env(k, error))
		return NULL;
	config_path = guest_kernel_file(k, "config");
	if (!g_file_get_contents(config_path, &config_text, NULL, error)) {
		g_prefix_error(error, "the guest kernel's .config: ");
		return NULL;
	}
	/* its lines as the file it was taken from numbers them */
	config = kconfig_parse(k->config_from ? k->config_from : config_path, config_text);
	missing = kconfig_missing(config, topology_persistent(t));
	if (missing) {
		g_autofree char *indented = NULL;
		g_auto(GStrv) lines = g_strsplit(missing, "\n", -1);

		indented = g_strjoinv("\n  ", lines);
		refuse(error, spec, "kernel %s lacks what cxlbed needs:\n  %s", k->release,
		       indented);
		return NULL;
	}
	return g_steal_pointer(&k);
}

bool guest_kernel_build(const struct guest_kernel *k, const struct cb_kernel_spec *spec,
			GError **error)
{
	g_autofree char *bin = g_build_filename(cxlbed_path(GUEST_DEFAULT_IMAGE_DIR), "bin", NULL);
	char *argv[] = { "sh", (char *)cxlbed_path(GUEST_KERNEL_PREPARE), "image", k->dir,
			 "/bin/busybox", bin, NULL };
	g_autofree char *initrd = guest_kernel_file(k, "initramfs.cpio.gz");
	gint64 t0 = g_get_monotonic_time();

	if (k->is_default) {
		g_autofree char *boot = guest_kernel_boot_file(k);

		if (g_file_test(boot, G_FILE_TEST_EXISTS) && g_file_test(initrd, G_FILE_TEST_EXISTS))
			return true;
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN, "guest image missing "
			    "(%s, %s): run make", boot, initrd);
		return false;
	}
	if (!run_script(spec, argv, NULL, error))
		return false;
	if ((g_get_monotonic_time() - t0) > 2 * G_USEC_PER_SEC)
		g_printerr("cxlbed: kernel %s: guest image built in %.1f s (%s)\n", k->release,
			   (g_get_monotonic_time() - t0) / 1e6, k->dir);
	return true;
}

struct guest_kernel *guest_kernel_prepare(const struct cb_kernel_spec *spec,
					  const struct cb_topology *t, GError **error)
{
	g_autoptr(guest_kernel) k = guest_kernel_find(spec, t, true, error);

	if (!k || !guest_kernel_build(k, spec, error))
		return NULL;
	return g_steal_pointer(&k);
}

char *guest_kernel_file(const struct guest_kernel *k, const char *name)
{
	return g_build_filename(k->dir, name, NULL);
}

char *guest_kernel_boot_file(const struct guest_kernel *k)
{
	char *vmlinux = guest_kernel_file(k, "vmlinux");

	if (g_file_test(vmlinux, G_FILE_TEST_EXISTS))
		return vmlinux;
	g_free(vmlinux);
	return guest_kernel_file(k, "vmlinuz");
}

char *guest_kernel_describe(const struct guest_kernel *k)
{
	if (!k->release)
		return g_strdup(k->pending);
	if (!g_strcmp0(k->source, "debian"))
		return g_strdup_printf("%s (Debian %s%s%s)", k->release,
				       k->version ? k->version : "?", k->suite ? ", " : "",
				       k->suite ? k->suite : "");
	return g_strdup_printf("%s (your build: %s%s%s)", k->release, k->path,
			       k->modules ? ", modules " : "", k->modules ? k->modules : "");
}

char *guest_kernel_policy_unavailable(const struct guest_kernel *k, const char *policy)
{
	g_autoptr(kconfig) config = guest_kernel_config(k);

	return kernel_policy_unavailable(policy, k->release, config);
}

static const char *tristate_word(enum kernel_tristate t, const char *yes, const char *no)
{
	return t == KT_YES ? yes : t == KT_NO ? no : "unknown";
}

JsonObject *guest_kernel_to_json(const struct guest_kernel *k)
{
	JsonObject *o = json_object_new(), *link = json_object_new(), *pol = json_object_new();
	static const struct { const char *key; size_t off; } strs[] = {
#define S(f) { #f, offsetof(struct guest_kernel, f) }
		S(release), S(source), S(version), S(suite), S(package), S(path),
		S(modules), S(chosen_by),
#undef S
	};

	for (guint i = 0; i < G_N_ELEMENTS(strs); i++) {
		const char *v = *(char *const *)((const char *)k + strs[i].off);

		if (v)
			json_object_set_string_member(o, strs[i].key, v);
	}
	json_object_set_string_member(o, "image", k->dir);
	json_object_set_string_member(link, "unit", tristate_word(k->link.ns, "ns", "ps"));
	json_object_set_string_member(link, "width", tristate_word(k->link.width, "yes", "no"));
	if (k->link_from)
		json_object_set_string_member(link, "from", k->link_from);
	json_object_set_object_member(o, "cxl_link_latency", link);
	for (int i = 0; kernel_policies[i]; i++) {
		JsonObject *p = json_object_new();
		g_autofree char *why = guest_kernel_policy_unavailable(k, kernel_policies[i]);

		json_object_set_boolean_member(p, "available", why == NULL);
		if (why)
			json_object_set_string_member(p, "why", why);
		json_object_set_object_member(pol, kernel_policies[i], p);
	}
	json_object_set_object_member(o, "policies", pol);
	return o;
}
