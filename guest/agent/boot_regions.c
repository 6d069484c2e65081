// SPDX-License-Identifier: MIT
/*
 * Regions named on the kernel command line, created once per boot before
 * the agent greets anyone, so that a guest started outside `cxlbed run`
 * (a libvirt domain from `cxlbed export --libvirt`) comes up with its CXL
 * memory online and no host program driving it. `cxlbed run` passes none:
 * it creates regions through the protocol (docs/agent-protocol.md).
 *
 *   cxlbed.region=ID,window=N,granularity=BYTES,mode=ram|devdax,serials=S1+S2+...
 *
 * One per region, serials in interleave order (decimal or 0x hex). The
 * results (create-region's, or {"id","error"}) are kept in
 * /run/cxlbed-boot-regions.json so that a respawned agent reports them in
 * its hello without creating anything twice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "json_util.h"

#define STATE "/run/cxlbed-boot-regions.json"
#define PARAM "cxlbed.region="

/* One cxlbed.region= value as create-region's args; NULL and err if bad. */
json_object *boot_region_args(const char *spec, char *err)
{
	json_object *args = json_object_new_object();
	json_object *serials = json_object_new_array();
	char *copy = strdup(spec), *save = NULL, *tok;
	int first = 1, ways = 0;

	json_object_object_add(args, "serials", serials);
	jadd_int(args, "size", 0);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save), first = 0) {
		char *eq = strchr(tok, '=');

		if (first && !eq) {
			jadd_str(args, "id", tok);
			continue;
		}
		if (!eq)
			goto bad;
		*eq++ = '\0';
		if (!strcmp(tok, "window") || !strcmp(tok, "granularity")) {
			char *end;
			long long v = strtoll(eq, &end, 0);

			if (*end || v < 0)
				goto bad;
			jadd_int(args, tok, v);
		} else if (!strcmp(tok, "mode")) {
			jadd_str(args, "mode", eq);
		} else if (!strcmp(tok, "serials")) {
			char *s2 = NULL, *sn;

			for (sn = strtok_r(eq, "+", &s2); sn; sn = strtok_r(NULL, "+", &s2)) {
				char *end;
				unsigned long long v = strtoull(sn, &end, 0);

				if (*end)
					goto bad;
				json_object_array_add(serials, json_object_new_int64((long long)v));
				ways++;
			}
		} else {
			goto bad;
		}
	}
	if (!ways)
		goto bad;
	jadd_int(args, "ways", ways);
	free(copy);
	return args;
bad:
	snprintf(err, ERRLEN, "bad " PARAM "%s: want ID,window=N,granularity=BYTES,"
		 "mode=ram|devdax,serials=S1+S2", spec);
	free(copy);
	json_object_put(args);
	return NULL;
}

static json_object *create_all(const char *cmdline)
{
	json_object *results = json_object_new_array();
	char *copy = strdup(cmdline), *save = NULL, *tok;

	for (tok = strtok_r(copy, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		char err[ERRLEN] = "";
		json_object *args, *res = NULL;

		if (strncmp(tok, PARAM, strlen(PARAM)))
			continue;
		args = boot_region_args(tok + strlen(PARAM), err);
		if (args)
			res = cmd_create_region(args, err);
		if (!res) {
			res = json_object_new_object();
			if (args)
				jadd_str(res, "id", json_object_get_string(
						 json_object_object_get(args, "id")));
			jadd_str(res, "error", err[0] ? err : "failed");
			fprintf(stderr, "cxlbed-agent: boot region %s: %s\n", tok, err);
		} else {
			fprintf(stderr, "cxlbed-agent: boot region %s online: %s\n", tok,
				json_object_to_json_string(res));
		}
		json_object_put(args);
		json_object_array_add(results, res);
	}
	free(copy);
	return results;
}

json_object *boot_regions(void)
{
	char cmdline[4096];
	json_object *results = json_object_from_file(STATE);
	FILE *f;

	if (results)
		return results;	/* a respawned agent: made at this boot already */
	f = fopen("/proc/cmdline", "r");
	if (!f)
		return NULL;
	if (!fgets(cmdline, sizeof(cmdline), f))
		cmdline[0] = '\0';
	fclose(f);
	if (!strstr(cmdline, PARAM))
		return NULL;
	results = create_all(cmdline);
	json_object_to_file(STATE, results);
	return results;
}
