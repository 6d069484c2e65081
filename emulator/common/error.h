/* SPDX-License-Identifier: MIT */
/* One error domain for the host side; the code decides the exit status. */
#ifndef CXLBED_ERROR_H
#define CXLBED_ERROR_H

#include <glib.h>

#define CXLBED_ERROR cxlbed_error_quark()
GQuark cxlbed_error_quark(void);

enum cxlbed_error_code {
	CXLBED_ERROR_INPUT = 2,	/* bad topology, scenario or CLI: exit 2 */
	CXLBED_ERROR_RUN = 1,	/* a run failed: exit 1 */
};

/*
 * @s as it may be echoed: valid UTF-8 without control characters is kept,
 * any other byte becomes \xNN. Free with g_free.
 */
char *cxlbed_printable(const char *s);

/* Set an input error "FILE:LINE: ..." (FILE made printable). */
#define cxlbed_input_error(err, file, line, ...) \
	cxlbed_set_input_error((err), (file), (line), __VA_ARGS__)
void cxlbed_set_input_error(GError **error, const char *file, int line,
			    const char *fmt, ...) G_GNUC_PRINTF(4, 5);

#endif
