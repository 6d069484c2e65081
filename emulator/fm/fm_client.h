/* SPDX-License-Identifier: MIT */
/*
 * A client of a running run's fabric manager (`cxlbed fm`): one request
 * over RUN/fm.sock, the JSON-lines socket whose commands are named after
 * the CXL FM API (fm_control.c, docs/pooling.md).
 */
#ifndef CXLBED_FM_CLIENT_H
#define CXLBED_FM_CLIENT_H

#include <json-glib/json-glib.h>

/* The socket command a person's short verb names (list: get-ld-info,
 * status, bind: bind-vppb, unbind: unbind-vppb); NULL: none. */
const char *fm_client_command(const char *verb);
/* The newest RESULTS/RUN/fm.sock a fabric manager may still answer on. */
char *fm_client_newest_socket(const char *results);
/* Send @cmd with @args; the reply (owned), or NULL and why. */
JsonObject *fm_client_ask(const char *sock, const char *cmd, JsonObject *args,
			  GError **error);

#endif
