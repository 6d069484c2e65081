/* SPDX-License-Identifier: MIT */
/* The trigger grammar (trigger.h) and the seeded generator. */
#include "schedule/trigger.h"
#include "common/duration.h"
#include "common/error.h"

#include <string.h>

/* A run lasts a week at most (scenario.h): so does a time in it. */
#define TRIGGER_MAX_S (7 * 24 * 3600)

const char *trigger_kind_name(enum trigger_kind k)
{
	static const char *const n[] = { "wall", "modeled", "start", "phase", "written",
					 "guest" };

	return n[k];
}

bool trigger_needs_timing(const struct trigger *tr)
{
	return tr->kind == TRIG_MODELED || tr->kind == TRIG_WRITTEN;
}

void trigger_clear(struct trigger *tr)
{
	g_clear_pointer(&tr->phase, g_free);
}

static int key_line(const struct cfg_section *sec, const char *key)
{
	struct cfg_entry *e = cfg_section_find(sec, key);

	return e ? e->line : sec->line;
}

static bool seconds(const char *p, double *out)
{
	return cb_parse_duration(p, out) && *out <= TRIGGER_MAX_S;
}

/* "40ms" (@hi = @lo) or "random:1ms..5ms" (@hi > @lo: drawn between) */
static bool parse_range(const char *p, double *lo, double *hi)
{
	g_auto(GStrv) parts = NULL;

	if (!g_str_has_prefix(p, "random:"))
		return seconds(p, lo) && (*hi = *lo, true);
	parts = g_strsplit(p + 7, "..", 2);
	return g_strv_length(parts) == 2 && seconds(parts[0], lo) &&
	       seconds(parts[1], hi) && *hi > *lo;
}

#define FAIL(line, ...) \
	(cxlbed_input_error(error, f->path, (line), __VA_ARGS__), false)

static bool parse_when(struct trigger *tr, const char *when)
{
	if (!strcmp(when, "start")) {
		tr->kind = TRIG_START;
	} else if (g_str_has_prefix(when, "phase:") && when[6]) {
		tr->kind = TRIG_PHASE;
		tr->phase = g_strdup(when + 6);
	} else if (g_str_has_prefix(when, "guest:") && when[6]) {
		tr->kind = TRIG_GUEST;
		tr->phase = g_strdup(when + 6);
	} else if (g_str_has_prefix(when, "written:") &&
		   cfg_parse_size(when + 8, &tr->written) && tr->written) {
		tr->kind = TRIG_WRITTEN;
	} else {
		return false;
	}
	return true;
}

bool trigger_parse(struct trigger *tr, const struct cfg_file *f,
		   const struct cfg_section *sec, const char *what, GError **error)
{
	const char *at = cfg_get_string(f, sec, "at", NULL);
	const char *when = cfg_get_string(f, sec, "when", NULL);
	const char *delay = cfg_get_string(f, sec, "delay", NULL);
	const char *p;

	memset(tr, 0, sizeof(*tr));
	if (!at == !when)
		return FAIL(sec->line, "[%s %s] needs one of at = TIME (e.g. 2.5s, "
			    "modeled:150ms, random:1s..4s) or when = start | "
			    "phase:WORKLOAD | guest:PHASE | written:BYTES", what,
			    sec->name);
	tr->at_line = at ? key_line(sec, "at") : 0;
	tr->when_line = when ? key_line(sec, "when") : 0;
	if (at) {
		p = at;
		tr->kind = TRIG_AT;
		if (g_str_has_prefix(p, "modeled:")) {
			tr->kind = TRIG_MODELED;
			p += 8;
		}
		if (!parse_range(p, &tr->at_lo, &tr->at_hi))
			return FAIL(tr->at_line, "at = '%s': give a time after the "
				    "workloads start, at most %d s: 2.5s (host wall "
				    "time), modeled:150ms, random:1s..4s or "
				    "modeled:random:10ms..40ms", at, TRIGGER_MAX_S);
	}
	if (when && !parse_when(tr, when))
		return FAIL(tr->when_line, "when = '%s': use start, phase:WORKLOAD, "
			    "guest:PHASE or written:BYTES (e.g. written:64M)", when);
	if (delay && at)
		return FAIL(key_line(sec, "delay"), "delay = applies after a when = "
			    "trigger; with at = give the time itself");
	p = delay;
	if (p && g_str_has_prefix(p, "modeled:")) {
		tr->delay_modeled = true;
		p += 8;
	}
	if (p && !parse_range(p, &tr->delay_lo, &tr->delay_hi))
		return FAIL(key_line(sec, "delay"), "delay = '%s': a time after the "
			    "trigger, e.g. 500ms, modeled:40ms or "
			    "modeled:random:2ms..40ms", delay);
	return true;
}

uint64_t sched_rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

uint64_t sched_rng_for(uint64_t seed, const char *id)
{
	uint64_t h = seed ^ 0xCB5EFA17u;

	for (const char *p = id; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001B3ull;
	return h;
}

double sched_rng_between(uint64_t *state, double lo, double hi)
{
	return lo + (hi - lo) * ((double)(sched_rng_next(state) >> 11) / 9007199254740992.0);
}
