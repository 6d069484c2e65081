/* SPDX-License-Identifier: MIT */
/*
 * Two results side by side: a baseline and a candidate, both runs
 * (summary.json) or both tables (table.json). Figures are matched by
 * (topology, host, where, workload, figure): "where" is "node N" or
 * "region R" (a devdax region); for a run the workload is the scenario's,
 * for a table the program a column comes from (chase, stream, loaded).
 * A figure regresses when it moves past its threshold in its bad
 * direction (latency up, bandwidth down), or when it was measured before
 * and is not now; a check that passed and now fails always regresses.
 * Pure data: no files, no printing (compare_out.c presents it).
 */
#ifndef CXLBED_COMPARE_H
#define CXLBED_COMPARE_H

#include "result.h"
#include "table_paths.h"

#define COMPARE_SCHEMA "cxlbed.compare/1"

enum cmp_kind { CMP_LATENCY, CMP_BANDWIDTH };
enum cmp_status { CMP_WITHIN, CMP_IMPROVED, CMP_REGRESSED, CMP_LOST, CMP_NEW };

/* One figure of one place, as one side measured it. */
struct cmp_fact {
	char *topology, *host, *where, *workload, *figure;
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

struct cmp_check {
	char *name;
	bool base_pass, cand_pass;
	bool regressed;		/* passed, now fails */
};

/* Thresholds: per figure name, else per kind (defaults 5% each). */
struct cmp_thresholds {
	double latency, bandwidth;
	GHashTable *by_figure;	/* figure name -> double* fraction */
};

struct cmp_side {
	char *label;		/* the path given */
	char *schema;
	GPtrArray *facts;	/* struct cmp_fact * */
	GPtrArray *checks;	/* struct res_check * (name, pass) */
};

struct compare {
	struct cmp_side *base, *cand;
	GPtrArray *figures;	/* struct cmp_figure *, baseline order */
	GPtrArray *checks;	/* struct cmp_check *, both sides have them */
	GPtrArray *only_base, *only_cand;	/* row keys, unique, as text */
	char *clock;		/* the clock both sides' figures share */
	guint regressions;	/* figures and checks */
	guint improvements;
};

struct cmp_side *cmp_side_from_run(const char *label, const struct run_result *r);
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
 * no row in common, figures on different clocks.
 */
struct compare *compare_sides(struct cmp_side *base, struct cmp_side *cand,
			      const struct cmp_thresholds *th, GError **error);
void compare_free(struct compare *c);
typedef struct compare compare;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(compare, compare_free)

/* "direct h0 node 1 chase": a row of the comparison, for people. */
char *cmp_row_name(const struct cmp_fact *f);
const char *cmp_status_word(enum cmp_status s);

/* compare_out.c: the terminal table, JSON (schema cxlbed.compare/1), JUnit XML. */
void compare_print(const struct compare *c, FILE *out);
JsonNode *compare_to_json(const struct compare *c);
char *compare_to_junit(const struct compare *c);

#endif
