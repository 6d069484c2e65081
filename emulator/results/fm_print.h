/* SPDX-License-Identifier: MIT */
/* A fabric manager's successful reply to @cmd as tables and lines of text. */
#ifndef CXLBED_FM_PRINT_H
#define CXLBED_FM_PRINT_H

#include <json-glib/json-glib.h>
#include <stdio.h>

void fm_print_reply(FILE *out, const char *cmd, JsonObject *reply);

#endif
