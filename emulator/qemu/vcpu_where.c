/* SPDX-License-Identifier: MIT */
#include "qemu/vcpu_where.h"

#include <gio/gio.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ksym {
	uint64_t addr;
	char *name;
};

struct ksyms {
	GArray *syms;	/* struct ksym, sorted by address */
	uint64_t text_end;
};

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void ksym_clear(gpointer p)
{
	g_free(((struct ksym *)p)->name);
}

struct ksyms *ksyms_load(const char *system_map, GError **error)
{
	g_autofree char *text = NULL;
	struct ksyms *k;
	char **lines;

	if (!g_file_get_contents(system_map, &text, NULL, error))
		return NULL;
	k = g_new0(struct ksyms, 1);
	k->syms = g_array_new(FALSE, FALSE, sizeof(struct ksym));
	g_array_set_clear_func(k->syms, ksym_clear);
	lines = g_strsplit(text, "\n", -1);
	for (char **l = lines; *l; l++) {
		char type, name[256];
		uint64_t addr;

		/* "ffffffff81000000 T _stext": text symbols only */
		if (sscanf(*l, "%" SCNx64 " %c %255s", &addr, &type, name) != 3)
			continue;
		if (!strcmp(name, "_etext"))
			k->text_end = addr;
		if (type != 'T' && type != 't')
			continue;
		g_array_append_val(k->syms, ((struct ksym){ addr, g_strdup(name) }));
	}
	g_strfreev(lines);
	if (!k->syms->len) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
			    "%s: no text symbols", system_map);
		ksyms_free(k);
		return NULL;
	}
	g_array_sort(k->syms, by_addr);
	if (!k->text_end)
		k->text_end = g_array_index(k->syms, struct ksym, k->syms->len - 1).addr + 0x10000;
	return k;
}

void ksyms_free(struct ksyms *k)
{
	if (!k)
		return;
	g_array_unref(k->syms);
	g_free(k);
}

char *ksyms_name(const struct ksyms *k, uint64_t addr)
{
	guint lo = 0, hi = k->syms->len;
	const struct ksym *s;

	if (addr < g_array_index(k->syms, struct ksym, 0).addr || addr >= k->text_end)
		return NULL;
	while (hi - lo > 1) {	/* the last symbol at or below addr */
		guint mid = lo + (hi - lo) / 2;

		if (g_array_index(k->syms, struct ksym, mid).addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	s = &g_array_index(k->syms, struct ksym, lo);
	return g_strdup_printf("%s+0x%" PRIx64, s->name, addr - s->addr);
}

/*
 * The next CPU block of "info registers -a" text at or after *@p: each
 * starts "CPU#N" and has "RIP=hex ... HLT=0|1". False when none is left.
 */
static bool next_cpu(const char **p, unsigned *cpu, uint64_t *rip, bool *halted)
{
	while ((*p = strstr(*p, "CPU#"))) {
		const char *r = strstr(*p, "RIP="), *next = strstr(*p + 4, "CPU#");
		const char *hlt;

		if (sscanf(*p, "CPU#%u", cpu) != 1 || !r || (next && r > next) ||
		    sscanf(r, "RIP=%" SCNx64, rip) != 1) {
			*p += 4;
			continue;
		}
		hlt = strstr(r, "HLT=");
		*halted = hlt && (!next || hlt < next) && hlt[4] == '1';
		*p = next ? next : *p + 4;
		return true;
	}
	return false;
}

char *vcpu_where_summary(const char *info, const struct ksyms *k)
{
	GString *out = g_string_new(NULL);
	const char *p = info;
	unsigned cpu;
	uint64_t addr;
	bool halted;

	while (next_cpu(&p, &cpu, &addr, &halted)) {
		g_autofree char *name = k ? ksyms_name(k, addr) : NULL;

		g_string_append_printf(out, "%svCPU%u ", out->len ? ", " : "", cpu);
		if (name)
			g_string_append(out, name);
		else
			g_string_append_printf(out, "0x%" PRIx64, addr);
		if (halted)
			g_string_append(out, " (halted)");
	}
	return g_string_free(out, FALSE);
}

int vcpu_halted_count(const char *info, int *ncpus)
{
	const char *p = info;
	unsigned cpu;
	uint64_t addr;
	bool halted;
	int n = 0, h = 0;

	while (next_cpu(&p, &cpu, &addr, &halted)) {
		n++;
		h += halted;
	}
	*ncpus = n;
	return h;
}

/* "info registers -a" through QMP: the text (owned), or NULL with @error. */
static char *info_registers(struct qmp *q, gint64 deadline_us, GError **error)
{
	g_autoptr(JsonObject) args = json_object_new();
	g_autoptr(JsonNode) ret = NULL;
	const char *text;

	json_object_set_string_member(args, "command-line", "info registers -a");
	ret = qmp_execute(q, "human-monitor-command", args, deadline_us, error);
	if (!ret)
		return NULL;
	text = JSON_NODE_HOLDS_VALUE(ret) ? json_node_get_string(ret) : NULL;
	if (!text) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
			    "info registers: no text in QEMU's answer");
		return NULL;
	}
	return g_strdup(text);
}

bool vcpus_all_halted(struct qmp *q, gint64 deadline_us)
{
	g_autofree char *text = info_registers(q, deadline_us, NULL);
	int n = 0;

	return text && vcpu_halted_count(text, &n) == n && n > 0;
}

char *vcpu_where(struct qmp *q, const char *system_map, const char *save_path,
		 gint64 deadline_us, GError **error)
{
	g_autofree char *text = info_registers(q, deadline_us, error);
	g_autoptr(GError) map_err = NULL;
	struct ksyms *k;
	char *summary;

	if (!text)
		return NULL;
	if (save_path)
		g_file_set_contents(save_path, text, -1, NULL);
	k = system_map ? ksyms_load(system_map, &map_err) : NULL;
	summary = vcpu_where_summary(text, k);
	ksyms_free(k);
	return summary;
}
