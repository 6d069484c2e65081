// SPDX-License-Identifier: MIT
#include "duration.h"

#include <glib.h>
#include <math.h>
#include <string.h>

/*
 * Decimal digits with at most one point, then an optional unit: no sign,
 * exponent, hex or "inf" (the same rule as every other number cxlbed reads).
 */
bool cb_parse_duration(const char *text, double *seconds)
{
	static const struct { const char *unit; double scale; } units[] = {
		{ "", 1 }, { "s", 1 }, { "ms", 1e-3 }, { "us", 1e-6 }, { "ns", 1e-9 },
	};
	const char *end = text;
	g_autofree char *num = NULL;
	int points = 0;
	double v;

	while (g_ascii_isdigit(*end) || (*end == '.' && !points++))
		end++;
	if (end == text || !g_ascii_isdigit(end[-1]) || !g_ascii_isdigit(*text))
		return false;
	num = g_strndup(text, end - text);
	v = g_ascii_strtod(num, NULL);
	if (!isfinite(v))
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
