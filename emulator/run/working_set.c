/* SPDX-License-Identifier: MIT */
#include "run/working_set.h"
#include "common/cfgfile.h"

#include <string.h>

/* "--NAME=VALUE" in @argv from @i until a shell operator: VALUE, or NULL. */
static const char *option(char **argv, int i, const char *name)
{
	size_t len = strlen(name);
	const char *found = NULL;

	for (; argv[i] && !strchr("|&;", argv[i][0]); i++)
		if (!strncmp(argv[i], name, len) && argv[i][len] == '=')
			found = argv[i] + len + 1;	/* the last one wins, as in sysbench */
	return found;
}

/*
 * sysbench memory (its src/tests/memory/sb_memory.c): each thread writes
 * or reads one block of --memory-block-size (1K by default) again and
 * again; --memory-scope=global (the default) gives every thread the same
 * block, local one each.
 */
static bool sysbench_memory(char **argv, int i, uint64_t *bytes, char **how)
{
	const char *size = option(argv, i, "--memory-block-size");
	const char *scope = option(argv, i, "--memory-scope");
	const char *threads = option(argv, i, "--threads");
	uint64_t block, n = 1;
	bool local = scope && !strcmp(scope, "local");
	int j;

	/* the test's name: the first word that is not an option */
	for (j = i; argv[j] && argv[j][0] == '-'; j++)
		;
	if (!argv[j] || strcmp(argv[j], "memory"))
		return false;
	if (!threads)
		threads = option(argv, i, "--num-threads");	/* sysbench 0.x */
	if (!cfg_parse_size(size ? size : "1K", &block) ||
	    (threads && !cfg_parse_uint(threads, false, &n)) || n == 0)
		return false;
	if (local && block > G_MAXUINT64 / n)
		return false;
	*bytes = local ? block * n : block;
	*how = local ?
		g_strdup_printf("sysbench memory, a block of %s for each of its %" G_GUINT64_FORMAT
				" thread(s) (--memory-scope=local)", size ? size : "1K", n) :
		g_strdup_printf("sysbench memory, one block of %s that every thread uses "
				"(--memory-scope=global)", size ? size : "1K");
	return true;
}

bool working_set_of_command(const char *command, uint64_t *bytes, char **how)
{
	g_auto(GStrv) argv = NULL;

	if (!command || !g_shell_parse_argv(command, NULL, &argv, NULL))
		return false;
	for (int i = 0; argv[i]; i++) {
		g_autofree char *name = g_path_get_basename(argv[i]);

		if (!strcmp(name, "sysbench"))
			return sysbench_memory(argv, i + 1, bytes, how);
	}
	return false;
}
