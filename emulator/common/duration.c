// SPDX-License-Identifier: MIT
#include "duration.h"

#include <glib.h>
#include <math.h>
#include <string.h>

bool cb_parse_duration(const char *text, double *seconds)
{
	static const struct { const char *unit; double scale; } units[] = {
		{ "", 1 }, { "s", 1 }, { "ms", 1e-3 }, { "us", 1e-6 }, { "ns", 1e-9 },
	};
	char *end;
	double v = g_ascii_strtod(text, &end);

	if (end == text || v < 0 || !isfinite(v))
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
