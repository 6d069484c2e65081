// SPDX-License-Identifier: MIT
#include "roi.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

bool roi_decode(const uint8_t *b, size_t len, int *op, int *id)
{
	uint32_t word;

	if (len != 8 || b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x84 ||
	    b[3] != 0x00)
		return false;
	word = b[4] | b[5] << 8 | b[6] << 16 | (uint32_t)b[7] << 24;
	if (word >> 16 != CXLBED_ROI_SIG)
		return false;
	*op = (word >> 12) & 0xf;
	*id = word & 0xfff;
	return *op >= CXLBED_ROI_BEGIN && *op <= CXLBED_ROI_COPY;
}

void roi_log_init(struct roi_log *l, int nres)
{
	g_mutex_init(&l->lock);
	l->nres = nres;
	l->open = g_array_new(FALSE, TRUE, sizeof(struct roi_point));
	l->done = g_array_new(FALSE, TRUE, sizeof(struct roi_record));
}

void roi_log_clear(struct roi_log *l)
{
	for (guint i = 0; i < l->open->len; i++)
		g_free(g_array_index(l->open, struct roi_point, i).res);
	for (guint i = 0; i < l->done->len; i++) {
		struct roi_record *r = &g_array_index(l->done, struct roi_record, i);

		g_free(r->begin.res);
		g_free(r->end.res);
	}
	g_array_free(l->open, TRUE);
	g_array_free(l->done, TRUE);
	g_mutex_clear(&l->lock);
}

static void copy_point(struct roi_point *dst, const struct roi_point *src,
		       int nres)
{
	g_free(dst->res);
	*dst = *src;
	dst->res = g_memdup2(src->res, sizeof(*src->res) * nres);
}

void roi_begin(struct roi_log *l, unsigned int vcpu, int id,
	       const struct roi_point *now)
{
	struct roi_point *p;

	g_mutex_lock(&l->lock);
	if (l->open->len <= (guint)id)
		g_array_set_size(l->open, id + 1);
	p = &g_array_index(l->open, struct roi_point, id);
	/* one open region per id: a second BEGIN restarts it */
	copy_point(p, now, l->nres);
	p->vcpu = vcpu;
	g_mutex_unlock(&l->lock);
}

int roi_open_on(struct roi_log *l, unsigned int vcpu)
{
	int id = -1;
	double at = -1;

	g_mutex_lock(&l->lock);
	for (guint i = 0; i < l->open->len; i++) {
		const struct roi_point *p = &g_array_index(l->open, struct roi_point, i);

		if (p->res && p->vcpu == vcpu && p->t_ns > at) {
			id = (int)i;
			at = p->t_ns;
		}
	}
	g_mutex_unlock(&l->lock);
	return id;
}

bool roi_end(struct roi_log *l, unsigned int vcpu, int id,
	     const struct roi_point *now)
{
	struct roi_record r = { .id = id };
	struct roi_point *p;
	bool ok = false;

	g_mutex_lock(&l->lock);
	if ((guint)id < l->open->len) {
		p = &g_array_index(l->open, struct roi_point, id);
		if (p->res) {
			r.begin = *p;	/* takes over the snapshot */
			p->res = NULL;
			copy_point(&r.end, now, l->nres);
			r.end.vcpu = vcpu;
			g_array_append_val(l->done, r);
			ok = true;
		}
	}
	g_mutex_unlock(&l->lock);
	return ok;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void write_links_delta(FILE *f, const struct roi_report_ctx *ctx,
			      const struct roi_record *r, double ns)
{
	bool first = true;

	fprintf(f, "\"links\": [");
	for (int i = 0; i < ctx->nres; i++) {
		const struct mf_counters *a = &r->begin.res[i], *b = &r->end.res[i];
		uint64_t rb = b->bytes[0] - a->bytes[0];
		uint64_t wb = b->bytes[1] - a->bytes[1];

		if (!rb && !wb)
			continue;
		fprintf(f, "%s\n        {\"name\": ", first ? "" : ",");
		json_str(f, ctx->res[i].name);
		fprintf(f, ", \"read_bytes\": %" PRIu64 ", \"write_bytes\": %"
			PRIu64 ", \"read_gbps\": %.3f, \"write_gbps\": %.3f"
			", \"read_wait_ns\": %.1f, \"write_wait_ns\": %.1f}",
			rb, wb, ns > 0 ? rb / ns : 0, ns > 0 ? wb / ns : 0,
			b->wait_ns[0] - a->wait_ns[0],
			b->wait_ns[1] - a->wait_ns[1]);
		first = false;
	}
	fprintf(f, "]");
}

/* Each vCPU's part of the region's instructions, stalls and misses. */
static void write_vcpus_delta(FILE *f, const struct roi_record *r)
{
	fprintf(f, ",\n      \"per_vcpu\": [");
	for (unsigned int i = 0; i < r->end.nvcpus; i++) {
		const struct roi_vcpu *a = &r->begin.per_vcpu[i], *b = &r->end.per_vcpu[i];

		fprintf(f, "%s{\"insns\": %" PRIu64 ", \"stall_ns\": %.1f, "
			"\"l2_misses\": %" PRIu64 ", \"llc_misses\": %" PRIu64 "}",
			i ? ", " : "", b->insns - a->insns, b->stall_ns - a->stall_ns,
			b->l2_miss - a->l2_miss, b->llc_miss - a->llc_miss);
	}
	fprintf(f, "]");
}

#define D(field) (r->end.st.field - r->begin.st.field)

static void write_roi(FILE *f, const struct roi_report_ctx *ctx,
		      const struct roi_record *r)
{
	double ns = r->end.t_ns - r->begin.t_ns;

	fprintf(f, "    {\"id\": %d, \"vcpu\": %u, \"end_vcpu\": %u, "
		"\"begin_ns\": %.1f, "
		"\"end_ns\": %.1f, \"modeled_ns\": %.1f, \"host_cpu_ns\": %.0f, "
		"\"wait_cpu_ns\": %.0f, \"waits\": %" PRIu64 ", "
		"\"insns\": %" PRIu64
		", \"kernel_insns\": %" PRIu64 ", \"clock_irqs\": %" PRIu64
		",\n      \"accesses\": %" PRIu64 ", \"loads\": %" PRIu64
		", \"stores\": %" PRIu64 ", \"l1_misses\": %" PRIu64
		", \"l2_misses\": %" PRIu64 ", \"llc_misses\": %" PRIu64
		", \"prefetches\": %" PRIu64 ", \"page_hops\": %" PRIu64
		", \"hop_lines\": %" PRIu64 ", \"hops_refused\": %" PRIu64
		", \"runon_refetched\": %" PRIu64 ", \"snoop_hits\": %" PRIu64
		", \"invalidations\": %" PRIu64 ", \"nt_stores\": %" PRIu64
		", \"mmio_lines\": %" PRIu64 ", \"stall_ns\": %.1f"
		",\n      \"mem_reads_local\": %" PRIu64
		", \"mem_reads_cxl\": %" PRIu64
		", \"mem_writes_local\": %" PRIu64
		", \"mem_writes_cxl\": %" PRIu64 ",\n      ",
		r->id, r->begin.vcpu, r->end.vcpu, r->begin.t_ns, r->end.t_ns, ns,
		r->end.host_cpu_ns - r->begin.host_cpu_ns,
		r->end.wait_cpu_ns - r->begin.wait_cpu_ns, r->end.waits - r->begin.waits,
		r->end.insns - r->begin.insns,
		r->end.kernel_insns - r->begin.kernel_insns,
		r->end.clock_irqs - r->begin.clock_irqs, D(accesses), D(loads), D(stores),
		D(l1_miss), D(l2_miss), D(llc_miss), D(prefetches), D(page_hops),
		D(hop_lines), D(hops_refused), D(runon_refetched), D(snoop_hits),
		D(invalidations), D(nt_stores), D(mmio_lines), D(stall_ns),
		D(mem_reads[0]), D(mem_reads[1]), D(mem_writes[0]),
		D(mem_writes[1]));
	write_links_delta(f, ctx, r, ns);
	write_vcpus_delta(f, r);
	fprintf(f, "}");
}

static void json_ns(FILE *f, const char *key, double v)
{
	if (v < 0)
		fprintf(f, "\"%s\": null", key);
	else
		fprintf(f, "\"%s\": %.0f", key, v);
}

/* The vCPUs' clock state at exit, then the guest_clock object's end. */
static void write_clock_state(FILE *f, const struct roi_clock_report *c)
{
	fprintf(f, ",\n    ");
	json_ns(f, "others_ns", c->others_ns);
	fprintf(f, ", \"vcpus\": [");
	for (int i = 0; i < c->nvcpus; i++) {
		const struct roi_vcpu_clock *v = &c->vcpus[i];

		fprintf(f, "%s\n      { \"halted\": %s, \"waking\": %s, ", i ? "," : "",
			v->halted ? "true" : "false", v->waking ? "true" : "false");
		json_ns(f, "clock_ns", v->clock_ns);
		fprintf(f, ", ");
		json_ns(f, "deadline_ns", v->deadline_ns);
		fprintf(f, ", ");
		json_ns(f, "rung_ns", v->rung_ns);
		fprintf(f, ", \"rung_age_ms\": %.0f }", v->rung_age_ms);
	}
	fprintf(f, " ] },\n");
}

bool roi_write_report(struct roi_log *l, const struct roi_report_ctx *ctx,
		      const char *path, char **err)
{
	g_autofree char *tmp = g_strdup_printf("%s.tmp", path);
	FILE *f = fopen(tmp, "w");

	if (!f) {
		*err = g_strdup_printf("%s: %s", tmp, g_strerror(errno));
		return false;
	}
	fprintf(f, "{\n  \"schema\": \"cxlbed.timing/1\",\n  \"host\": ");
	json_str(f, ctx->host);
	fprintf(f, ",\n  \"time\": \"modeled\",\n  \"armed\": %s,\n"
		"  \"ns_per_insn\": %g,\n  \"skew_ns\": %" PRIu64 ",\n"
		"  \"sync_timeouts\": %" PRIu64 ",\n  \"stale_rejoins\": %"
		PRIu64 ",\n  \"blocked_skips\": %" PRIu64 ",\n"
		"  \"together\": { \"waits\": %" PRIu64 ", \"timeouts\": %" PRIu64
		", \"held_ns\": %" PRIu64 ", \"unarmed\": %" PRIu64 " },\n",
		ctx->armed ? "true" : "false", ctx->ns_per_insn, ctx->skew_ns,
		ctx->sync_timeouts, ctx->stale_rejoins, ctx->blocked_skips,
		ctx->together_waits, ctx->together_timeouts, ctx->together_held_ns,
		ctx->together_unarmed);
	if (ctx->clock.on)
		fprintf(f, "  \"guest_clock\": { \"irqs\": %" PRIu64
			", \"handled\": %" PRIu64 ", \"stray\": %" PRIu64
			", \"late_mean_ns\": %.1f, "
			"\"late_max_ns\": %.1f, \"warps\": %" PRIu64
			", \"warped_ns\": %.0f, \"ring_timeouts\": %" PRIu64
			", \"kick_timeouts\": %" PRIu64 ", \"rerings\": %" PRIu64
			", \"held_reads\": %" PRIu64 ", \"held_max_ns\": %" PRIu64
			", \"warp_joins\": %" PRIu64 ", \"warp_join_max_ns\": %.0f",
			ctx->clock.irqs, ctx->clock.handled,
			ctx->clock.stray,
			ctx->clock.late_mean_ns, ctx->clock.late_max_ns,
			ctx->clock.warps, ctx->clock.warped_ns,
			ctx->clock.ring_timeouts, ctx->clock.kick_timeouts,
			ctx->clock.rerings, ctx->clock.held_reads,
			ctx->clock.held_max_ns, ctx->clock.warp_joins,
			ctx->clock.warp_join_max_ns);
	if (ctx->clock.on)
		write_clock_state(f, &ctx->clock);
	else
		fprintf(f, "  \"guest_clock\": null,\n");
	fprintf(f, "  \"rois\": [\n");
	g_mutex_lock(&l->lock);
	for (guint i = 0; i < l->done->len; i++) {
		write_roi(f, ctx, &g_array_index(l->done, struct roi_record, i));
		fprintf(f, "%s\n", i + 1 < l->done->len ? "," : "");
	}
	g_mutex_unlock(&l->lock);
	fprintf(f, "  ],\n  \"targets\": [");
	for (int i = 0; i < ctx->fabric->ntargets; i++) {
		const struct mf_target *t = &ctx->fabric->targets[i];

		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		json_str(f, t->name);
		fprintf(f, ", \"path\": ");
		json_str(f, t->path);
		fprintf(f, ", \"kind\": \"%s\", \"read_latency_ns\": %.1f, "
			"\"write_latency_ns\": %.1f, \"read_misses\": %" PRIu64
			", \"write_misses\": %" PRIu64 "}",
			t->cxl ? "cxl" : "local", mf_target_latency(t, MF_READ),
			mf_target_latency(t, MF_WRITE), mf_target_misses(t, MF_READ),
			mf_target_misses(t, MF_WRITE));
	}
	fprintf(f, "\n  ],\n  \"links\": [");
	for (int i = 0; i < ctx->nres; i++) {
		const struct mf_res *r = &ctx->res[i];
		const struct mf_counters *m = &ctx->mine[i];

		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		json_str(f, r->name);
		fprintf(f, ", \"read_gbps_cap\": %g, \"write_gbps_cap\": %g, "
			"\"queue_ns\": %g, \"read_bytes\": %" PRIu64 ", \"write_bytes\": %" PRIu64
			", \"read_wait_ns\": %.1f, \"write_wait_ns\": %.1f, "
			"\"all_hosts_read_bytes\": %" PRIu64
			", \"all_hosts_write_bytes\": %" PRIu64 "}",
			r->gbps[0], r->gbps[1], r->queue_ns, m->bytes[0],
			m->bytes[1],
			m->wait_ns[0], m->wait_ns[1], ctx->all[i].bytes[0],
			ctx->all[i].bytes[1]);
	}
	fprintf(f, "\n  ]");
	if (ctx->share) {
		fprintf(f, ",\n");
		share_report_json(f, ctx->share);
	}
	fprintf(f, "\n}\n");
	if (fclose(f) || rename(tmp, path)) {
		*err = g_strdup_printf("%s: %s", path, g_strerror(errno));
		return false;
	}
	return true;
}
