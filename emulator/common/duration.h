/* SPDX-License-Identifier: MIT */
/* Durations in input files: "2.5s", "500ms", "100us", "250ns", "3" (seconds). */
#ifndef CXLBED_DURATION_H
#define CXLBED_DURATION_H

#include <stdbool.h>

/* Seconds, >= 0; false when @text is not a duration. */
bool cb_parse_duration(const char *text, double *seconds);

#endif
