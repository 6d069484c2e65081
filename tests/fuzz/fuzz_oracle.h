/* SPDX-License-Identifier: MIT */
/*
 * What every fuzz target expects of an error: an input error (exit 2)
 * whose message starts "FILE:LINE: " and can go to a terminal or into
 * JSON as it is: valid UTF-8, no control characters but the tabs a line
 * of the file may hold (whitespace; JSON escapes them). abort() otherwise,
 * which libFuzzer reports as a crash with its input.
 */
#ifndef CXLBED_FUZZ_ORACLE_H
#define CXLBED_FUZZ_ORACLE_H

#include "common/error.h"

#include <glib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline void fuzz_check_input_error(const GError *e, const char *file)
{
	const char *p = e->message + strlen(file);

	if (e->domain != CXLBED_ERROR || e->code != CXLBED_ERROR_INPUT ||
	    !g_str_has_prefix(e->message, file) || p[0] != ':' ||
	    !g_ascii_isdigit(p[1]) || !g_utf8_validate(e->message, -1, NULL))
		abort();
	for (p = e->message; *p; p = g_utf8_next_char(p))
		if (*p != '\t' && g_unichar_iscntrl(g_utf8_get_char(p)))
			abort();
}

#endif
