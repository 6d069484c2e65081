/* SPDX-License-Identifier: MIT */
#include "qemu/qemu_binary.h"
#include "common/error.h"
#include "common/paths.h"

#include <limits.h>
#include <string.h>
#include <unistd.h>

/* QEMU 10 carries data through the host bridge, a root port and one switch. */
#define STOCK_QEMU_SWITCH_LEVELS 1
#define QEMU_MIN_MAJOR 10

static struct qemu_binary chosen;
static bool asked;

const char *qemu_binary_path(void)
{
	const char *env = g_getenv("CXLBED_QEMU");
	const char *built = cxlbed_path(CXLBED_BUILT_QEMU);

	if (env && *env)
		return env;
	if (g_file_test(built, G_FILE_TEST_IS_EXECUTABLE))
		return built;
	return "qemu-system-x86_64";
}

/* "QEMU emulator version 10.0.13 (cxlbed-0123abcd4567)" */
bool qemu_binary_parse_version(struct qemu_binary *b, const char *out)
{
	static const char lead[] = "QEMU emulator version ";
	const char *v = out ? strstr(out, lead) : NULL;
	const char *end, *pkg;

	if (!v)
		return false;
	v += sizeof(lead) - 1;
	end = v + strspn(v, "0123456789.");
	if (end == v)
		return false;
	g_free(b->version);
	g_free(b->package);
	b->version = g_strndup(v, end - v);
	pkg = *end == ' ' && end[1] == '(' ? end + 2 : NULL;
	b->package = pkg && strchr(pkg, ')') ? g_strndup(pkg, strchr(pkg, ')') - pkg) :
		g_strdup("");
	b->cxlbed_build = g_str_has_prefix(b->package, CXLBED_QEMU_TAG);
	return true;
}

static bool ask(struct qemu_binary *b, const char *path, GError **error)
{
	const char *argv[] = { path, "--version", NULL };
	g_autofree char *out = NULL;
	g_autoptr(GError) err = NULL;
	int status = 0;

	if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH |
			  G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
			  &status, &err) ||
	    !g_spawn_check_wait_status(status, NULL) ||
	    !qemu_binary_parse_version(b, out)) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN,
			    "QEMU %s does not run (%s): build cxlbed's with make, "
			    "or name one with --qemu PATH", path,
			    err ? err->message : "no version");
		return false;
	}
	if (atoi(b->version) < QEMU_MIN_MAJOR) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN,
			    "QEMU %s is version %s: cxlbed needs %d or newer",
			    path, b->version, QEMU_MIN_MAJOR);
		return false;
	}
	g_free(b->path);
	b->path = g_strdup(path);
	return true;
}

bool qemu_binary_choose(const char *path, GError **error)
{
	struct qemu_binary b = { 0 };
	g_autofree char *abs = NULL;
	g_autoptr(GError) err = NULL;

	if (!path)
		return true;
	/* a path as given, so a relative one still works from a run folder */
	abs = strchr(path, '/') ? g_canonicalize_filename(path, NULL) : g_strdup(path);
	if (!ask(&b, abs, &err)) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT, "--qemu %s: %s",
			    path, err->message);
		g_free(b.version);
		g_free(b.package);
		return false;
	}
	g_setenv("CXLBED_QEMU", abs, TRUE);
	g_free(chosen.path);
	g_free(chosen.version);
	g_free(chosen.package);
	chosen = b;
	asked = true;
	return true;
}

const struct qemu_binary *qemu_binary_get(GError **error)
{
	if (!asked && !ask(&chosen, qemu_binary_path(), error))
		return NULL;
	asked = true;
	return &chosen;
}

int qemu_binary_switch_levels(void)
{
	const struct qemu_binary *b = qemu_binary_get(NULL);

	return b && b->cxlbed_build ? INT_MAX : STOCK_QEMU_SWITCH_LEVELS;
}
