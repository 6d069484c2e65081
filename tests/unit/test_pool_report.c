/* SPDX-License-Identifier: MIT */
/*
 * The pool utilisation plot without QEMU: two pools sampled in turn are
 * summed (one line per figure, not one per pool), a pool node a fault
 * killed counts as failed from its injection (not as lent), and a
 * stretch with no sample (the fabric manager busy with a 17 s release)
 * is shaded and named, never drawn across.
 */
#include "tap.h"
#include "results/pool_report.h"

#include <math.h>

#define MIB_256 "268435456"

/* One pass of the FM's sampling: both pools at time T, each LD lent to h0
 * (the FM still counts a killed node's LD lent until QEMU removes it). */
static void pass(GString *s, double t)
{
	g_string_append_printf(s, "%s{\"t_s\": %.1f, \"pool\": \"p0\", \"size\": " MIB_256 ","
			       " \"lent\": " MIB_256 ", \"used\": " MIB_256 ", \"free\": 0,"
			       " \"stranded\": 0, \"hosts\": {\"h0\": {\"lent\": " MIB_256 "}}},"
			       "{\"t_s\": %.1f, \"pool\": \"p1\", \"size\": " MIB_256 ","
			       " \"lent\": " MIB_256 ", \"used\": " MIB_256 ", \"free\": 0,"
			       " \"stranded\": 0, \"hosts\": {\"h0\": {\"lent\": " MIB_256 "}}}",
			       g_str_has_suffix(s->str, "[") ? "" : ",", t, t + 0.001);
}

/* The points of the @nth <polyline> (series are drawn in legend order,
 * each run of samples between gaps a polyline of its own). */
static char *nth_polyline(const char *svg, int nth)
{
	const char *p = svg;

	for (int i = 0; i <= nth && p; i++)
		if ((p = strstr(p, "<polyline")))
			p++;
	p = p ? strstr(p, "points=\"") : NULL;
	return p ? g_strndup(p + 8, strcspn(p + 8, "\"")) : NULL;
}

static guint count_points(const char *pts)
{
	g_auto(GStrv) v = g_strsplit(pts, " ", -1);

	return g_strv_length(v);
}

int main(void)
{
	g_autoptr(GString) s = g_string_new("{\"pools\": {\"p0\": {}, \"p1\": {}},"
					    " \"events\": [{\"t_s\": 3.2, \"action\": \"unbind\","
					    " \"ld\": \"p0.ld1\", \"host\": \"h0\", \"wall_s\": 17.0}],"
					    " \"samples\": [");
	g_autoptr(JsonParser) jp = json_parser_new();
	g_autoptr(GPtrArray) faults = g_ptr_array_new_with_free_func((GDestroyNotify)json_object_unref);
	g_autoptr(JsonParser) fp = json_parser_new();
	g_autofree char *svg = NULL, *lent = NULL;
	int series = 0;

	plan(6);
	for (int t = 0; t <= 3; t++)
		pass(s, t);
	for (int t = 20; t <= 24; t++)	/* 17 s with no sample, then p1 killed at 21.5 */
		pass(s, t);
	g_string_append(s, "]}");
	json_parser_load_from_data(jp, s->str, -1, NULL);
	json_parser_load_from_data(fp, "{\"name\": \"kill-p1\", \"kind\": \"kill-pool-node\","
				   " \"target\": \"p1\", \"fired\": true, \"injected\": {\"t_s\": 21.5}}",
				   -1, NULL);
	g_ptr_array_add(faults, json_object_ref(json_node_get_object(json_parser_get_root(fp))));
	svg = pool_report_svg(json_node_get_object(json_parser_get_root(jp)), faults);

	for (const char *p = strstr(svg, "<g class=\"legend\""); p && (p = strstr(p, "<line ")); p++)
		series++;
	is_int(series, 6, "two pools summed: lent, used, free, stranded, failed, lent to h0 "
	       "(not one set per pool)");
	ok(strstr(svg, "failed (killed pool nodes), all 2 pools") != NULL, "a failed line for the kill");
	ok(strstr(svg, "class=\"band\"") && strstr(svg, "no samples for 17.0 s: unbind p0.ld1 (17.0 s)"),
	   "the 17 s without a sample is shaded and named after the release that filled it");
	ok(strstr(svg, ">p1 killed</text>") != NULL, "the kill is marked");
	/* lent, all pools: the first polyline; with the gap it is two */
	lent = nth_polyline(svg, 0);
	ok(lent && !strstr(lent, "nan") && count_points(lent) < 16,
	   "no segment across the gap: the first run of samples ends before it (%s)",
	   lent ? lent : "none");
	{
		/* the lent line after the kill: 256 MiB (p0 only), not 512 */
		g_autofree char *after = nth_polyline(svg, 1);
		g_auto(GStrv) pts = after ? g_strsplit(after, " ", -1) : NULL;
		guint n = pts ? g_strv_length(pts) : 0;
		double y_first = n ? g_ascii_strtod(strchr(pts[0], ',') + 1, NULL) : NAN;
		double y_last = n ? g_ascii_strtod(strchr(pts[n - 1], ',') + 1, NULL) : NAN;

		ok(n && y_last > y_first + 10,
		   "after the kill, lent drops: the dead node is failed, not lent (y %.1f -> %.1f)",
		   y_first, y_last);
	}
	if (tap_failed)
		diag("%s", svg);
	return tap_failed ? 1 : 0;
}
