/* SPDX-License-Identifier: MIT */
/* Shared by the fault injector's files; not its API (faults.h). */
#ifndef CXLBED_FAULT_PRIV_H
#define CXLBED_FAULT_PRIV_H

#include "faults/faults.h"
#include "fm/fm_direct.h"

/* One fault of the schedule, as it happens. */
struct fault_run {
	const struct fault_spec *spec;
	uint64_t rng;		/* its own stream of the seed */
	enum fault_kind kind;	/* resolved (spec->kind unless random) */
	double at_s;		/* drawn time (wall, or modeled seconds) */
	double delay_s;		/* drawn delay after a when = trigger */
	bool fired;
	char *target;		/* what it hit: a pool, an LD, a resource */
	double t_wall;		/* injection, s since the FM started */
	double t_modeled_ns;	/* injection, modeled ns (< 0: no model) */
	bool ok;		/* every step of the injection succeeded */
	JsonArray *steps;	/* what was done, in order */
	GPtrArray *lds;		/* struct fm_ld_at *: the LDs it reached */
	JsonObject *params;	/* resolved parameters (offset, ...) */
	/* link faults in progress (fault_link.c) */
	GPtrArray *resources;	/* char *: resource names */
	double end_wall;	/* degrade: restore at (0: at the end) */
	int flaps_left;
	double next_flip_wall;
	bool down, restored;
	JsonArray *link_log;	/* {t_s, t_modeled_ns, state} */
};

struct faults {
	const struct fault_schedule *sched;
	const struct cb_topology *t;
	char *dir;
	bool timing;
	const struct run_clock *clock;	/* the run session's */
	struct fm *fm;
	GPtrArray *runs;	/* struct fault_run * */
	JsonArray *guest_reports;	/* fault-report events, with host and t_s */
	GMutex lock;		/* windows (the runner's thread writes them) */
	GHashTable *windows;	/* "HOST/WORKLOAD" -> double[2] start, end */
};

/* fault_inject.c: one fault's injection (FM worker thread). */
void fault_inject(struct faults *f, struct fault_run *r);
/* fault_step.c: one step of it into the record (a failed one fails it). */
void fault_step(struct fault_run *r, const char *what, const char *host, bool ok,
		const char *detail, double wall_s);

/* fault_link.c: link degradation and flaps in the timing segment. */
void fault_link_start(struct faults *f, struct fault_run *r);
void fault_link_tick(struct faults *f, struct fault_run *r);
void fault_link_restore(struct faults *f, struct fault_run *r);

/* fault_join.c: records and checks from what the runtimes saw. */
void fault_join(struct faults *f, struct run_result *res);

#endif
