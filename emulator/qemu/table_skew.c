// SPDX-License-Identifier: MIT
#include "qemu/table_skew.h"
#include "common/error.h"

#include <stdlib.h>
#include <string.h>

bool table_skew_parse(const char *text, struct table_skew *s, GError **error)
{
	g_auto(GStrv) parts = NULL;

	*s = (struct table_skew){ 0 };
	if (!text || !*text)
		return true;
	parts = g_strsplit(text, ",", -1);
	for (int i = 0; parts[i]; i++) {
		char *eq = strchr(parts[i], '='), *end = NULL;
		double v = eq ? g_ascii_strtod(eq + 1, &end) : 0;
		double *slot = NULL;

		if (eq) {
			*eq = '\0';
			if (!strcmp(parts[i], "cdat"))
				slot = &s->cdat_ns;
			else if (!strcmp(parts[i], "port"))
				slot = &s->port_ns;
			else if (!strcmp(parts[i], "node"))
				slot = &s->node_ns;
		}
		if (!slot || end == eq + 1 || *end) {
			g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT,
				    "%s: '%s' is not WHAT=NS with WHAT cdat, port "
				    "or node; unset it for correct tables",
				    TABLE_SKEW_ENV, text);
			return false;
		}
		*slot = v;
	}
	return true;
}
