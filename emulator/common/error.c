/* SPDX-License-Identifier: MIT */
#include "common/error.h"

G_DEFINE_QUARK(cxlbed-error-quark, cxlbed_error)

char *cxlbed_printable(const char *s)
{
	GString *out = g_string_new(NULL);
	const char *p = s;

	while (*p) {
		gunichar ch = g_utf8_get_char_validated(p, -1);

		if (ch == (gunichar)-1 || ch == (gunichar)-2 || g_unichar_iscntrl(ch)) {
			/* an invalid byte, or each byte of a control character */
			const char *next = ch >= 0x80 && ch < (gunichar)-2 ?
					   g_utf8_next_char(p) : p + 1;

			for (; p < next; p++)
				g_string_append_printf(out, "\\x%02x", (guint8)*p);
			continue;
		}
		g_string_append_len(out, p, g_utf8_next_char(p) - p);
		p = g_utf8_next_char(p);
	}
	return g_string_free(out, FALSE);
}

void cxlbed_set_input_error(GError **error, const char *file, int line,
			    const char *fmt, ...)
{
	va_list ap;
	g_autofree char *msg = NULL, *shown = cxlbed_printable(file);

	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT, "%s:%d: %s",
		    shown, line, msg);
}
