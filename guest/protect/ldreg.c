// SPDX-License-Identifier: MIT
#include "ldreg.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The value after "key": in a flat JSON object, as text (quotes dropped). */
static int field(const char *text, const char *key, char *out, size_t len)
{
	char pat[48];
	const char *p, *end;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(text, pat);
	if (!p)
		return -1;
	p += strlen(pat);
	while (*p == ' ')
		p++;
	if (*p == '"') {
		end = strchr(++p, '"');
	} else {
		end = p;
		while (*end && *end != ',' && *end != '}' && *end != ' ')
			end++;
	}
	if (!end || (size_t)(end - p) >= len)
		return -1;
	memcpy(out, p, (size_t)(end - p));
	out[end - p] = '\0';
	return 0;
}

int ldreg_parse(const char *text, struct ldreg_entry *e)
{
	char num[32];

	memset(e, 0, sizeof(*e));
	if (field(text, "serial", num, sizeof(num)))
		return -1;
	e->serial = strtoull(num, NULL, 0);
	field(text, "ld", e->ld, sizeof(e->ld));
	field(text, "pool", e->pool, sizeof(e->pool));
	field(text, "dax", e->dax, sizeof(e->dax));
	field(text, "region", e->region, sizeof(e->region));
	field(text, "memdev", e->memdev, sizeof(e->memdev));
	field(text, "mode", e->mode, sizeof(e->mode));
	if (!field(text, "base", num, sizeof(num)))
		e->base = strtoull(num, NULL, 0);
	if (!field(text, "size", num, sizeof(num)))
		e->size = strtoull(num, NULL, 0);
	return e->serial ? 0 : -1;
}

int ldreg_list(const char *dir, struct ldreg_entry *out, int max)
{
	DIR *d = opendir(dir ? dir : LDREG_DIR);
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		char path[512], text[1024];
		size_t len = strlen(de->d_name);
		FILE *f;

		if (len < 6 || strcmp(de->d_name + len - 5, ".json"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir ? dir : LDREG_DIR, de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		len = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
		text[len] = '\0';
		if (ldreg_parse(text, &out[n]) == 0)
			n++;
	}
	closedir(d);
	return n;
}
