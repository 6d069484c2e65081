/* SPDX-License-Identifier: MIT */
/*
 * A scenario's fabric-manager part (docs/pooling.md):
 *
 *   [event NAME]            bind or unbind an LD of a lending pool
 *   at = ... | when = ...   when: the schedule's trigger grammar
 *   delay = ...             (emulator/schedule/trigger.h)
 *   action = bind | unbind
 *   ld = p0.ld1             (bind: default the first free LD; unbind:
 *                            default the host's newest LD)
 *   pool = p0               (default: the topology's only lending pool)
 *   host = h1
 *   mode = ram | devdax     (bind; default ram)
 *   expect = ok | refused   (refused: the event tests a refusal)
 *
 *   [fm]
 *   demand = grant | off    (act on pool-demand events from the guests)
 *   sample = 1s             (utilisation sampling period)
 */
#include "run/scenario.h"
#include "common/duration.h"
#include "common/error.h"
#include "faults/fault_schedule.h"

#include <stdlib.h>
#include <string.h>

void scn_event_free(gpointer p)
{
	struct scn_event *e = p;

	g_free(e->id);
	trigger_clear(&e->when);
	g_free(e->action);
	g_free(e->ld);
	g_free(e->pool);
	g_free(e->host);
	g_free(e->mode);
	g_free(e);
}

static int key_line(const struct cfg_section *sec, const char *key)
{
	struct cfg_entry *e = cfg_section_find(sec, key);

	return e ? e->line : sec->line;
}

/*
 * "2.5s", "500ms", "3": seconds, a decimal number by the rules of every
 * number in cxlbed's files (cfg_parse_real), at most a whole run.
 */
static bool parse_seconds(const char *text, double *out)
{
	double v;

	if (!cb_parse_duration(text, &v) || v > SCN_MAX_RUN_S)
		return false;
	*out = v;
	return true;
}

static bool one_of(const char *v, const char *a, const char *b)
{
	return !strcmp(v, a) || !strcmp(v, b);
}

#define FAIL(line, ...) \
	(cxlbed_input_error(error, f->path, (line), __VA_ARGS__), false)

bool scenario_parse_event(struct scenario *s, const struct cfg_file *f,
			  const struct cfg_section *sec, GHashTable *ids,
			  GError **error)
{
	const char *action = cfg_get_string(f, sec, "action", NULL);
	const char *mode = cfg_get_string(f, sec, "mode", "ram");
	const char *expect = cfg_get_string(f, sec, "expect", "ok");
	struct scn_event *e;
	struct cfg_entry *unused;

	if (!sec->name)
		return FAIL(sec->line, "an event needs a name: [event NAME]");
	if (!cfg_name_ok(sec->name))
		return FAIL(sec->line, "event name '%s' is not a name; use %s",
			    sec->name, CFG_NAME_RULE);
	if (!g_hash_table_add(ids, sec->name))
		return FAIL(sec->line, "event '%s' defined twice", sec->name);
	if (!action || !one_of(action, "bind", "unbind"))
		return FAIL(key_line(sec, "action"), "[event %s] needs action = bind "
			    "or action = unbind", sec->name);
	if (!one_of(mode, "ram", "devdax"))
		return FAIL(key_line(sec, "mode"), "mode = '%s': use ram (online "
			    "movable as a NUMA node) or devdax", mode);
	if (!one_of(expect, "ok", "refused"))
		return FAIL(key_line(sec, "expect"), "expect = '%s': use ok or "
			    "refused (the event checks that the FM refuses it)", expect);
	e = g_new0(struct scn_event, 1);
	g_ptr_array_add(s->events, e);
	e->id = g_strdup(sec->name);
	e->action = g_strdup(action);
	e->mode = g_strdup(mode);
	e->expect_refused = !strcmp(expect, "refused");
	e->ld = g_strdup(cfg_get_string(f, sec, "ld", NULL));
	e->pool = g_strdup(cfg_get_string(f, sec, "pool", NULL));
	e->host = g_strdup(cfg_get_string(f, sec, "host", NULL));
	e->src = (struct cb_src){ s->file, sec->line };	/* outlives f */
	if (!trigger_parse(&e->when, f, sec, "event", error))
		return false;
	if (!strcmp(action, "bind") && !e->host)
		return FAIL(sec->line, "[event %s] binds: it needs host = HOST",
			    sec->name);
	if (!strcmp(action, "unbind") && !e->host && !e->ld)
		return FAIL(sec->line, "[event %s] unbinds: it needs ld = LD or "
			    "host = HOST (that host's newest LD)", sec->name);
	unused = cfg_section_first_unused(sec);
	if (unused)
		return FAIL(unused->line, "unknown key '%s' in [event]; see "
			    "docs/pooling.md", unused->key);
	return true;
}

bool scenario_parse_fm(struct scenario *s, const struct cfg_file *f,
		       const struct cfg_section *sec, GError **error)
{
	const char *demand = cfg_get_string(f, sec, "demand", "off");
	const char *sample = cfg_get_string(f, sec, "sample", NULL);
	struct cfg_entry *unused;

	if (!one_of(demand, "grant", "off"))
		return FAIL(key_line(sec, "demand"), "demand = '%s': use grant (bind "
			    "free LDs to a host that asks, release those it "
			    "offers) or off", demand);
	s->fm_grant_demand = !strcmp(demand, "grant");
	if (sample && (!parse_seconds(sample, &s->fm_sample_s) ||
		       s->fm_sample_s < 0.1))
		return FAIL(key_line(sec, "sample"), "sample = '%s': give a period "
			    "of at least 100ms and at most %d s, e.g. 1s "
			    "(decimal)", sample,
			    SCN_MAX_RUN_S);
	unused = cfg_section_first_unused(sec);
	if (unused)
		return FAIL(unused->line, "unknown key '%s' in [fm]; see "
			    "docs/pooling.md", unused->key);
	return true;
}

#undef FAIL
#define FAIL(line, ...) \
	(cxlbed_input_error(error, e->src.file, (line), __VA_ARGS__), false)

/* The line of @key in the event's section, by reading the file again. */
static int event_key_line(const struct scn_event *e, const char *key)
{
	g_autoptr(cfg_file) f = cfg_file_load(e->src.file, NULL);

	for (guint i = 0; f && i < f->sections->len; i++) {
		struct cfg_section *sec = g_ptr_array_index(f->sections, i);

		if (sec->line == e->src.line)
			return key_line(sec, key);
	}
	return e->src.line;
}

static bool has_workload(const struct scenario *s, const char *id)
{
	for (guint i = 0; i < s->workloads->len; i++)
		if (!strcmp(((struct scn_workload *)g_ptr_array_index(s->workloads, i))->id, id))
			return true;
	return false;
}

bool scenario_check_events(const struct scenario *s, const struct cb_topology *t,
			   GError **error)
{
	const struct cb_pool *only = NULL, *p;
	int lending = 0;

	cb_foreach(t->pools, const struct cb_pool, p)
		if (p->ld_size) {
			only = p;
			lending++;
		}
	for (guint i = 0; i < s->events->len; i++) {
		const struct scn_event *e = g_ptr_array_index(s->events, i);
		const struct cb_pool *pool = lending == 1 ? only : NULL;
		const struct cb_ld *ld = e->ld ? topology_find_ld(t, e->ld) : NULL;

		if (!lending)
			return FAIL(e->src.line, "[event %s]: topology %s has no pool "
				    "that lends logical devices (ld-size); see "
				    "docs/pooling.md", e->id, t->file);
		if (e->pool) {
			pool = topology_find_pool(t, e->pool);
			if (!pool || !pool->ld_size)
				return FAIL(event_key_line(e, "pool"), "pool = %s: "
					    "no lending pool of that name in %s",
					    e->pool, t->file);
		}
		if (e->ld && !ld)
			return FAIL(event_key_line(e, "ld"), "ld = %s: no such "
				    "logical device; they are POOL.ldN, N from 0 "
				    "(docs/pooling.md)", e->ld);
		if (ld && e->pool && ld->pool != pool)
			return FAIL(event_key_line(e, "ld"), "ld = %s is not in "
				    "pool %s", e->ld, e->pool);
		if (!ld && !pool)
			return FAIL(e->src.line, "[event %s]: %s has several lending "
				    "pools; say which with pool = or ld =", e->id,
				    t->file);
		if (e->host && !topology_find_host(t, e->host))
			return FAIL(event_key_line(e, "host"), "host = %s: no such "
				    "host in %s", e->host, t->file);
		if (e->when.kind == TRIG_PHASE && !has_workload(s, e->when.phase))
			return FAIL(e->when.when_line, "when = phase:%s: no "
				    "[workload %s] in this scenario", e->when.phase,
				    e->when.phase);
	}
	return true;
}

static bool workload_named(const void *ctx, const char *id)
{
	return has_workload(ctx, id);
}

bool scenario_check_faults(const struct scenario *s, const struct cb_topology *t,
			   bool timing, GError **error)
{
	for (guint i = 0; i < s->events->len && !timing; i++) {
		const struct scn_event *e = g_ptr_array_index(s->events, i);

		if (trigger_needs_timing(&e->when))
			return FAIL(e->when.at_line ? e->when.at_line : e->when.when_line,
				    "[event %s] %s needs the timing model (timing = off "
				    "or --no-timing was given)", e->id,
				    e->when.kind == TRIG_MODELED ? "at = modeled:" :
				    "when = written:");
	}
	return fault_schedule_check(s->faults, t, timing, workload_named, s, error);
}
