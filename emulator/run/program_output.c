/* SPDX-License-Identifier: MIT */
#include "run/program_output.h"

#include <stdbool.h>

/* The first match of @pattern in @text: its capture groups 1 and 2. */
static bool match2(const char *text, const char *pattern, double *a, double *b)
{
	g_autoptr(GRegex) re = g_regex_new(pattern, G_REGEX_MULTILINE, 0, NULL);
	g_autoptr(GMatchInfo) m = NULL;
	g_autofree char *x = NULL, *y = NULL;

	if (!re || !g_regex_match(re, text, 0, &m))
		return false;
	x = g_match_info_fetch(m, 1);
	*a = g_ascii_strtod(x, NULL);
	if (b) {
		y = g_match_info_fetch(m, 2);
		*b = y && *y ? g_ascii_strtod(y, NULL) : -1;
	}
	return true;
}

static JsonObject *figures(const char *parser, const char *unit, double count,
			   double per_s)
{
	JsonObject *o = json_object_new();

	json_object_set_string_member(o, "parser", parser);
	json_object_set_string_member(o, "unit", unit);
	json_object_set_double_member(o, "count", count);
	json_object_set_double_member(o, "per_s", per_s);
	json_object_set_double_member(o, "seconds", per_s > 0 ? count / per_s : -1);
	return o;
}

static JsonObject *sysbench(const char *text)
{
	double mib, mib_s, events, rate, total_s;

	if (!g_regex_match_simple("^sysbench [0-9]", text, G_REGEX_MULTILINE, 0))
		return NULL;
	if (match2(text, "([0-9.]+) MiB transferred \\(([0-9.]+) MiB/sec\\)", &mib, &mib_s))
		return figures("sysbench-memory", "MiB", mib, mib_s);
	if (!match2(text, "total number of events:\\s*([0-9]+)", &events, NULL))
		return NULL;
	if (match2(text, "events per second:\\s*([0-9.]+)", &rate, NULL))
		return figures("sysbench", "events", events, rate);
	if (match2(text, "total time:\\s*([0-9.]+)s", &total_s, NULL) && total_s > 0)
		return figures("sysbench", "events", events, events / total_s);
	return NULL;
}

/*
 * Each test: "N requests completed in T seconds", then its rate. The
 * rate has more digits than T, so a test's own time is N / rate; the
 * whole run's rate is all requests over the sum of those times.
 */
static JsonObject *redis_benchmark(const char *text)
{
	g_autoptr(GRegex) re = g_regex_new(
		"([0-9]+) requests completed in [0-9.]+ seconds"
		"|([0-9.]+) requests per second", 0, 0, NULL);
	g_autoptr(GMatchInfo) m = NULL;
	double requests = 0, seconds = 0, pending = -1;
	int tests = 0;
	JsonObject *o;

	if (!re || !g_regex_match(re, text, 0, &m))
		return NULL;
	for (; g_match_info_matches(m); g_match_info_next(m, NULL)) {
		g_autofree char *n = g_match_info_fetch(m, 1);
		g_autofree char *r = g_match_info_fetch(m, 2);

		if (n && *n) {
			pending = g_ascii_strtod(n, NULL);
		} else if (r && *r && pending > 0) {
			double rate = g_ascii_strtod(r, NULL);

			if (rate > 0) {
				requests += pending;
				seconds += pending / rate;
				tests++;
			}
			pending = -1;
		}
	}
	if (!tests)
		return NULL;
	o = figures("redis-benchmark", "requests", requests, requests / seconds);
	json_object_set_int_member(o, "tests", tests);
	return o;
}

JsonObject *program_figures(const char *text)
{
	static JsonObject *(*const parsers[])(const char *) = { sysbench, redis_benchmark };

	if (!text)
		return NULL;
	for (size_t i = 0; i < G_N_ELEMENTS(parsers); i++) {
		JsonObject *o = parsers[i](text);

		if (o)
			return o;
	}
	return NULL;
}
