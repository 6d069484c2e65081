// SPDX-License-Identifier: MIT
#include "faults/fault_schedule.h"
#include "common/duration.h"
#include "common/error.h"

#include <math.h>
#include <string.h>

static const char *const kind_names[] = {
	[FK_KILL_POOL] = "kill-pool-node", [FK_REVOKE] = "revoke-capacity",
	[FK_POISON] = "poison", [FK_COR_ERROR] = "cor-error",
	[FK_UNCOR_ERROR] = "uncor-error", [FK_GM_EVENT] = "gm-event",
	[FK_DRAM_EVENT] = "dram-event", [FK_MODULE_EVENT] = "module-event",
	[FK_LINK_DEGRADE] = "link-degrade", [FK_LINK_FLAP] = "link-flap",
	[FK_RANDOM] = "random",
};

/* QMP's CxlCorErrorType and CxlUncorErrorType (QEMU 10.0.2 qapi/cxl.json). */
static const char *const cor_types[] = {
	"cache-data-ecc", "mem-data-ecc", "crc-threshold", "retry-threshold",
	"cache-poison-received", "mem-poison-received", "physical", NULL,
};
static const char *const uncor_types[] = {
	"cache-data-parity", "cache-address-parity", "cache-be-parity",
	"cache-data-ecc", "mem-data-parity", "mem-address-parity", "mem-be-parity",
	"mem-data-ecc", "reinit-threshold", "rsvd-encoding", "poison-received",
	"receiver-overflow", "internal", "cxl-ide-tx", "cxl-ide-rx", NULL,
};
static const char *const logs[] = { "informational", "warning", "failure", "fatal", NULL };

const char *fault_kind_name(enum fault_kind k)
{
	return k <= FK_RANDOM ? kind_names[k] : "?";
}

int fault_kind_parse(const char *name)
{
	for (int k = 0; k <= FK_RANDOM; k++)
		if (!strcmp(name, kind_names[k]))
			return k;
	return -1;
}

bool fault_kind_targets_pool(enum fault_kind k)
{
	return k == FK_KILL_POOL;
}

bool fault_kind_is_link(enum fault_kind k)
{
	return k == FK_LINK_DEGRADE || k == FK_LINK_FLAP;
}

#define PAGE 4096

/* How many offsets a draw in @range chooses from: the page after the
 * first up to a page short of the end. */
static uint64_t offset_span(uint64_t range)
{
	return range > 2 * PAGE ? range - 2 * PAGE : 1;
}

uint64_t fault_rng_offset(uint64_t *state, uint64_t range, uint64_t align)
{
	uint64_t off = PAGE + sched_rng_next(state) % offset_span(range);

	return off / align * align;
}

uint64_t fault_rng_offset_max(uint64_t range)
{
	return PAGE + offset_span(range) - 1;
}

struct fault_schedule *fault_schedule_new(void)
{
	struct fault_schedule *s = g_new0(struct fault_schedule, 1);

	s->seed = 1;
	s->detect_bound_s = 0.1;
	s->specs = g_ptr_array_new();
	return s;
}

static void spec_free(struct fault_spec *f)
{
	g_free(f->id);
	trigger_clear(&f->when);
	g_free(f->target);
	g_free(f->host);
	g_free(f->type);
	g_free(f->log);
	g_free(f);
}

void fault_schedule_free(struct fault_schedule *s)
{
	if (!s)
		return;
	for (guint i = 0; i < s->specs->len; i++)
		spec_free(g_ptr_array_index(s->specs, i));
	g_ptr_array_unref(s->specs);
	g_free(s->file);
	g_free(s);
}

/* The line of @key in @sec, 0 when it is not there. */
static int given_line(const struct cfg_section *sec, const char *key)
{
	struct cfg_entry *e = cfg_section_find(sec, key);

	return e ? e->line : 0;
}

/* ... or the section's line. */
static int key_line(const struct cfg_section *sec, const char *key)
{
	return given_line(sec, key) ? given_line(sec, key) : sec->line;
}

#define FAIL(line, ...) \
	(cxlbed_input_error(error, f->path, (line), __VA_ARGS__), false)

static bool one_of_list(const char *v, const char *const *list)
{
	for (int i = 0; list[i]; i++)
		if (!strcmp(v, list[i]))
			return true;
	return false;
}

static char *joined(const char *const *list)
{
	GString *s = g_string_new(NULL);

	for (int i = 0; list[i]; i++)
		g_string_append_printf(s, "%s%s", i ? ", " : "", list[i]);
	return g_string_free(s, FALSE);
}

bool fault_schedule_parse_faults(struct fault_schedule *s, const struct cfg_file *f,
				 const struct cfg_section *sec, GError **error)
{
	const char *bound = cfg_get_string(f, sec, "detect-bound", NULL);
	struct cfg_entry *unused;

	if (s->src.file && s->seed_given)
		return FAIL(sec->line, "only one [faults] section is allowed");
	if (!cfg_get_uint(f, sec, "seed", 1, 0, UINT64_MAX, &s->seed, error))
		return false;
	s->seed_given = cfg_section_find(sec, "seed") != NULL;
	if (bound && (!cb_parse_duration(bound, &s->detect_bound_s) || s->detect_bound_s <= 0))
		return FAIL(key_line(sec, "detect-bound"), "detect-bound = '%s': give a "
			    "modeled time, e.g. 100ms", bound);
	if (!s->file)
		s->file = g_strdup(f->path);	/* outlives @f */
	s->src = (struct cb_src){ s->file, sec->line };
	unused = cfg_section_first_unused(sec);
	if (unused)
		return FAIL(unused->line, "unknown key '%s' in [faults]; it takes seed "
			    "and detect-bound (docs/faults.md)", unused->key);
	return true;
}

static bool parse_kinds(const struct cfg_file *f, const struct cfg_section *sec,
			struct fault_spec *x, GError **error)
{
	g_auto(GStrv) list = cfg_get_list(f, sec, "kinds");

	if (!list) {
		/* every class a protected runtime is meant to ride out */
		x->kinds = 1u << FK_KILL_POOL | 1u << FK_POISON | 1u << FK_COR_ERROR |
			   1u << FK_GM_EVENT | 1u << FK_DRAM_EVENT | 1u << FK_MODULE_EVENT |
			   1u << FK_REVOKE | 1u << FK_LINK_DEGRADE | 1u << FK_LINK_FLAP;
		return true;
	}
	for (int i = 0; list[i]; i++) {
		int k = fault_kind_parse(list[i]);

		if (k < 0 || k == FK_RANDOM)
			return FAIL(key_line(sec, "kinds"), "kinds: '%s' is no fault kind; "
				    "see docs/faults.md", list[i]);
		x->kinds |= 1u << k;
	}
	return true;
}

static bool get_duration(const struct cfg_file *f, const struct cfg_section *sec,
			 const char *key, double def, double *out, GError **error)
{
	const char *v = cfg_get_string(f, sec, key, NULL);

	*out = def;
	if (v && !cb_parse_duration(v, out))
		return FAIL(key_line(sec, key), "%s = '%s': give a time, e.g. 500ms, "
			    "2s or 100ns", key, v);
	return true;
}

bool fault_schedule_parse_fault(struct fault_schedule *s, const struct cfg_file *f,
				const struct cfg_section *sec, GError **error)
{
	const char *kind = cfg_get_string(f, sec, "kind", NULL);
	struct trigger when;
	const char *offset = cfg_get_string(f, sec, "offset", NULL);
	const char *type = cfg_get_string(f, sec, "type", NULL);
	const char *log = cfg_get_string(f, sec, "log", NULL);
	struct fault_spec *x;
	struct cfg_entry *unused;
	uint64_t count;
	int k;

	if (!sec->name)
		return FAIL(sec->line, "a fault needs a name: [fault NAME]");
	for (guint i = 0; i < s->specs->len; i++)
		if (!strcmp(((struct fault_spec *)g_ptr_array_index(s->specs, i))->id,
			    sec->name))
			return FAIL(sec->line, "fault '%s' defined twice", sec->name);
	if (!kind || (k = fault_kind_parse(kind)) < 0)
		return FAIL(key_line(sec, "kind"), "[fault %s] needs kind = one of "
			    "kill-pool-node, revoke-capacity, poison, cor-error, "
			    "uncor-error, gm-event, dram-event, module-event, "
			    "link-degrade, link-flap, random%s%s%s", sec->name,
			    kind ? " (not '" : "", kind ? kind : "", kind ? "')" : "");
	if (!trigger_parse(&when, f, sec, "fault", error)) {
		trigger_clear(&when);
		return false;
	}
	x = g_new0(struct fault_spec, 1);
	g_ptr_array_add(s->specs, x);
	x->id = g_strdup(sec->name);
	x->kind = (enum fault_kind)k;
	x->when = when;
	x->line.kind = given_line(sec, "kind");
	x->line.at = when.at_line;
	x->line.when = when.when_line;
	x->line.target = given_line(sec, "target");
	x->line.host = given_line(sec, "host");
	x->line.offset = given_line(sec, "offset");
	x->line.length = given_line(sec, "length");
	x->line.range = given_line(sec, "range");
	if (!s->file)
		s->file = g_strdup(f->path);	/* outlives @f */
	x->src = (struct cb_src){ s->file, sec->line };
	if (!s->src.file)
		s->src = x->src;
	if (!parse_kinds(f, sec, x, error))
		return false;
	x->target = g_strdup(cfg_get_string(f, sec, "target", "random"));
	x->host = g_strdup(cfg_get_string(f, sec, "host", NULL));
	x->offset_random = !offset || !strcmp(offset, "random");
	if (!x->offset_random && !cfg_parse_size(offset, &x->offset))
		return FAIL(key_line(sec, "offset"), "offset = '%s': a byte offset in "
			    "the LD (e.g. 4M) or random", offset);
	if (!cfg_get_size(f, sec, "length", 4096, 1, 1ull << 40, &x->length, error) ||
	    !cfg_get_size(f, sec, "range", 16u << 20, 1, 1ull << 40, &x->range, error))
		return false;
	if (x->length < 64 || x->length % 64 || x->offset % 64)
		return FAIL(key_line(sec, x->length % 64 || x->length < 64 ? "length" :
				     "offset"), "poison is injected in 64-byte lines: "
			    "offset and length must be multiples of 64 (QEMU's "
			    "cxl-inject-poison)");
	if (x->range < 64)
		return FAIL(key_line(sec, "range"), "range must be at least 64 bytes");
	if (type) {
		const char *const *list = x->kind == FK_UNCOR_ERROR ? uncor_types : cor_types;

		if ((x->kind != FK_COR_ERROR && x->kind != FK_UNCOR_ERROR) ||
		    !one_of_list(type, list)) {
			g_autofree char *all = joined(list);

			return FAIL(key_line(sec, "type"), "type = '%s' %s %s", type,
				    x->kind == FK_COR_ERROR || x->kind == FK_UNCOR_ERROR ?
				    "is not one QEMU injects; use one of" :
				    "applies to cor-error and uncor-error only; their types:",
				    all);
		}
	}
	x->type = g_strdup(type ? type : x->kind == FK_UNCOR_ERROR ? "mem-data-ecc" :
			   "crc-threshold");
	if (log && !one_of_list(log, logs))
		return FAIL(key_line(sec, "log"), "log = '%s': informational, warning, "
			    "failure or fatal (the CXL event log)", log);
	x->log = g_strdup(log ? log : x->kind == FK_MODULE_EVENT ? "warning" : "failure");
	{
		uint64_t ms, hs;

		if (!cfg_get_uint(f, sec, "media-status", 0, 0, 9, &ms, error) ||
		    !cfg_get_uint(f, sec, "health-status", 1, 0, 7, &hs, error))
			return false;
		if (ms > 9 || hs > 7)
			return FAIL(key_line(sec, ms > 9 ? "media-status" : "health-status"),
				    "media-status is 0..9 (3: all data lost), health-status "
				    "a 3-bit mask (CXL memory module event record)");
		x->media_status = (int)ms;
		x->health_status = (int)hs;
	}
	if (!cfg_get_real(f, sec, "bandwidth", x->kind == FK_LINK_FLAP ? 0.01 : 0.5,
			  0, 1, &x->bandwidth, error))
		return false;
	if (!(x->bandwidth > 0 && x->bandwidth <= 1))
		return FAIL(key_line(sec, "bandwidth"), "bandwidth = %g: a factor in "
			    "(0, 1] the link's bandwidth is multiplied by", x->bandwidth);
	{
		double ns;

		if (!get_duration(f, sec, "latency", x->kind == FK_LINK_FLAP ? 10e-6 : 0,
				  &ns, error))
			return false;
		x->latency_ns = ns * 1e9;
	}
	if (!get_duration(f, sec, "duration", x->kind == FK_LINK_FLAP ? 0.2 : 0,
			  &x->duration_s, error) ||
	    !get_duration(f, sec, "period", 1, &x->period_s, error))
		return false;
	if (!cfg_get_uint(f, sec, "count", 3, 1, 1000, &count, error))
		return false;
	if (count < 1 || count > 1000)
		return FAIL(key_line(sec, "count"), "count = %llu: 1 to 1000 flaps",
			    (unsigned long long)count);
	x->count = (int)count;
	if (x->kind == FK_LINK_FLAP && x->duration_s >= x->period_s)
		return FAIL(key_line(sec, "duration"), "a flap's duration (down time) "
			    "must be shorter than its period");
	if (!cfg_get_bool(f, sec, "signal", true, &x->signal, error) ||
	    !cfg_get_bool(f, sec, "remove", false, &x->remove, error))
		return false;
	unused = cfg_section_first_unused(sec);
	if (unused)
		return FAIL(unused->line, "unknown key '%s' in [fault %s]; see "
			    "docs/faults.md", unused->key, sec->name);
	return true;
}
