// SPDX-License-Identifier: MIT
#include "common/duration.h"
#include "common/cfgfile.h"

#include <glib.h>
#include <string.h>

/* A number by cfg_parse_real's rule (decimal, no sign, exponent, hex or
 * "inf"), then an optional unit. */
bool cb_parse_duration(const char *text, double *seconds)
{
	static const struct { const char *unit; double scale; } units[] = {
		{ "", 1 }, { "s", 1 }, { "ms", 1e-3 }, { "us", 1e-6 }, { "ns", 1e-9 },
	};
	const char *end = text;
	g_autofree char *num = NULL;
	double v;

	while (g_ascii_isdigit(*end) || *end == '.')
		end++;
	num = g_strndup(text, end - text);
	if (!cfg_parse_real(num, &v))
		return false;
	while (*end == ' ')
		end++;
	for (unsigned int i = 0; i < G_N_ELEMENTS(units); i++)
		if (!strcmp(end, units[i].unit)) {
			*seconds = v * units[i].scale;
			return true;
		}
	return false;
}
