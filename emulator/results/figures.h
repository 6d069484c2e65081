/* SPDX-License-Identifier: MIT */
/*
 * A workload's figures, read from its output in one place: the modeled
 * ones (the `modeled` object the timing merge adds) where the timing model
 * produced them, else the guest clock's. The runner puts them in a node's
 * row, `cxlbed table` in its rows, and both say which clock they came
 * from. And one way to print a figure that was not measured.
 */
#ifndef CXLBED_REPORT_FIGURES_H
#define CXLBED_REPORT_FIGURES_H

#include <json-glib/json-glib.h>
#include <stdbool.h>
#include <stddef.h>

/* Which clocks the figures read so far came from. */
struct fig_clocks {
	bool modeled, guest;
};

/*
 * @key of the modeled figures when the output has them (the timing model
 * ran), else @guest_key of the guest clock's (NULL: none); < 0 when it is
 * not there. Notes the clock in @c.
 */
double fig_get(JsonObject *out, const char *key, const char *guest_key,
	       struct fig_clocks *c);
/* The same key in both. */
static inline double fig_of(JsonObject *out, const char *key, struct fig_clocks *c)
{
	return fig_get(out, key, key, c);
}
/* "modeled", "guest", "mixed", or NULL when nothing was read. */
const char *fig_clock_word(const struct fig_clocks *c);

/*
 * A workload's numbers on one line, each set named by its clock:
 * "modeled: ns_per_access 220.9" (the timing merge's numbers), else
 * "guest clock: ns_per_access 271.4, bytes 4194304" (the program's own);
 * NULL when it reported no number. Caller frees.
 */
char *fig_summary(JsonObject *out);

/* A figure for a table cell: printf(@format) of @v, or "-" when v < 0. */
const char *fig_format(char *buf, size_t len, double v, const char *format);

#endif
