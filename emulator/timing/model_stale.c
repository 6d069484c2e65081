// SPDX-License-Identifier: MIT
/* Stale reads of shared memory without coherence (model_stale.h). */
#include "model_stale.h"

#include <stddef.h>

#define LD(p) __atomic_load_n(p, __ATOMIC_RELAXED)
#define ST(p, v) __atomic_store_n(p, v, __ATOMIC_RELAXED)

static struct sr_line *line_of(struct sr_table *s, uint64_t line, int host)
{
	return line < SR_LINES && host >= 0 && host < SR_HOSTS ?
	       &s->line[line] : NULL;
}

void sr_store(struct sr_table *s, uint64_t line, int host)
{
	struct sr_line *l = line_of(s, line, host);
	uint16_t v;

	if (!l)
		return;
	v = __atomic_add_fetch(&l->wver, 1, __ATOMIC_RELAXED);
	ST(&l->writer, (uint8_t)(host + 1));
	ST(&l->held[host], (uint16_t)(v + 1));	/* its own copy is the latest */
}

void sr_flush(struct sr_table *s, uint64_t line, int host)
{
	struct sr_line *l = line_of(s, line, host);

	if (!l)
		return;
	if (LD(&l->writer) == host + 1)
		ST(&l->fver, LD(&l->wver));
	ST(&l->held[host], 0);
	__atomic_fetch_add(&s->flushes[host], 1, __ATOMIC_RELAXED);
}

enum sr_kind sr_load(struct sr_table *s, uint64_t line, int host)
{
	struct sr_line *l = line_of(s, line, host);
	uint16_t wver, held;
	uint8_t writer;
	enum sr_kind k = SR_FRESH;

	if (!l)
		return SR_FRESH;
	wver = LD(&l->wver);
	writer = LD(&l->writer);
	held = LD(&l->held[host]);
	if (held) {
		/* an old copy: kept past another host's store, or fetched from
		 * memory that its writer never brought up to date (then an
		 * invalidate would fetch the same again) */
		if ((uint16_t)(held - 1) != wver)
			k = (uint16_t)(held - 1) == LD(&l->fver) && writer != host + 1 ?
			    SR_NOT_FLUSHED : SR_NOT_INVALIDATED;
	} else {
		uint16_t in_memory = wver;

		if (writer && writer != host + 1 && LD(&l->fver) != wver) {
			k = SR_NOT_FLUSHED;
			in_memory = LD(&l->fver);	/* what it really got */
		}
		ST(&l->held[host], (uint16_t)(in_memory + 1));
	}
	if (k != SR_FRESH)
		__atomic_fetch_add(&s->stale[host][k], 1, __ATOMIC_RELAXED);
	return k;
}

void sr_log(struct sr_table *s, const struct sr_event *e)
{
	int i;

	if (e->host < 0 || e->host >= SR_HOSTS)
		return;
	i = __atomic_fetch_add(&s->nlog[e->host], 1, __ATOMIC_RELAXED);
	if (i < SR_LOG)
		s->log[e->host][i] = *e;
}

void sr_log_restart(struct sr_table *s, int host)
{
	if (host < 0 || host >= SR_HOSTS)
		return;
	for (int k = 0; k < 3; k++)
		ST(&s->stale_at_start[host][k], LD(&s->stale[host][k]));
	ST(&s->flushes_at_start[host], LD(&s->flushes[host]));
	ST(&s->nlog[host], 0);
}
