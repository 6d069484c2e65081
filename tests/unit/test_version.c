/* SPDX-License-Identifier: MIT */
/*
 * The version and commit cxlbed reports (`cxlbed --version`, summary.json)
 * are those the build embedded: VERSION's version, and a commit that is
 * never empty nor `git archive`'s unfilled placeholder. Which commit, in a
 * checkout and in an exported tree: tests/integration/version.t.
 */
#include "tap.h"
#include "common/version.h"

#include <glib.h>

int main(void)
{
	g_autofree char *text = NULL;
	g_auto(GStrv) lines = NULL;
	const char *want = NULL;

	plan(3);
	g_file_get_contents(SRCDIR "/VERSION", &text, NULL, NULL);
	lines = g_strsplit(text ? text : "", "\n", -1);
	for (int i = 0; lines[i]; i++)
		if (g_str_has_prefix(lines[i], "version "))
			want = lines[i] + strlen("version ");
	is_str(cxlbed_version(), want ? want : "(no version line in VERSION)",
	       "the version is VERSION's version line");
	ok(*cxlbed_commit() != '\0', "the commit is named: %s", cxlbed_commit());
	ok(!strstr(cxlbed_commit(), "Format"), "not git archive's unfilled placeholder");
	return done_testing();
}
