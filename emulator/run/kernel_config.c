/* SPDX-License-Identifier: MIT */
/* What a guest kernel's .config must hold (kernel_config.h). */
#include "run/kernel_config.h"
#include "common/error.h"

#include <string.h>

struct kconfig {
	char *path;
	GHashTable *values;	/* name (no CONFIG_) -> struct kopt * */
};

struct kopt {
	char *value;
	int line;
};

static void kopt_free(gpointer p)
{
	struct kopt *o = p;

	g_free(o->value);
	g_free(o);
}

static void set(struct kconfig *k, const char *name, const char *value, int line)
{
	struct kopt *o = g_new0(struct kopt, 1);

	o->value = g_strdup(value);
	o->line = line;
	g_hash_table_replace(k->values, g_strdup(name), o);
}

struct kconfig *kconfig_parse(const char *path, const char *text)
{
	struct kconfig *k = g_new0(struct kconfig, 1);
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);

	k->path = g_strdup(path);
	k->values = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, kopt_free);
	for (int i = 0; lines[i]; i++) {
		char *l = g_strstrip(lines[i]), *eq;

		if (g_str_has_prefix(l, "# CONFIG_") && g_str_has_suffix(l, " is not set")) {
			g_autofree char *name = g_strndup(l + 9, strlen(l) - 9 - 11);

			set(k, name, "n", i + 1);
		} else if (g_str_has_prefix(l, "CONFIG_") && (eq = strchr(l, '='))) {
			g_autofree char *name = g_strndup(l + 7, eq - l - 7);
			g_autofree char *value = g_strdup(eq + 1);

			/* strings keep their quotes off */
			if (value[0] == '"' && strlen(value) >= 2 && g_str_has_suffix(value, "\""))
				value[strlen(value) - 1] = '\0', memmove(value, value + 1, strlen(value));
			set(k, name, value, i + 1);
		}
	}
	return k;
}

struct kconfig *kconfig_load(const char *path, GError **error)
{
	g_autofree char *text = NULL;

	if (!g_file_get_contents(path, &text, NULL, error))
		return NULL;
	return kconfig_parse(path, text);
}

void kconfig_free(struct kconfig *k)
{
	if (!k)
		return;
	g_free(k->path);
	g_hash_table_unref(k->values);
	g_free(k);
}

const char *kconfig_get(const struct kconfig *k, const char *name, int *line)
{
	const struct kopt *o = g_hash_table_lookup(k->values, name);

	if (line)
		*line = o ? o->line : 0;
	return o ? o->value : NULL;
}

bool kconfig_enabled(const struct kconfig *k, const char *name)
{
	const char *v = kconfig_get(k, name, NULL);

	return v && (!strcmp(v, "y") || !strcmp(v, "m"));
}

/*
 * What cxlbed needs: "y" where it must be built in (booleans, and what
 * runs before /init can load a module: the console, the agent's port),
 * "ym" where /init may load it as a module. Why, in a few words each.
 */
enum need { BUILT_IN, Y_OR_M, NOT_SET };
struct requirement {
	const char *name;
	enum need need;
	const char *why;
};

static const struct requirement needs[] = {
	{ "MODULES", BUILT_IN, "/init loads the CXL and DAX modules and the guest clock module" },
	{ "MODULE_SIG_FORCE", NOT_SET, "the guest clock module cxlbed builds is not signed, and "
	  "this kernel would refuse it" },
	{ "BLK_DEV_INITRD", BUILT_IN, "the guest image is an initramfs" },
	{ "RD_GZIP", BUILT_IN, "the initramfs is gzip-compressed" },
	{ "DEVTMPFS", BUILT_IN, "/init mounts devtmpfs on /dev (no udev)" },
	{ "SERIAL_8250_CONSOLE", BUILT_IN, "the boot log goes to console-HOST.log on ttyS0" },
	{ "VIRTIO_PCI", BUILT_IN, "the agent's virtio-serial port is a PCI device, "
	  "needed before any module loads" },
	{ "VIRTIO_CONSOLE", BUILT_IN, "the agent talks to the host over virtio-serial "
	  "(org.cxlbed.agent)" },
	{ "PCIEPORTBUS", BUILT_IN, "CXL root and switch ports are PCIe ports" },
	{ "ACPI_NUMA", BUILT_IN, "each region's proximity domain comes from cxlbed's SRAT" },
	{ "ACPI_HMAT", BUILT_IN, "the numa: and tiers: checks read what the kernel made of "
	  "cxlbed's HMAT" },
	{ "HMEM_REPORTING", BUILT_IN, "the guest's access0 figures of nodes and regions "
	  "(the coordinates: check)" },
	{ "NUMA", BUILT_IN, "every RAM region becomes a NUMA node" },
	{ "MEMORY_HOTPLUG", BUILT_IN, "a RAM region is onlined as hot-plugged memory" },
	{ "MEMORY_HOTREMOVE", BUILT_IN, "pool capacity is released again (unbind, give-back)" },
	{ "MIGRATION", BUILT_IN, "pages move off a released LD and between tiers" },
	{ "CXL_BUS", Y_OR_M, "the CXL core: memdevs, ports, decoders" },
	{ "CXL_PCI", Y_OR_M, "the Type-3 devices' PCI driver (cxl_pci)" },
	{ "CXL_ACPI", Y_OR_M, "the CXL root and its fixed memory windows from CEDT (cxl_acpi)" },
	{ "CXL_MEM", Y_OR_M, "the memdev driver that attaches endpoints (cxl_mem)" },
	{ "CXL_PORT", Y_OR_M, "switch and host-bridge ports (cxl_port)" },
	{ "CXL_REGION", BUILT_IN, "cxlbed creates every region through the kernel's CXL "
	  "region driver (create_ram_region)" },
	{ "DEV_DAX", Y_OR_M, "a region's memory is a DAX device first (device_dax)" },
	{ "DEV_DAX_CXL", Y_OR_M, "the DAX device of a CXL region (dax_cxl)" },
	{ "DEV_DAX_KMEM", Y_OR_M, "kmem onlines a RAM region's DAX device as a NUMA node" },
};

static const struct requirement pmem_needs[] = {
	{ "CXL_PMEM", Y_OR_M, "persistent devices are bridged to nvdimm (cxl_pmem)" },
	{ "LIBNVDIMM", Y_OR_M, "persistent regions go through the nvdimm bus" },
	{ "BLK_DEV_PMEM", Y_OR_M, "the pmem driver of a persistent region (nd_pmem)" },
	{ "DEV_DAX_PMEM", Y_OR_M, "a persistent region's DAX device (dax_pmem)" },
};

static void check(const struct kconfig *k, const struct requirement *r, GString *out)
{
	int line;
	const char *v = kconfig_get(k, r->name, &line);
	bool ok;

	switch (r->need) {
	case BUILT_IN:
		ok = v && !strcmp(v, "y");
		break;
	case Y_OR_M:
		ok = kconfig_enabled(k, r->name);
		break;
	default:
		ok = !kconfig_enabled(k, r->name);
		break;
	}
	if (ok)
		return;
	if (out->len)
		g_string_append(out, "\n");
	if (r->need == NOT_SET)
		g_string_append_printf(out, "CONFIG_%s=%s (%s:%d) must not be set: %s",
				       r->name, v, k->path, line, r->why);
	else if (!v)
		g_string_append_printf(out, "CONFIG_%s is missing from %s (needed %s): %s",
				       r->name, k->path, r->need == BUILT_IN ? "=y" : "=y or =m",
				       r->why);
	else if (!strcmp(v, "n"))
		g_string_append_printf(out, "CONFIG_%s is not set (%s:%d; needed %s): %s",
				       r->name, k->path, line,
				       r->need == BUILT_IN ? "=y" : "=y or =m", r->why);
	else
		g_string_append_printf(out, "CONFIG_%s=%s (%s:%d; needed =y, built in): %s",
				       r->name, v, k->path, line, r->why);
}

char *kconfig_missing(const struct kconfig *k, bool persistent)
{
	GString *out = g_string_new(NULL);

	for (guint i = 0; i < G_N_ELEMENTS(needs); i++)
		check(k, &needs[i], out);
	for (guint i = 0; persistent && i < G_N_ELEMENTS(pmem_needs); i++)
		check(k, &pmem_needs[i], out);
	if (!out->len) {
		g_string_free(out, TRUE);
		return NULL;
	}
	return g_string_free(out, FALSE);
}
