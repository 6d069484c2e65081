/* SPDX-License-Identifier: MIT */
/* Minimal streaming JSON writer for the result document. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

void jw_begin(struct jw *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->first[0] = true;
}

static void jw_key(struct jw *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (key)
		fprintf(j->f, "\"%s\":", key);
}

static void jw_open(struct jw *j, const char *key, char c)
{
	jw_key(j, key);
	fputc(c, j->f);
	j->first[++j->depth] = true;
}

void jw_obj(struct jw *j, const char *key) { jw_open(j, key, '{'); }
void jw_arr(struct jw *j, const char *key) { jw_open(j, key, '['); }
void jw_end_obj(struct jw *j) { j->depth--; fputc('}', j->f); }
void jw_end_arr(struct jw *j) { j->depth--; fputc(']', j->f); }

void jw_str(struct jw *j, const char *key, const char *v)
{
	jw_key(j, key);
	fputc('"', j->f);
	for (; *v; v++) {
		if (*v == '"' || *v == '\\')
			fputc('\\', j->f);
		if ((unsigned char)*v < 0x20)
			fprintf(j->f, "\\u%04x", *v);
		else
			fputc(*v, j->f);
	}
	fputc('"', j->f);
}

void jw_num(struct jw *j, const char *key, double v)
{
	jw_key(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.6g", v);
	else
		fputs("null", j->f);
}

void jw_int(struct jw *j, const char *key, long long v)
{
	jw_key(j, key);
	fprintf(j->f, "%lld", v);
}

void jw_bool(struct jw *j, const char *key, bool v)
{
	jw_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

void jw_raw_begin(struct jw *j, const char *key)
{
	jw_key(j, key);
}
