/* SPDX-License-Identifier: MIT */
/* What every verb does first: its options parsed, bad use said once. */
#include "cli/commands.h"

#include <stdarg.h>
#include <stdio.h>

bool verb_options(int *argc, char ***argv, const char *args, const char *summary,
		  const GOptionEntry *entries)
{
	g_autoptr(GOptionContext) ctx = g_option_context_new(args);
	g_autoptr(GError) err = NULL;
	const char *verb = (*argv)[0];

	g_option_context_set_summary(ctx, summary);
	g_option_context_add_main_entries(ctx, entries, NULL);
	if (g_option_context_parse(ctx, argc, argv, &err))
		return true;
	verb_usage(verb, "%s", err->message);
	return false;
}

int verb_usage(const char *verb, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "cxlbed %s: ", verb);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}
