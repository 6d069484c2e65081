/* SPDX-License-Identifier: MIT */
/* A topology host as a libvirt domain (see libvirt.h). */
#include "export/libvirt.h"
#include "qemu/argv.h"
#include "common/error.h"
#include "results/svg.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

char *libvirt_domain_name(const struct cb_topology *t, const struct cb_host *h)
{
	return g_strdup_printf("cxlbed-%s-%s", t->name, h->id);
}

char *libvirt_region_param(const struct cb_region *reg)
{
	GString *s = g_string_new(NULL);
	const struct cb_device *d;

	g_string_append_printf(s, "cxlbed.region=%s,window=%d,granularity=%u,mode=%s,serials=",
			       reg->id, reg->window->index, reg->granularity,
			       reg->mode == CB_REGION_RAM ? "ram" : "devdax");
	cb_foreach(reg->devices, const struct cb_device, d)
		g_string_append_printf(s, "%s0x%llx", d_i_ ? "+" : "",
				       (unsigned long long)d->serial);
	return g_string_free(s, FALSE);
}

bool libvirt_write_files(const struct cb_topology *t, const struct cb_host *h,
			 const char *dir, GError **error)
{
	const struct cb_device *d;

	if (g_mkdir_with_parents(dir, 0755) < 0) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN, "%s: %s", dir,
			    g_strerror(errno));
		return false;
	}
	/* A pool's file, sized; kept if it exists (it holds the pool's data). */
	cb_foreach(h->devices, const struct cb_device, d) {
		g_autofree char *path = d->pool ? qemu_pool_file(dir, d->pool) : NULL;
		int fd;

		if (!path || g_file_test(path, G_FILE_TEST_EXISTS))
			continue;
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0660);
		if (fd < 0 || ftruncate(fd, (off_t)d->pool->size) < 0) {
			g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN, "pool %s: %s: %s",
				    d->pool->id, path, g_strerror(errno));
			if (fd >= 0)
				close(fd);
			return false;
		}
		close(fd);
	}
	return qemu_write_guest_tables(t, h, dir, error);
}

static void attr_text(GString *s, const char *text)
{
	g_autofree char *e = svg_escape(text);

	g_string_append(s, e);
}

/*
 * What libvirt itself provides, left out of <qemu:commandline>: options
 * with no value, and options whose value libvirt's elements carry.
 */
static const char *const flags[] = { "-nodefaults", "-no-user-config", "-no-reboot", NULL };
static const char *const by_libvirt[] = {
	"-name", "-accel", "-cpu", "-display", "-nic", "-smp", "-m", "-kernel",
	"-initrd", "-append", "-serial", "-chardev", "-mon", "-pidfile", NULL,
};

static bool in(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return true;
	return false;
}

/* Pass @opt @val through, or leave it to libvirt (true: passed). */
static bool pass_through(const struct cb_host *h, const char *opt, const char *val,
			 GString *cl)
{
	if (in(by_libvirt, opt))
		return false;
	/* The agent's port and its bus: libvirt's <channel>. */
	if (!strcmp(opt, "-device") && (g_str_has_prefix(val, "virtio-serial-pci,") ||
					g_str_has_prefix(val, "virtserialport,")))
		return false;
	g_string_append(cl, "    <qemu:arg value=\"");
	attr_text(cl, opt);
	g_string_append(cl, "\"/>\n    <qemu:arg value=\"");
	/* The machine type is libvirt's; its CXL and HMAT switches are ours. */
	if (!strcmp(opt, "-machine") && strchr(val, ','))
		attr_text(cl, strchr(val, ',') + 1);
	else
		attr_text(cl, val);
	g_string_append(cl, "\"/>\n");
	return true;
}

/* -cpu max,-hypervisor,-erms: mode maximum with those features disabled. */
static void cpu_element(GString *s, const struct cb_host *h, const char *cpu)
{
	g_auto(GStrv) parts = g_strsplit(cpu ? cpu : "max", ",", -1);

	g_string_append(s, "  <cpu mode='maximum' check='none' migratable='off'>\n");
	for (int i = 1; parts[i]; i++) {
		const char *f = parts[i] + (parts[i][0] == '-' || parts[i][0] == '+');

		g_string_append(s, "    <feature policy='");
		g_string_append(s, parts[i][0] == '-' ? "disable" : "require");
		g_string_append(s, "' name='");
		attr_text(s, f);
		g_string_append(s, "'/>\n");
	}
	/*
	 * No <numa> cells: libvirt would pass -numa and QEMU would build its
	 * own SRAT beside the one cxlbed gives it (-acpitable, in
	 * qemu:commandline), undoing each region's proximity domain.
	 */
	g_string_append(s, "  </cpu>\n");
}

static char *emulator_path(const char *qemu)
{
	if (g_path_is_absolute(qemu))
		return g_strdup(qemu);
	return g_find_program_in_path(qemu);
}

char *libvirt_domain_xml(const struct cb_topology *t, const struct cb_host *h,
			 const char *dir, GError **error)
{
	struct qemu_opts o;
	g_autoptr(GPtrArray) argv = NULL;
	g_autoptr(GString) cl = g_string_new(NULL);
	g_autoptr(GString) append = g_string_new(NULL);
	g_autofree char *name = libvirt_domain_name(t, h);
	g_autofree char *emulator = NULL, *kernel = NULL, *initrd = NULL;
	const char *cpu = NULL;
	const struct cb_region *reg;
	GString *s;

	qemu_opts_for_run(&o, dir);
	/*
	 * libvirt runs QEMU as its own user, who cannot reach cxlbed's build
	 * in the cache under the user's home: the QEMU on PATH (Debian's),
	 * unless --qemu named one (docs/libvirt.md).
	 */
	o.qemu = g_getenv("CXLBED_QEMU") ? g_getenv("CXLBED_QEMU") : NULL;
	argv = qemu_argv_build(t, h, &o, error);
	if (!argv)
		return NULL;
	emulator = emulator_path(g_ptr_array_index(argv, 0));
	if (!emulator) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT,
			    "QEMU '%s' not found in PATH: install qemu-system-x86 "
			    "(bookworm-backports) or set CXLBED_QEMU to its path",
			    (char *)g_ptr_array_index(argv, 0));
		return NULL;
	}
	for (guint i = 1; i < argv->len && g_ptr_array_index(argv, i); i++) {
		const char *opt = g_ptr_array_index(argv, i);
		const char *val = i + 1 < argv->len ? g_ptr_array_index(argv, i + 1) : NULL;

		if (in(flags, opt))
			continue;
		if (!val)
			break;
		if (!strcmp(opt, "-cpu"))
			cpu = val;
		else if (!strcmp(opt, "-kernel"))
			kernel = g_canonicalize_filename(val, NULL);
		else if (!strcmp(opt, "-initrd"))
			initrd = g_canonicalize_filename(val, NULL);
		else if (!strcmp(opt, "-append"))
			g_string_append(append, val);
		pass_through(h, opt, val, cl);
		i++;
	}
	cb_foreach(h->regions, const struct cb_region, reg) {
		g_autofree char *p = libvirt_region_param(reg);

		g_string_append_printf(append, " %s", p);
	}

	s = g_string_new("<domain type='qemu' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>\n  <name>");
	attr_text(s, name);
	/* Said here, not in a comment: an XML comment may not hold a path's "--". */
	g_string_append(s, "</name>\n  <description>");
	{
		g_autofree char *what = g_strdup_printf(
			"cxlbed: host %s of topology %s (%s%s%s), exported from %s: the machine "
			"cxlbed run boots, without the timing model. The CXL fabric is in "
			"qemu:commandline as cxlbed plan prints it; the guest brings its regions "
			"online at boot (docs/libvirt.md).", h->id, t->name,
			t->description && *t->description ? t->description : "no description",
			"", "", t->file);

		attr_text(s, what);
	}
	g_string_append_printf(s, "</description>\n  <memory unit='MiB'>%llu</memory>\n"
			       "  <vcpu>%d</vcpu>\n  <os>\n"
			       "    <type arch='x86_64' machine='q35'>hvm</type>\n    <kernel>",
			       (unsigned long long)(h->memory / CB_MIB), h->cpus);
	attr_text(s, kernel);
	g_string_append(s, "</kernel>\n    <initrd>");
	attr_text(s, initrd);
	g_string_append(s, "</initrd>\n    <cmdline>");
	attr_text(s, append->str);
	g_string_append(s, "</cmdline>\n  </os>\n  <features>\n    <acpi/>\n  </features>\n");
	cpu_element(s, h, cpu);
	g_string_append(s, "  <on_poweroff>destroy</on_poweroff>\n  <on_reboot>destroy</on_reboot>\n"
			   "  <on_crash>destroy</on_crash>\n  <devices>\n    <emulator>");
	attr_text(s, emulator);
	g_string_append(s, "</emulator>\n"
			   "    <serial type='pty'>\n      <target port='0'/>\n    </serial>\n"
			   "    <console type='pty'>\n      <target type='serial' port='0'/>\n    </console>\n"
			   "    <channel type='unix'>\n"
			   "      <target type='virtio' name='org.cxlbed.agent'/>\n    </channel>\n"
			   /*
			    * On the root bus at a fixed slot: QEMU places our
			    * -device options before libvirt's JSON ones, so a
			    * root port libvirt would add at slot 1 finds the
			    * first host bridge there.
			    */
			   "    <controller type='virtio-serial' index='0'>\n"
			   "      <address type='pci' domain='0x0000' bus='0x00' slot='0x1e' function='0x0'/>\n"
			   "    </controller>\n"
			   "    <controller type='usb' model='none'/>\n"
			   "    <memballoon model='none'/>\n  </devices>\n"
			   "  <qemu:commandline>\n");
	g_string_append(s, cl->str);
	g_string_append(s, "  </qemu:commandline>\n</domain>\n");
	return g_string_free(s, FALSE);
}
