// SPDX-License-Identifier: MIT
#include "tm_config.h"
#include "model_copy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void set_defaults(struct tm_config *c)
{
	memset(c, 0, sizeof(*c));
	strcpy(c->host, "host0");
	c->ns_per_insn = 0.25;	/* ~4 GHz at IPC 1 */
	c->skew_ns = 2000;	/* small: a leader cannot claim much bandwidth ahead */
	c->mem = (struct tm_mem_cfg){
		.line_bytes = 64,
		.l1_bytes = 48 << 10, .l1_ways = 12,
		.l2_bytes = 2 << 20, .l2_ways = 16,
		.llc_bytes = 32 << 20, .llc_ways = 16,
		.mlp = 16, .prefetch_distance = 16,
		.snoop_ns = 50,	/* as the topology's default */
	};
	c->res = g_array_new(FALSE, TRUE, sizeof(struct tm_cfg_res));
	c->targets = g_array_new(FALSE, TRUE, sizeof(struct tm_cfg_target));
	c->regions = g_array_new(FALSE, TRUE, sizeof(struct tm_cfg_region));
	c->copyres = g_array_new(FALSE, TRUE, sizeof(struct tm_cfg_copyres));
	c->engines = g_array_new(FALSE, TRUE, sizeof(struct tm_cfg_engine));
}

void tm_config_clear(struct tm_config *c)
{
	if (c->res)
		g_array_free(c->res, TRUE);
	if (c->targets)
		g_array_free(c->targets, TRUE);
	if (c->regions)
		g_array_free(c->regions, TRUE);
	if (c->copyres)
		g_array_free(c->copyres, TRUE);
	if (c->engines)
		g_array_free(c->engines, TRUE);
	g_free(c->report);
	g_free(c->shm);
	memset(c, 0, sizeof(*c));
}

/* One "key=value" field of a line, parsed by the table below. */
enum kind { K_STR, K_NAME, K_U64, K_U32, K_INT, K_DBL, K_BOOL, K_LIST };

struct field {
	const char *key;
	enum kind kind;
	void *dst;
	int *count;		/* K_LIST: entries written */
	int max;		/* K_LIST: capacity */
};

#define F(k, t, d) { .key = (k), .kind = (t), .dst = (d) }

static bool parse_value(const struct field *f, const char *v, char **why)
{
	char *end = NULL;

	errno = 0;
	switch (f->kind) {
	case K_STR:
		g_free(*(char **)f->dst);
		*(char **)f->dst = g_strdup(v);
		return true;
	case K_NAME:
		if (strlen(v) >= MF_NAME && f->max == 0) {
			*why = g_strdup_printf("%s is too long", f->key);
			return false;
		}
		g_strlcpy(f->dst, v, f->max ? (gsize)f->max : MF_NAME);
		return true;
	case K_U64:
		*(uint64_t *)f->dst = g_ascii_strtoull(v, &end, 0);
		break;
	case K_U32:
		*(uint32_t *)f->dst = (uint32_t)g_ascii_strtoull(v, &end, 0);
		break;
	case K_INT:
		*(int *)f->dst = (int)g_ascii_strtoll(v, &end, 0);
		break;
	case K_DBL:
		*(double *)f->dst = g_ascii_strtod(v, &end);
		break;
	case K_BOOL:
		*(bool *)f->dst = !strcmp(v, "1") || !strcmp(v, "yes") ||
				  !strcmp(v, "on") || !strcmp(v, "true");
		return true;
	case K_LIST: {
		g_auto(GStrv) parts = g_strsplit(v, ",", -1);
		int n = 0;

		for (; parts[n]; n++) {
			if (n >= f->max || strlen(parts[n]) >= MF_NAME) {
				*why = g_strdup_printf("%s: too many or too long",
						       f->key);
				return false;
			}
			g_strlcpy((char *)f->dst + n * MF_NAME, parts[n],
				  MF_NAME);
		}
		*f->count = n;
		return true;
	}
	}
	if (errno || !end || *end || end == v) {
		*why = g_strdup_printf("%s=%s is not a number", f->key, v);
		return false;
	}
	return true;
}

static bool parse_fields(char **tok, const struct field *fields, char **why)
{
	for (; *tok; tok++) {
		const char *eq = strchr(*tok, '=');
		const struct field *f;

		if (!eq) {
			*why = g_strdup_printf("'%s' is not key=value", *tok);
			return false;
		}
		for (f = fields; f->key; f++)
			if (strlen(f->key) == (size_t)(eq - *tok) &&
			    !strncmp(f->key, *tok, eq - *tok))
				break;
		if (!f->key) {
			*why = g_strdup_printf("unknown key '%.*s'",
					       (int)(eq - *tok), *tok);
			return false;
		}
		if (!parse_value(f, eq + 1, why))
			return false;
	}
	return true;
}

static bool parse_line(struct tm_config *c, char **tok, char **why)
{
	const char *kw = tok[0];

	if (!strcmp(kw, "host")) {
		struct field f[] = {
			F("name", K_NAME, c->host),
			F("index", K_INT, &c->host_index),
			{ .key = NULL } };
		if (!parse_fields(tok + 1, f, why))
			return false;
		if (c->host_index < 0 || c->host_index >= TM_MAX_HOSTS) {
			*why = g_strdup_printf("index must be 0..%d",
					       TM_MAX_HOSTS - 1);
			return false;
		}
		return true;
	}
	if (!strcmp(kw, "clock")) {
		struct field f[] = {
			F("ns_per_insn", K_DBL, &c->ns_per_insn),
			F("skew_ns", K_U64, &c->skew_ns),
			{ .key = NULL } };
		return parse_fields(tok + 1, f, why);
	}
	if (!strcmp(kw, "cache")) {
		struct tm_mem_cfg *m = &c->mem;
		struct field f[] = {
			F("line", K_U32, &m->line_bytes),
			F("l1", K_U64, &m->l1_bytes),
			F("l1_ways", K_U32, &m->l1_ways),
			F("l2", K_U64, &m->l2_bytes),
			F("l2_ways", K_U32, &m->l2_ways),
			F("llc", K_U64, &m->llc_bytes),
			F("llc_ways", K_U32, &m->llc_ways),
			F("mlp", K_INT, &m->mlp),
			F("prefetch", K_INT, &m->prefetch_distance),
			F("snoop_ns", K_DBL, &m->snoop_ns),
			{ .key = NULL } };
		return parse_fields(tok + 1, f, why);
	}
	if (!strcmp(kw, "resource")) {
		struct tm_cfg_res r = { .queue_ns = -1 };
		struct field f[] = {
			F("name", K_NAME, r.name),
			F("read_gbps", K_DBL, &r.gbps[MF_READ]),
			F("write_gbps", K_DBL, &r.gbps[MF_WRITE]),
			F("queue_ns", K_DBL, &r.queue_ns),
			{ .key = NULL } };
		if (!parse_fields(tok + 1, f, why))
			return false;
		g_array_append_val(c->res, r);
		return true;
	}
	if (!strcmp(kw, "target")) {
		struct tm_cfg_target t = { 0 };
		struct field f[] = {
			F("name", K_NAME, t.name),
			{ .key = "path", .kind = K_NAME, .dst = t.path,
			  .max = sizeof(t.path) },
			F("cxl", K_BOOL, &t.cxl),
			F("read_ns", K_DBL, &t.media_ns[MF_READ]),
			F("write_ns", K_DBL, &t.media_ns[MF_WRITE]),
			F("hops_ns", K_DBL, &t.hops_ns),
			{ .key = "via", .kind = K_LIST, .dst = t.via,
			  .count = &t.nvia, .max = MF_MAX_PATH },
			{ .key = NULL } };
		if (!parse_fields(tok + 1, f, why))
			return false;
		g_array_append_val(c->targets, t);
		return true;
	}
	if (!strcmp(kw, "region")) {
		struct tm_cfg_region g = { .share = TM_NOT_SHARED };
		struct field f[] = {
			F("name", K_NAME, g.name),
			F("share", K_U64, &g.share),
			F("base", K_U64, &g.base),
			F("size", K_U64, &g.size),
			F("gran", K_U32, &g.gran),
			{ .key = "targets", .kind = K_LIST, .dst = g.targets,
			  .count = &g.ways, .max = MF_MAX_WAYS },
			{ .key = NULL } };
		if (!parse_fields(tok + 1, f, why))
			return false;
		if (!g.size || !g.gran || !g.ways) {
			*why = g_strdup("region needs size, gran and targets");
			return false;
		}
		g_array_append_val(c->regions, g);
		return true;
	}
	if (!strcmp(kw, "copyres")) {
		struct tm_cfg_copyres r = { .depth = 16 };
		struct field f[] = {
			F("name", K_NAME, r.name),
			F("gbps", K_DBL, &r.gbps),
			F("depth", K_INT, &r.depth),
			{ .key = NULL } };
		if (!parse_fields(tok + 1, f, why))
			return false;
		if (!(r.gbps > 0) || r.depth < 1 || r.depth > CE_MAX_DEPTH) {
			*why = g_strdup_printf("copyres needs gbps > 0 and depth 1..%d",
					       CE_MAX_DEPTH);
			return false;
		}
		g_array_append_val(c->copyres, r);
		return true;
	}
	if (!strcmp(kw, "engine")) {
		struct tm_cfg_engine e = { 0 };
		struct field f[] = {
			F("name", K_NAME, e.name),
			F("latency_ns", K_DBL, &e.latency_ns),
			F("cap_gbps", K_DBL, &e.cap_gbps),
			{ .key = "via", .kind = K_LIST, .dst = e.via,
			  .count = &e.nvia, .max = TM_ENGINE_VIA },
			{ .key = NULL } };
		if (!parse_fields(tok + 1, f, why))
			return false;
		if (!e.nvia || e.latency_ns < 0 || e.cap_gbps < 0) {
			*why = g_strdup("engine needs via (copy resources), latency_ns >= 0, cap_gbps >= 0");
			return false;
		}
		for (int i = 0; i < e.nvia; i++) {
			bool known = false;

			for (guint k = 0; k < c->copyres->len; k++)
				known |= !strcmp(g_array_index(c->copyres,
						 struct tm_cfg_copyres, k).name, e.via[i]);
			if (!known) {
				*why = g_strdup_printf("engine %s: no copyres %s before it",
						       e.name, e.via[i]);
				return false;
			}
		}
		g_array_append_val(c->engines, e);
		return true;
	}
	if (!strcmp(kw, "window")) {	/* informational: what QEMU placed */
		uint64_t base = 0, size = 0;
		uint32_t gran = 0;
		int index = 0;
		char *targets = NULL;
		struct field f[] = {
			F("index", K_INT, &index),
			F("base", K_U64, &base),
			F("size", K_U64, &size),
			F("gran", K_U32, &gran),
			F("targets", K_STR, &targets),
			{ .key = NULL } };
		bool ok = parse_fields(tok + 1, f, why);

		g_free(targets);
		return ok;
	}
	if (!strcmp(kw, "report")) {
		struct field f[] = { F("path", K_STR, &c->report), { .key = NULL } };
		return parse_fields(tok + 1, f, why);
	}
	if (!strcmp(kw, "shm")) {
		struct field f[] = { F("name", K_STR, &c->shm), { .key = NULL } };
		return parse_fields(tok + 1, f, why);
	}
	*why = g_strdup_printf("unknown directive '%s'", kw);
	return false;
}

bool tm_config_parse(const char *file, const char *text, struct tm_config *c,
		     char **err)
{
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	bool seen_magic = false;

	set_defaults(c);
	for (int i = 0; lines[i]; i++) {
		g_auto(GStrv) tok = NULL;
		char *why = NULL, *hash = strchr(lines[i], '#');

		if (hash)
			*hash = 0;
		tok = g_strsplit_set(g_strstrip(lines[i]), " \t", -1);
		if (!tok[0] || !*tok[0])
			continue;
		if (!seen_magic) {
			if (strcmp(tok[0], TM_CONFIG_MAGIC) || !tok[1] ||
			    atoi(tok[1]) != TM_CONFIG_VERSION)
				why = g_strdup_printf("first line must be '%s %d'",
						      TM_CONFIG_MAGIC,
						      TM_CONFIG_VERSION);
			seen_magic = true;
		} else {
			parse_line(c, tok, &why);
		}
		if (why) {
			*err = g_strdup_printf("%s:%d: %s", file, i + 1, why);
			g_free(why);
			tm_config_clear(c);
			return false;
		}
	}
	if (!seen_magic) {
		*err = g_strdup_printf("%s: empty timing config", file);
		tm_config_clear(c);
		return false;
	}
	return true;
}

bool tm_config_load(const char *path, struct tm_config *c, char **err)
{
	g_autofree char *text = NULL;
	GError *e = NULL;

	if (!g_file_get_contents(path, &text, NULL, &e)) {
		*err = g_strdup(e->message);
		g_error_free(e);
		return false;
	}
	return tm_config_parse(path, text, c, err);
}

static struct mf_target *find_target(struct mf_target *t, int n,
				     const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return &t[i];
	return NULL;
}

/*
 * The service time of @cr's queueing term (model_lane.h) when the config
 * gives none: a QoS cap is a rate limit, not a server (none); a target's
 * media (the last resource of its path) a share of the media's idle
 * latency; a link or bridge the time it takes to send one line.
 */
static double derived_queue_ns(const struct tm_config *c,
			       const struct tm_cfg_res *cr)
{
	double gbps = cr->gbps[MF_READ] > cr->gbps[MF_WRITE] ?
		      cr->gbps[MF_READ] : cr->gbps[MF_WRITE];

	if (cr->queue_ns >= 0)
		return cr->queue_ns;
	if (!strncmp(cr->name, "cap:", 4) || gbps <= 0)
		return 0;
	for (guint i = 0; i < c->targets->len; i++) {
		const struct tm_cfg_target *ct =
			&g_array_index(c->targets, struct tm_cfg_target, i);

		if (ct->nvia && !strcmp(ct->via[ct->nvia - 1], cr->name))
			return MF_MEDIA_QUEUE_SHARE * ct->media_ns[MF_READ];
	}
	return c->mem.line_bytes / gbps;
}

/* Append the resource called @name to @t's path; false (and *err) if none. */
static bool add_via(const struct tm_config *c, struct tm_shared *s,
		    struct mf_target *t, const char *name, char **err)
{
	const struct tm_cfg_res *cr = NULL;

	for (guint r = 0; r < c->res->len && !cr; r++) {
		cr = &g_array_index(c->res, struct tm_cfg_res, r);
		if (strcmp(cr->name, name))
			cr = NULL;
	}
	if (!cr) {
		*err = g_strdup_printf("target %s: no resource %s", t->name,
				       name);
		return false;
	}
	t->res[t->nres] = tm_shared_res(s, cr->name, cr->gbps[0], cr->gbps[1],
					derived_queue_ns(c, cr));
	if (!t->res[t->nres]) {
		*err = g_strdup("too many resources");
		return false;
	}
	t->nres++;
	return true;
}

struct mf_fabric *tm_fabric_build(const struct tm_config *c,
				  struct tm_shared *s, char **err)
{
	struct mf_fabric *f = g_new0(struct mf_fabric, 1);
	int nt = c->targets->len;
	/*
	 * One extra slot: a default local DRAM when the file names none.
	 * Aligned as the type asks (malloc gives 16 bytes): each requester's
	 * miss count has a line of its own only from a line boundary; from
	 * malloc's, vCPU 0's shared a line with the fields every miss reads,
	 * and vCPU 1's, and mf_access_by was 12% of two streaming vCPUs'
	 * samples, most of it waiting for that line (perf annotate).
	 */
	struct mf_target *tg = g_aligned_alloc0(nt + 1, sizeof(*tg), _Alignof(struct mf_target));

	for (int i = 0; i < nt; i++) {
		const struct tm_cfg_target *ct =
			&g_array_index(c->targets, struct tm_cfg_target, i);
		struct mf_target *t = &tg[i];

		g_strlcpy(t->name, ct->name, sizeof(t->name));
		g_strlcpy(t->path, ct->path, sizeof(t->path));
		t->cxl = ct->cxl;
		t->media_ns[0] = ct->media_ns[0];
		t->media_ns[1] = ct->media_ns[1];
		t->hops_ns = ct->hops_ns;
		/*
		 * A host's QoS cap ("cap:") is taken after the shared
		 * resources of the path: they then see the host's transfers
		 * in the order they are issued, and the cap holds the host's
		 * completions to its rate (model_lane.h).
		 */
		for (int caps = 0; caps < 2; caps++)
			for (int v = 0; v < ct->nvia; v++)
				if ((strncmp(ct->via[v], "cap:", 4) == 0) == caps &&
				    !add_via(c, s, t, ct->via[v], err))
					goto fail;
		if (!t->cxl && !f->local)
			f->local = t;
		t->solo = c->solo;
	}
	f->targets = tg;
	f->ntargets = nt;
	if (!f->local) {
		f->local = &tg[nt];
		f->ntargets++;
		strcpy(f->local->name, "local");
		strcpy(f->local->path, "local");
		f->local->media_ns[0] = f->local->media_ns[1] = 100;
		f->local->solo = c->solo;
	}
	f->nregions = c->regions->len;
	f->regions = g_new0(struct mf_region, f->nregions + 1);
	for (int i = 0; i < f->nregions; i++) {
		const struct tm_cfg_region *cg =
			&g_array_index(c->regions, struct tm_cfg_region, i);
		struct mf_region *g = &f->regions[i];

		g_strlcpy(g->name, cg->name, sizeof(g->name));
		g->base = cg->base;
		g->size = cg->size;
		g->gran = cg->gran;
		g->ways = cg->ways;
		mf_region_init(g);
		for (int w = 0; w < cg->ways; w++) {
			g->t[w] = find_target(tg, nt, cg->targets[w]);
			if (!g->t[w]) {
				*err = g_strdup_printf("region %s: no target %s",
						       cg->name, cg->targets[w]);
				goto fail;
			}
		}
	}
	return f;
fail:
	g_free(f->regions);
	g_aligned_free(tg);
	g_free(f);
	return NULL;
}

void tm_fabric_free(struct mf_fabric *f)
{
	if (!f)
		return;
	g_free(f->regions);
	g_aligned_free(f->targets);
	g_free(f);
}
