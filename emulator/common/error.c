/* SPDX-License-Identifier: MIT */
#include "error.h"

G_DEFINE_QUARK(cxlbed-error-quark, cxlbed_error)

void cxlbed_set_input_error(GError **error, const char *file, int line,
			    const char *fmt, ...)
{
	va_list ap;
	g_autofree char *msg = NULL;

	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT, "%s:%d: %s",
		    file, line, msg);
}
