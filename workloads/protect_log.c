// SPDX-License-Identifier: MIT
#include "protect_log.h"
#include "cxlpool_prot.h"
#include "wl.h"

#include <string.h>
#include <sys/resource.h>


void plog_lock(struct plog *p)
{
	while (__atomic_exchange_n(&p->lock, 1, __ATOMIC_ACQUIRE))
		__builtin_ia32_pause();
}

void plog_unlock(struct plog *p)
{
	__atomic_store_n(&p->lock, 0, __ATOMIC_RELEASE);
}

static double now(const struct plog *p)
{
	return wl_now() - p->t_start;
}

void plog_init(struct plog *p, const char *program, const char *scheme,
	       const char *pattern)
{
	memset(p, 0, sizeof(*p));
	p->program = program;
	p->scheme = scheme;
	p->pattern = pattern;
	p->t_start = wl_now();
	p->repair_first = p->repair_done = -1;
}

void plog_roi(struct plog *p, int id, const char *what)
{
	int slot = id - PLOG_ROI_POPULATE;

	if (p->nroi < (int)(sizeof(p->roi) / sizeof(p->roi[0])) && slot >= 0 && slot < 8)
		p->roi[p->nroi++] = (struct plog_roi){ id, p->roi_count[slot]++, what };
}

void plog_capacity(struct plog *p, const struct ldreg_entry *e)
{
	if (p->ncap < 32) {
		p->cap[p->ncap].t = now(p);
		p->cap[p->ncap++].e = *e;
	}
}

void plog_demand(struct plog *p, uint64_t bytes)
{
	if (p->ndemand < 32) {
		p->demand[p->ndemand].t = now(p);
		p->demand[p->ndemand++].bytes = bytes;
	}
}

void plog_kernel_event(struct plog *p, const struct mon_event *e)
{
	if (p->nkev < PLOG_MAX) {
		p->kev[p->nkev].t = now(p);
		p->kev[p->nkev++].e = *e;
	}
}

void plog_cost(struct plog *p, struct prot_store *s, uint64_t tag, double cost)
{
	(void)s;
	if (p->ncost < 32) {
		p->cost[p->ncost].t = now(p);
		p->cost[p->ncost].tag = tag;
		p->cost[p->ncost++].cost = cost;
	}
}

void plog_stored(struct plog *p, struct prot_store *s, uint64_t data_bytes)
{
	struct prot_stats st;

	prot_get_stats(s, &st);
	p->data_bytes = data_bytes;
	p->stored_bytes = st.bytes_stored;
}

/* Tell the host at once (the agent forwards it as a fault-report event). */
static void report_live(const struct plog *p, const struct plog_failure *r)
{
	char msg[512];

	snprintf(msg, sizeof(msg), "{\"fault\": {\"from\": \"%s\", \"serial\": %llu, "
		 "\"ld\": \"%s\", \"pool\": \"%s\", \"cause\": \"%s\", \"whole\": %s, "
		 "\"bytes_at_risk\": %llu, \"blocks_lost\": %llu, \"t_guest_s\": %.6f}}",
		 p->program, (unsigned long long)r->f.tag, r->ld, r->f.domain,
		 prot_cause_name(r->f.cause), r->f.whole_extent ? "true" : "false",
		 (unsigned long long)r->f.bytes_at_risk, (unsigned long long)r->f.blocks_lost,
		 r->t);
	cxlpool_tell_host(msg);
}

void plog_failure(struct plog *p, const struct prot_failure *f,
		  const struct ldreg_entry *ld)
{
	struct plog_failure *r;

	plog_lock(p);
	cxlbed_roi_begin(PLOG_ROI_DETECT);
	cxlbed_roi_end(PLOG_ROI_DETECT);
	plog_roi(p, PLOG_ROI_DETECT, "detect");
	if (p->nfail < PLOG_MAX) {
		r = &p->fail[p->nfail++];
		r->t = now(p);
		r->f = *f;
		snprintf(r->ld, sizeof(r->ld), "%s", ld ? ld->ld : "");
		r->detect_roi = p->roi_count[PLOG_ROI_DETECT - PLOG_ROI_POPULATE] - 1;
		r->resumed_t = -1;
		r->resume_roi = -1;
		p->unresumed++;
		report_live(p, r);
	}
	p->failures_seen++;
	plog_unlock(p);
}

void plog_served(struct plog *p)
{
	double t;

	if (!__atomic_load_n(&p->unresumed, __ATOMIC_ACQUIRE))
		return;
	plog_lock(p);
	cxlbed_roi_begin(PLOG_ROI_RESUME);
	cxlbed_roi_end(PLOG_ROI_RESUME);
	plog_roi(p, PLOG_ROI_RESUME, "resume");
	t = now(p);
	for (int i = 0; i < p->nfail; i++)
		if (p->fail[i].resumed_t < 0) {
			p->fail[i].resumed_t = t;
			p->fail[i].resume_roi =
				p->roi_count[PLOG_ROI_RESUME - PLOG_ROI_POPULATE] - 1;
		}
	p->unresumed = 0;
	plog_unlock(p);
}

void plog_op_time(struct plog *p, double s)
{
	if (p->nepoch < (int)(sizeof(p->epoch) / sizeof(p->epoch[0])) &&
	    s > p->epoch[p->nepoch].max_op_s)
		p->epoch[p->nepoch].max_op_s = s;
}

/* Times the calling thread was preempted so far (its involuntary context
 * switches): an epoch whose thread lost its vCPU to another shows it. */
static long preemptions(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? 0 : ru.ru_nivcsw;
}

void plog_epoch_begin(struct plog *p)
{
	if (p->nepoch >= (int)(sizeof(p->epoch) / sizeof(p->epoch[0])))
		return;
	memset(&p->epoch[p->nepoch], 0, sizeof(p->epoch[0]));
	p->epoch[p->nepoch].t0 = now(p);
	p->epoch[p->nepoch].ops = p->ops;
	p->epoch[p->nepoch].reads = p->reads;
	p->epoch[p->nepoch].writes = p->writes;
	p->epoch[p->nepoch].failures0 = (uint64_t)p->failures_seen;
	p->epoch[p->nepoch].preempted = preemptions();
}

bool plog_fully_protected(struct plog *p, struct prot_store *s)
{
	struct prot_stats st;

	(void)p;
	prot_get_stats(s, &st);
	return !st.stripes_degraded && !st.stripes_unplaceable && !st.blocks_lost;
}

bool plog_beyond_repair(struct prot_store *s)
{
	struct prot_stats st;

	prot_get_stats(s, &st);
	return st.blocks_lost > 0;
}

void plog_epoch_end(struct plog *p, struct prot_store *s)
{
	struct plog_epoch *e;
	struct prot_stats st;
	bool degraded;

	if (p->nepoch >= (int)(sizeof(p->epoch) / sizeof(p->epoch[0])))
		return;
	prot_get_stats(s, &st);
	e = &p->epoch[p->nepoch++];
	e->t1 = now(p);
	e->ops = p->ops - e->ops;
	e->reads = p->reads - e->reads;
	e->writes = p->writes - e->writes;
	e->preempted = preemptions() - e->preempted;
	/* degraded: any part of it was (a repair may end within an epoch) */
	e->ended_degraded = st.stripes_degraded > 0;
	degraded = e->ended_degraded || (uint64_t)p->failures_seen != e->failures0 ||
		   (p->nepoch >= 2 && p->epoch[p->nepoch - 2].ended_degraded);
	e->state = st.blocks_lost ? "lost" : degraded ? "degraded" :
		   p->failures_seen ? "protected" : "normal";
}

void plog_repair_begin(struct plog *p)
{
	plog_lock(p);
	if (p->nburst < PLOG_MAX) {
		p->burst[p->nburst].t0 = now(p);
		p->burst[p->nburst].bytes = 0;
	}
	if (p->repair_first < 0)
		p->repair_first = now(p);
	plog_unlock(p);
}

void plog_repair_bytes(struct plog *p, uint64_t bytes)
{
	plog_lock(p);
	if (p->nburst < PLOG_MAX)
		p->burst[p->nburst].bytes += bytes;
	plog_unlock(p);
}

void plog_repair_end(struct plog *p, struct prot_store *s)
{
	bool whole = plog_fully_protected(p, s);

	plog_lock(p);
	if (p->nburst < PLOG_MAX)
		p->burst[p->nburst++].t1 = now(p);
	if (whole)
		p->repair_done = now(p);
	plog_unlock(p);
}

static const char *ld_name(const struct plog *p, uint64_t tag)
{
	for (int i = 0; i < p->ncap; i++)
		if (p->cap[i].e.serial == tag)
			return p->cap[i].e.ld;
	return "";
}

void plog_print(struct plog *p, struct prot_store *s, FILE *f)
{
	struct prot_stats st;
	struct prot_extent_info ex[64];
	int nex = prot_extents(s, ex, 64);
	uint64_t repaired = 0;
	double repair_s = 0;

	prot_get_stats(s, &st);
	fprintf(f, "{\"workload\":\"protect\",\"program\":\"%s\",\"scheme\":\"%s\","
		"\"pattern\":\"%s\",\"layout\":\"%s\",\"clock\":\"guest\",\"monitor\":%s,"
		"\"data_bytes\":%llu,\"stored_bytes\":%llu,\"overhead\":%.3f,",
		p->program, p->scheme, p->pattern, p->layout ? p->layout : "chunk", p->monitor ? "true" : "false",
		(unsigned long long)p->data_bytes, (unsigned long long)p->stored_bytes,
		p->data_bytes ? (double)p->stored_bytes / (double)p->data_bytes : 0);
	fprintf(f, "\"ops\":%llu,\"reads\":%llu,\"writes\":%llu,\"reads_recovered\":%llu,"
		"\"reads_lost\":%llu,\"writes_failed\":%llu,\"corrupt\":%llu,"
		"\"final_ok\":%llu,\"final_lost\":%llu,\"blocks_lost\":%llu,"
		"\"chunk_errors\":%llu,\"faults\":%llu,\"bytes_repaired\":%llu,"
		"\"stripes_degraded\":%llu,\"stripes_unplaceable\":%llu,\"guest_s\":%.3f,",
		(unsigned long long)p->ops, (unsigned long long)p->reads,
		(unsigned long long)p->writes, (unsigned long long)st.reads_recovered,
		(unsigned long long)p->reads_lost, (unsigned long long)p->writes_failed,
		(unsigned long long)p->corrupt, (unsigned long long)p->final_ok,
		(unsigned long long)p->final_lost, (unsigned long long)st.blocks_lost,
		(unsigned long long)st.chunk_errors, (unsigned long long)st.faults,
		(unsigned long long)st.bytes_repaired,
		(unsigned long long)st.stripes_degraded,
		(unsigned long long)st.stripes_unplaceable, now(p));
	fputs("\"failures\":[", f);
	for (int i = 0; i < p->nfail; i++) {
		const struct plog_failure *r = &p->fail[i];

		fprintf(f, "%s{\"t_s\":%.6f,\"serial\":%llu,\"ld\":\"%s\",\"pool\":\"%s\","
			"\"cause\":\"%s\",\"whole\":%s,\"chunks\":%llu,\"bytes_at_risk\":%llu,"
			"\"blocks_lost\":%llu,\"detect_roi\":%d,\"resumed_s\":%.6f,"
			"\"resume_roi\":%d}", i ? "," : "", r->t, (unsigned long long)r->f.tag,
			r->ld, r->f.domain, prot_cause_name(r->f.cause),
			r->f.whole_extent ? "true" : "false", (unsigned long long)r->f.chunks,
			(unsigned long long)r->f.bytes_at_risk,
			(unsigned long long)r->f.blocks_lost, r->detect_roi, r->resumed_t,
			r->resume_roi);
	}
	fputs("],\"repair\":{\"bursts\":[", f);
	for (int i = 0; i < p->nburst; i++) {
		fprintf(f, "%s{\"t0_s\":%.6f,\"t1_s\":%.6f,\"bytes\":%llu,\"roi\":%d}",
			i ? "," : "", p->burst[i].t0, p->burst[i].t1,
			(unsigned long long)p->burst[i].bytes, i);
		repaired += p->burst[i].bytes;
		repair_s += p->burst[i].t1 - p->burst[i].t0;
	}
	fprintf(f, "],\"bytes\":%llu,\"busy_s\":%.6f,\"first_s\":%.6f,\"done_s\":%.6f},",
		(unsigned long long)repaired, repair_s, p->repair_first, p->repair_done);
	fputs("\"epochs\":[", f);
	for (int i = 0; i < p->nepoch; i++)
		fprintf(f, "%s{\"t0_s\":%.6f,\"t1_s\":%.6f,\"ops\":%llu,\"reads\":%llu,"
			"\"writes\":%llu,\"max_op_s\":%.6f,\"preempted\":%ld,\"state\":\"%s\"}",
			i ? "," : "",
			p->epoch[i].t0, p->epoch[i].t1, (unsigned long long)p->epoch[i].ops,
			(unsigned long long)p->epoch[i].reads,
			(unsigned long long)p->epoch[i].writes, p->epoch[i].max_op_s,
			p->epoch[i].preempted, p->epoch[i].state);
	fputs("],\"kernel_events\":[", f);
	for (int i = 0; i < p->nkev; i++) {
		const struct mon_event *e = &p->kev[i].e;

		fprintf(f, "%s{\"t_s\":%.6f,\"kind\":\"%s\",\"serial\":%llu,\"ld\":\"%s\","
			"\"log\":%d,\"media_status\":%d", i ? "," : "", p->kev[i].t,
			mon_kind_name(e->kind), (unsigned long long)e->serial,
			ld_name(p, e->serial), e->log, e->media_status);
		if (e->hpa != ~0ull)
			fprintf(f, ",\"hpa\":%llu", (unsigned long long)e->hpa);
		fputc('}', f);
	}
	fputs("],\"lds\":[", f);
	for (int i = 0; i < p->ncap; i++)
		fprintf(f, "%s{\"t_s\":%.6f,\"serial\":%llu,\"ld\":\"%s\",\"pool\":\"%s\","
			"\"dax\":\"%s\",\"size\":%llu}", i ? "," : "", p->cap[i].t,
			(unsigned long long)p->cap[i].e.serial, p->cap[i].e.ld, p->cap[i].e.pool,
			p->cap[i].e.dax, (unsigned long long)p->cap[i].e.size);
	fputs("],\"extents\":[", f);
	for (int i = 0; i < nex && i < 64; i++)
		fprintf(f, "%s{\"serial\":%llu,\"ld\":\"%s\",\"pool\":\"%s\",\"failed\":%s,"
			"\"cost\":%.1f,\"chunks\":%llu,\"reads\":%llu}", i ? "," : "",
			(unsigned long long)ex[i].tag, ld_name(p, ex[i].tag), ex[i].domain,
			ex[i].failed ? "true" : "false", ex[i].cost,
			(unsigned long long)ex[i].chunks, (unsigned long long)ex[i].reads);
	fputs("],\"demand\":[", f);
	for (int i = 0; i < p->ndemand; i++)
		fprintf(f, "%s{\"t_s\":%.6f,\"bytes\":%llu}", i ? "," : "", p->demand[i].t,
			(unsigned long long)p->demand[i].bytes);
	fputs("],\"cost_changes\":[", f);
	for (int i = 0; i < p->ncost; i++)
		fprintf(f, "%s{\"t_s\":%.6f,\"serial\":%llu,\"ld\":\"%s\",\"cost\":%.1f}",
			i ? "," : "", p->cost[i].t, (unsigned long long)p->cost[i].tag,
			ld_name(p, p->cost[i].tag), p->cost[i].cost);
	fputs("],\"fault_rois\":[", f);
	for (int i = 0; i < p->nroi; i++)
		fprintf(f, "%s{\"id\":%d,\"index\":%d,\"what\":\"%s\"}", i ? "," : "",
			p->roi[i].id, p->roi[i].index, p->roi[i].what);
	fputs("]}\n", f);
}
