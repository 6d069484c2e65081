/* SPDX-License-Identifier: MIT */
/*
 * What cxlbed-protect saw, for its one line of JSON: failures as the
 * runtime registered them, when service resumed, repair bursts, epochs of
 * operations, kernel events, capacity it was given and asked for, and
 * the ROI markers the runner pairs with the timing model's report.
 */
#ifndef CXLBED_PROTECT_LOG_H
#define CXLBED_PROTECT_LOG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cxlbed-roi.h"
#include "ldreg.h"
#include "monitor.h"
#include "protect.h"

/* ROI ids (workloads/README.md) */
#define PLOG_ROI_POPULATE	3000
#define PLOG_ROI_EPOCH		3001
#define PLOG_ROI_DETECT		3002	/* a point: a failure registered */
#define PLOG_ROI_RESUME		3003	/* a point: first operation served after it */
#define PLOG_ROI_REPAIR		3004
#define PLOG_ROI_VERIFY		3005

#define PLOG_MAX 256

struct plog_failure {
	double t;		/* guest clock, s since the program started */
	struct prot_failure f;
	char ld[32];
	int detect_roi;		/* k-th PLOG_ROI_DETECT */
	double resumed_t;	/* < 0: not yet */
	int resume_roi;
};

struct plog_epoch {
	double t0, t1;		/* guest clock */
	uint64_t ops, reads, writes;
	double max_op_s;	/* slowest operation in it, guest clock */
	long preempted;		/* its thread's involuntary context switches */
	const char *state;	/* normal, degraded, protected, lost */
	uint64_t failures0;	/* failures_seen when it began */
	bool ended_degraded;	/* stripes were degraded at its end */
};

struct plog_burst {
	double t0, t1;
	uint64_t bytes;
};

struct plog_roi {
	int id, index;
	const char *what;
};

struct plog {
	const char *program, *scheme, *pattern;
	const char *layout;	/* "chunk" or "split" (cxlbed-protect --layout) */
	double t_start;
	bool monitor;		/* the trace-event monitor runs */
	int lock;
	/* counters the workload keeps */
	uint64_t ops, reads, writes, reads_lost, writes_failed, corrupt;
	uint64_t final_ok, final_lost;
	uint64_t data_bytes, stored_bytes;
	int failures_seen;	/* registered so far */
	int unresumed;		/* registered, service not resumed yet */
	double op_t0;		/* when the current operation began */
	struct plog_failure fail[PLOG_MAX];
	int nfail;
	struct plog_epoch epoch[PLOG_MAX * 4];
	int nepoch;
	struct plog_burst burst[PLOG_MAX];
	int nburst;
	double repair_first, repair_done;	/* guest clock; < 0: not yet */
	struct { double t; struct mon_event e; } kev[PLOG_MAX];
	int nkev;
	struct { double t; struct ldreg_entry e; } cap[32];
	int ncap;
	struct { double t; uint64_t bytes; } demand[32];
	int ndemand;
	struct { double t; uint64_t tag; double cost; } cost[32];
	int ncost;
	struct plog_roi roi[PLOG_MAX * 8];
	int nroi;
	int roi_count[8];	/* per id - 3000: occurrences so far */
};

void plog_init(struct plog *p, const char *program, const char *scheme,
	       const char *pattern);
/*
 * The list of ROIs must be in the order their END markers ran, which is
 * the order the plugin reports them: marker and record under one lock.
 */
void plog_lock(struct plog *p);
void plog_unlock(struct plog *p);
/* Record that ROI @id (3000..3005) just ended (under plog's lock). */
void plog_roi(struct plog *p, int id, const char *what);
#define PLOG_END(p, ID, what) do {					\
	plog_lock(p); cxlbed_roi_end(ID); plog_roi(p, ID, what); plog_unlock(p); \
} while (0)
#define PLOG_POINT(p, ID, what) do {					\
	plog_lock(p); cxlbed_roi_begin(ID); cxlbed_roi_end(ID);		\
	plog_roi(p, ID, what); plog_unlock(p);				\
} while (0)

void plog_capacity(struct plog *p, const struct ldreg_entry *e);
void plog_demand(struct plog *p, uint64_t bytes);
void plog_kernel_event(struct plog *p, const struct mon_event *e);
void plog_cost(struct plog *p, struct prot_store *s, uint64_t tag, double cost);
void plog_stored(struct plog *p, struct prot_store *s, uint64_t data_bytes);
/* The store registered a failure (its callback; any thread). */
void plog_failure(struct plog *p, const struct prot_failure *f,
		  const struct ldreg_entry *ld);
/* An operation was served: the first one after a failure resumes service. */
void plog_served(struct plog *p);
void plog_epoch_begin(struct plog *p);
/* An operation took @s (guest clock): the epoch keeps its slowest. */
void plog_op_time(struct plog *p, double s);
void plog_epoch_end(struct plog *p, struct prot_store *s);
void plog_repair_begin(struct plog *p);
void plog_repair_bytes(struct plog *p, uint64_t bytes);
void plog_repair_end(struct plog *p, struct prot_store *s);
/* Nothing degraded and nothing waiting: protection is whole again. */
bool plog_fully_protected(struct plog *p, struct prot_store *s);
/* Blocks are lost for good: no repair will make the store whole again. */
bool plog_beyond_repair(struct prot_store *s);

void plog_print(struct plog *p, struct prot_store *s, FILE *f);

#endif
