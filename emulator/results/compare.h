/* SPDX-License-Identifier: MIT */
/*
 * Two results side by side: a baseline and a candidate, both runs
 * (summary.json) or both tables (table.json). Figures are matched by
 * (topology, host, where, workload, figure): "where" is "node N" or
 * "region R" (a devdax region); for a run the workload is the scenario's
 * (its output's figures) or "nodes[]" (the node table), for a table
 * the program a column comes from (chase, stream, loaded). Checks are
 * matched by name (a table's run verdicts are "run:TOPOLOGY").
 *
 * The gate fails (a regression) on: a figure past its threshold in its bad
 * direction (latency up, bandwidth down) or measured before and not now;
 * a check that fails in the candidate and passed in the baseline or was
 * not there; a check of the baseline the candidate lacks ("lost"; for a
 * table not when the candidate has no row of that topology at all); a
 * check name or a row given twice in either side (which copy counts
 * cannot be told). Said but passing: new checks that pass, checks fixed or
 * failing in both, new figures and rows, improvements.
 * Pure data: no files, no printing (compare_out.c presents it).
 */
#ifndef CXLBED_COMPARE_H
#define CXLBED_COMPARE_H

#include "results/result.h"
#include "results/table_paths.h"

#define COMPARE_SCHEMA "cxlbed.compare/1"

enum cmp_kind { CMP_LATENCY, CMP_BANDWIDTH };
enum cmp_status { CMP_WITHIN, CMP_IMPROVED, CMP_REGRESSED, CMP_LOST, CMP_NEW };

/* One figure of one place, as one side measured it. */
struct cmp_fact {
	char *topology, *host, *where, *workload, *figure;
	char *row;		/* the side's row it comes from, for people */
	enum cmp_kind kind;
	double value;		/* < 0: not measured */
	char *clock;		/* "modeled" | "guest" | ... */
};

struct cmp_figure {
	const struct cmp_fact *base, *cand;	/* point into the sides */
	double change;		/* (cand - base) / base */
	double threshold;	/* fraction allowed in the bad direction */
	enum cmp_status status;
};

enum cmp_check_status {
	CHK_PASS,		/* passes in both */
	CHK_FIXED,		/* failed in the baseline, passes now */
	CHK_STILL_FAILS,	/* fails in both */
	CHK_NEW,		/* new in the candidate, passes */
	CHK_REGRESSED,		/* passed, now fails: the gate fails */
	CHK_NEW_FAILS,		/* new in the candidate, fails: the gate fails */
	CHK_LOST,		/* in the baseline, not in the candidate: the gate fails */
};

struct cmp_check {
	char *name;
	char *scope;		/* a table's run check: its topology; else NULL */
	bool in_base, in_cand;
	bool base_pass, cand_pass;
	enum cmp_check_status status;
	bool regressed;		/* it fails the gate */
};

/* A check name or a row that one side gives more than once. */
struct cmp_dup {
	const char *side;	/* "baseline" | "candidate" */
	char *what;		/* "check" | "row" */
	char *name;
	guint copies;
};

/* Thresholds: per figure name, else per kind (defaults 5% each). */
struct cmp_thresholds {
	double latency, bandwidth;
	GHashTable *by_figure;	/* figure name -> double* fraction */
};

struct cmp_side {
	char *label;		/* the path given */
	char *schema;
	/* the guest kernel(s) it ran on, in words ("; " between a table's
	 * different ones); NULL when not recorded. Rows are matched without
	 * it, so that one scenario on two kernels compares place by place. */
	char *kernel;
	GPtrArray *facts;	/* struct cmp_fact * */
	GPtrArray *checks;	/* struct cmp_check *, this side's pass in both *_pass */
	GHashTable *seen;	/* "check NAME" / "row NAME" -> how many times */
	GPtrArray *duplicates;	/* struct cmp_dup *, in order of the second copy */
};

struct compare {
	struct cmp_side *base, *cand;
	GPtrArray *figures;	/* struct cmp_figure *, baseline order */
	GPtrArray *checks;	/* struct cmp_check *: baseline order, then new ones */
	GPtrArray *duplicates;	/* struct cmp_dup *: the baseline's, then the candidate's */
	GPtrArray *only_base, *only_cand;	/* row keys, unique, as text */
	char *clock;		/* the clock both sides' figures share */
	bool kernels_differ;	/* both recorded and not the same */
	guint regressions;	/* why the gate fails: figures, checks, duplicates */
	guint improvements;
};

/*
 * A side from a run read from @file (named in errors): NULL and
 * CXLBED_ERROR_INPUT naming the file and member when a workload output's
 * figure (a member named *_ns, *ns_per_access, *_gbps, gbps) is not a
 * number or null, or output.modeled is not an object.
 */
struct cmp_side *cmp_side_from_run(const char *label, const char *file,
				   const struct run_result *r, GError **error);
struct cmp_side *cmp_side_from_table(const char *label, const struct table *t);
void cmp_side_free(struct cmp_side *s);

void cmp_thresholds_init(struct cmp_thresholds *th);
void cmp_thresholds_clear(struct cmp_thresholds *th);
/*
 * "latency=3%", "bandwidth=10", "read_gbps=2.5%" or "7%" (every kind):
 * percent, the % optional. FALSE and *error (CXLBED_ERROR_INPUT) if bad.
 */
bool cmp_thresholds_parse(struct cmp_thresholds *th, const char *spec, GError **error);
double cmp_threshold_for(const struct cmp_thresholds *th, const struct cmp_fact *f);

/*
 * Match and judge. Takes ownership of both sides. NULL and *error
 * (CXLBED_ERROR_INPUT) when they cannot be compared: different schemas,
 * nothing in common (no figure matched and nothing given twice), figures
 * on different clocks.
 */
struct compare *compare_sides(struct cmp_side *base, struct cmp_side *cand,
			      const struct cmp_thresholds *th, GError **error);
void compare_free(struct compare *c);
typedef struct compare compare;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(compare, compare_free)

/* "direct h0 node 1 chase": a row of the comparison, for people. */
char *cmp_row_name(const struct cmp_fact *f);
const char *cmp_status_word(enum cmp_status s);
const char *cmp_check_word(enum cmp_check_status s);

/* compare_out.c: the terminal table, JSON (schema cxlbed.compare/1), JUnit XML. */
void compare_print(const struct compare *c, FILE *out);
JsonNode *compare_to_json(const struct compare *c);
char *compare_to_junit(const struct compare *c);

#endif
