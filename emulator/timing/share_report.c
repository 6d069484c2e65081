// SPDX-License-Identifier: MIT
/* Copy engines' and shared memory's figures in the timing report. */
#include "share_report.h"

#include <inttypes.h>

static const char *const kind_names[] = { "fresh", "not_invalidated",
					  "not_flushed" };

static void copy_json(FILE *f, const struct share_report *r)
{
	const struct copy_stats *c = r->copy;
	const struct ce_fabric *e = r->engines;

	fprintf(f, "  \"copy\": { \"posts\": %" PRIu64 ", \"bytes\": %" PRIu64
		", \"waits\": %" PRIu64 ", \"refused\": %" PRIu64
		", \"wait_ns\": %.0f, \"busy_ns\": %.0f, \"resources\": [",
		c->posts, c->bytes, c->waits, c->refused, c->wait_ns, c->busy_ns);
	for (int i = 0; i < e->nres; i++)
		fprintf(f, "%s\n    { \"name\": \"%s\", \"gbps\": %g, \"depth\": %d, "
			"\"all_hosts_xfers\": %" PRIu64 ", \"all_hosts_bytes\": %"
			PRIu64 " }", i ? "," : "", e->res[i].name, e->res[i].gbps,
			e->res[i].depth, e->res[i].xfers, e->res[i].bytes);
	fprintf(f, " ] },\n");
}

void share_report_json(FILE *f, const struct share_report *r)
{
	const struct sr_table *s = r->stale;
	int h = r->host, n = 0, logged;

	copy_json(f, r);
	if (!r->shared || h < 0 || h >= SR_HOSTS) {
		fprintf(f, "  \"stale_reads\": null");
		return;
	}
	fprintf(f, "  \"stale_reads\": { \"watched\": \"%s\", \"not_invalidated\": %"
		PRIu64 ", \"not_flushed\": %" PRIu64 ", \"flushes\": %" PRIu64
		", \"flushes_dropped\": %" PRIu64
		", \"program\": { \"not_invalidated\": %" PRIu64 ", \"not_flushed\": %"
		PRIu64 ", \"flushes\": %" PRIu64 " }, \"events\": [", r->shared,
		s->stale[h][SR_NOT_INVALIDATED], s->stale[h][SR_NOT_FLUSHED], s->flushes[h],
		r->flushes_dropped,
		s->stale[h][SR_NOT_INVALIDATED] - s->stale_at_start[h][SR_NOT_INVALIDATED],
		s->stale[h][SR_NOT_FLUSHED] - s->stale_at_start[h][SR_NOT_FLUSHED],
		s->flushes[h] - s->flushes_at_start[h]);
	logged = s->nlog[h] < SR_LOG ? s->nlog[h] : SR_LOG;
	for (int i = 0; i < logged; i++) {
		const struct sr_event *e = &s->log[h][i];

		fprintf(f, "%s\n    { \"kind\": \"%s\", \"offset\": %" PRIu64
			", \"vaddr\": \"0x%" PRIx64 "\", \"pc\": \"0x%" PRIx64
			"\", \"t_ns\": %.0f, \"roi\": %d, \"writer_index\": %d }",
			n++ ? "," : "", kind_names[e->kind], e->line * 64,
			e->vaddr, e->pc, e->t_ns, e->roi, e->writer);
	}
	fprintf(f, " ] }");
}
