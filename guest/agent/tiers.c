// SPDX-License-Identifier: MIT
/*
 * How the kernel ranks memory, for enumerate: its memory tiers (each
 * tier's nodes, fastest tier first), and the firmware tables it ranked
 * them from (SRAT and HMAT, hex), which the host checks against the
 * topology.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "json_util.h"

#define TIER_DIR "/sys/devices/virtual/memory_tiering"
#define ACPI_TABLES "/sys/firmware/acpi/tables"

/* "0-2,5" -> [0, 1, 2, 5]. */
static json_object *nodelist_json(const char *list)
{
	json_object *arr = json_object_new_array();
	const char *p = list;

	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long n = a; n <= b; n++)
			json_object_array_add(arr, json_object_new_int((int)n));
		p = *end == ',' ? end + 1 : end;
	}
	return arr;
}

/* [{"tier": 4, "nodes": [0]}, ...] in tier order (lower: faster). */
json_object *tiers_json(void)
{
	json_object *arr = json_object_new_array();
	struct dirent **names;
	int n = scandir(TIER_DIR, &names, NULL, versionsort);

	for (int i = 0; i < n; i++) {
		char path[512], buf[256];
		int tier;

		if (sscanf(names[i]->d_name, "memory_tier%d", &tier) == 1) {
			json_object *o = json_object_new_object();

			snprintf(path, sizeof(path), TIER_DIR "/%s/nodelist",
				 names[i]->d_name);
			if (sysfs_read(path, buf, sizeof(buf)) < 0)
				buf[0] = '\0';
			jadd_int(o, "tier", tier);
			json_object_object_add(o, "nodes", nodelist_json(buf));
			json_object_array_add(arr, o);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	return arr;
}

/* One firmware table as lowercase hex, or NULL when absent. */
static json_object *table_hex(const char *sig)
{
	char path[128];
	unsigned char buf[8192];
	char hex[2 * sizeof(buf) + 1];
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), ACPI_TABLES "/%s", sig);
	f = fopen(path, "rbe");
	if (!f)
		return NULL;
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	for (size_t i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", buf[i]);
	hex[2 * len] = '\0';
	return json_object_new_string(hex);
}

/* {"srat": "5352...", "hmat": "484d..."} */
json_object *acpi_numa_tables_json(void)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "srat", table_hex("SRAT"));
	json_object_object_add(o, "hmat", table_hex("HMAT"));
	return o;
}
