/* SPDX-License-Identifier: MIT */
/*
 * Topology -> QEMU argv. Device ids in QEMU are the topology ids, so QMP
 * users (device_del, cxl-inject-*) can name what the topology names.
 */
#include "qemu/acpi_numa.h"
#include "qemu/argv.h"
#include "qemu/cdat.h"
#include "common/error.h"
#include "qemu/fw_table.h"
#include "common/paths.h"
#include "qemu/pci_numbers.h"
#include "qemu/qemu_binary.h"

#include <math.h>
#include <string.h>

char *qemu_qmp_socket(const char *rundir, const struct cb_host *h)
{
	return g_strdup_printf("%s/qmp-%s.sock", rundir, h->id);
}

char *qemu_agent_socket(const char *rundir, const struct cb_host *h)
{
	return g_strdup_printf("%s/agent-%s.sock", rundir, h->id);
}

char *qemu_fm_qmp_socket(const char *rundir, const struct cb_host *h)
{
	return g_strdup_printf("%s/fm-qmp-%s.sock", rundir, h->id);
}

char *qemu_fm_agent_socket(const char *rundir, const struct cb_host *h)
{
	return g_strdup_printf("%s/fm-agent-%s.sock", rundir, h->id);
}

bool qemu_host_has_fm(const struct cb_topology *t, const struct cb_host *h)
{
	struct cb_pool *p;

	cb_foreach(t->pools, struct cb_pool, p)
		if (topology_pool_lends_to(p, h))
			return true;
	return false;
}

char *qemu_console_log(const char *rundir, const struct cb_host *h)
{
	return g_strdup_printf("%s/console-%s.log", rundir, h->id);
}

char *qemu_pidfile(const char *rundir, const struct cb_host *h)
{
	return g_strdup_printf("%s/qemu-%s.pid", rundir, h->id);
}

char *qemu_cdat_file(const char *rundir, const struct cb_device *d)
{
	return g_strdup_printf("%s/cdat-%s.bin", rundir, d->id);
}

char *qemu_switch_cdat_file(const char *rundir, const struct cb_switch *sw)
{
	return g_strdup_printf("%s/cdat-%s.bin", rundir, sw->id);
}

char *qemu_srat_file(const char *rundir, const struct cb_host *h)
{
	return g_strdup_printf("%s/srat-%s.bin", rundir, h->id);
}

char *qemu_hmat_file(const char *rundir, const struct cb_host *h)
{
	return g_strdup_printf("%s/hmat-%s.bin", rundir, h->id);
}

static int bridge_bus(const struct cb_bridge *b, void *data)
{
	return qemu_pci_bus(data, b);
}

/* A host's SRAT and HMAT: its proximity domains and their figures. */
static bool write_acpi_tables(const struct cb_host *h, const char *rundir,
			      const struct table_skew *skew, GError **error)
{
	struct qemu_pci_numbers n = { 0 };
	g_autoptr(numa_layout) l = NULL;
	g_autoptr(GBytes) srat = NULL, hmat = NULL;
	g_autofree char *srat_path = qemu_srat_file(rundir, h);
	g_autofree char *hmat_path = qemu_hmat_file(rundir, h);
	g_autofree char *what = g_strdup_printf("SRAT/HMAT for %s", h->id);
	bool ok;

	if (!qemu_pci_numbers_init(&n, h, error))
		return false;
	l = numa_layout_new(h, bridge_bus, &n);
	srat = acpi_srat_build(l);
	hmat = acpi_hmat_build(l, skew);
	ok = fw_table_write(srat, what, srat_path, error) &&
	     fw_table_write(hmat, what, hmat_path, error);
	qemu_pci_numbers_clear(&n);
	return ok;
}

bool qemu_write_guest_tables(const struct cb_topology *t, const struct cb_host *h,
			     const char *rundir, GError **error)
{
	struct table_skew skew;
	struct cb_device *d;
	struct cb_switch *sw;
	struct cb_host *o;

	if (!table_skew_parse(g_getenv(TABLE_SKEW_ENV), &skew, error))
		return false;
	cb_foreach(t->devices, struct cb_device, d) {
		g_autofree char *path = qemu_cdat_file(rundir, d);

		if ((!h || d->host == h) &&
		    !cdat_write(d, path, skew.cdat_ns, error))
			return false;
	}
	cb_foreach(t->switches, struct cb_switch, sw) {
		g_autofree char *path = qemu_switch_cdat_file(rundir, sw);

		if ((!h || sw->host == h) && !cdat_write_switch(sw, path, error))
			return false;
	}
	cb_foreach(t->hosts, struct cb_host, o)
		if ((!h || o == h) && !write_acpi_tables(o, rundir, &skew, error))
			return false;
	return true;
}

char *qemu_pool_file(const char *rundir, const struct cb_pool *p)
{
	if (p->file)
		return g_strdup(p->file);
	return g_strdup_printf("%s/pool-%s.img", rundir, p->id);
}

char *qemu_memdev_id(const struct cb_device *d)
{
	return g_strdup_printf("%s-mem", d->id);
}

static void add(GPtrArray *a, const char *s)
{
	g_ptr_array_add(a, g_strdup(s));
}

static void addf(GPtrArray *a, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void addf(GPtrArray *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	g_ptr_array_add(a, g_strdup_vprintf(fmt, ap));
	va_end(ap);
}

/* The link an LD bound on one of @h's root ports will have (its pool's). */
static const struct cb_link *ld_link_of(const struct cb_topology *t,
					const struct cb_host *h)
{
	struct cb_pool *p;

	cb_foreach(t->pools, struct cb_pool, p)
		if (topology_pool_lends_to(p, h))
			return &p->ld_link;
	return NULL;
}

/* The fabric manager's monitor and agent port (argv.h). */
static void add_fm_channels(GPtrArray *a, const struct cb_topology *t,
			    const struct cb_host *h, const char *rundir)
{
	g_autofree char *qmp = qemu_fm_qmp_socket(rundir, h);
	g_autofree char *agent = qemu_fm_agent_socket(rundir, h);

	if (!qemu_host_has_fm(t, h))
		return;
	add(a, "-chardev");
	addf(a, "socket,id=fmqmp0,path=%s,server=on,wait=off", qmp);
	add(a, "-mon");
	add(a, "chardev=fmqmp0,mode=control");
	add(a, "-chardev");
	addf(a, "socket,id=fmagent0,path=%s,server=on,wait=off", agent);
	add(a, "-device");
	add(a, "virtserialport,bus=vser0.0,chardev=fmagent0,name=org.cxlbed.fm");
}

/* QEMU's PCIELinkSpeed names: 2_5, 5, 8, 16, 32, 64. */
static const char *speed_name(double gts)
{
	if (gts < 3)
		return "2_5";
	if (gts < 6)
		return "5";
	if (gts < 10)
		return "8";
	if (gts < 20)
		return "16";
	if (gts < 40)
		return "32";
	return "64";
}

const char *qemu_speed_name(double gts)
{
	return speed_name(gts);
}

/* Sizes in QEMU's notation: whole M or G. */
static char *size_str(uint64_t bytes)
{
	if (bytes % CB_GIB == 0)
		return g_strdup_printf("%lluG", (unsigned long long)(bytes / CB_GIB));
	return g_strdup_printf("%lluM", (unsigned long long)(bytes / CB_MIB));
}

static void add_device(GPtrArray *a, const struct cb_device *d,
		       const char *rundir)
{
	g_autofree char *memid = qemu_memdev_id(d);
	g_autofree char *size = size_str(d->size);
	g_autofree char *cdat = qemu_cdat_file(rundir, d);
	g_autofree char *lsa = NULL;

	add(a, "-object");
	if (d->pool) {
		g_autofree char *file = qemu_pool_file(rundir, d->pool);

		addf(a, "memory-backend-file,id=%s,share=on,mem-path=%s,"
		     "offset=%llu,size=%s", memid, file,
		     (unsigned long long)d->pool_offset, size);
	} else {
		addf(a, "memory-backend-ram,id=%s,share=on,size=%s", memid,
		     size);
	}
	if (d->persistent) {
		/* The label storage area ndctl keeps namespace labels in. */
		lsa = g_strdup_printf("%s-lsa", d->id);
		add(a, "-object");
		addf(a, "memory-backend-ram,id=%s,share=on,size=1M", lsa);
	}
	add(a, "-device");
	addf(a, "cxl-type3,bus=%s,%s=%s%s%s,id=%s,sn=0x%llx,cdat=%s,"
	     "x-speed=%s,x-width=%d", d->port->id,
	     d->persistent ? "persistent-memdev" : "volatile-memdev", memid,
	     lsa ? ",lsa=" : "", lsa ? lsa : "", d->id,
	     (unsigned long long)d->serial, cdat, speed_name(d->link.speed_gts),
	     d->link.width);
}

static void add_port(GPtrArray *a, const struct cb_port *p,
		     const struct qemu_pci_numbers *n, const char *rundir);

/* A switch gets its own CDAT (its latency and bandwidth), written by the run. */
static void add_switch(GPtrArray *a, const struct cb_switch *sw,
		       const struct qemu_pci_numbers *n, const char *rundir)
{
	g_autofree char *cdat = qemu_switch_cdat_file(rundir, sw);

	add(a, "-device");
	addf(a, "cxl-upstream,bus=%s,id=%s,x-speed=%s,x-width=%d,cdat=%s",
	     sw->upstream->id, sw->id, speed_name(sw->link.speed_gts),
	     sw->link.width, cdat);
	for (int i = 0; i < sw->nports; i++) {
		const struct cb_port *p = sw->ports[i];

		add(a, "-device");
		addf(a, "cxl-downstream,port=%d,bus=%s,id=%s,chassis=0,"
		     "slot=%d,hotplug=%s", p->number, sw->id, p->id,
		     qemu_pci_slot(n, p), p->hotplug ? "on" : "off");
	}
	for (int i = 0; i < sw->nports; i++)
		add_port(a, sw->ports[i], n, rundir);
}

/* What hangs below a port, depth first so buses exist before use. */
static void add_port(GPtrArray *a, const struct cb_port *p,
		     const struct qemu_pci_numbers *n, const char *rundir)
{
	if (p->child_kind == CB_NODE_SWITCH)
		add_switch(a, p->child.sw, n, rundir);
	else if (p->child_kind == CB_NODE_DEVICE)
		add_device(a, p->child.dev, rundir);
}

static void add_windows(GPtrArray *a, const struct cb_host *h)
{
	GString *m = g_string_new(NULL);
	struct cb_window *w;

	cb_foreach(h->windows, struct cb_window, w) {
		struct cb_bridge *b;
		g_autofree char *size = size_str(w->size);

		cb_foreach(w->bridges, struct cb_bridge, b)
			g_string_append_printf(m, "%scxl-fmw.%d.targets.%u=%s",
					       m->len ? "," : "", w->index,
					       b_i_, b->id);
		g_string_append_printf(m, ",cxl-fmw.%d.size=%s", w->index,
				       size);
		if (w->granularity % 1024)
			g_string_append_printf(m, ",cxl-fmw.%d.interleave-"
					       "granularity=%u", w->index,
					       w->granularity);
		else
			g_string_append_printf(m, ",cxl-fmw.%d.interleave-"
					       "granularity=%uk", w->index,
					       w->granularity / 1024);
	}
	if (m->len) {
		add(a, "-M");
		add(a, m->str);
	}
	g_string_free(m, TRUE);
}

GPtrArray *qemu_argv_build(const struct cb_topology *t,
			   const struct cb_host *h, const struct qemu_opts *o,
			   GError **error)
{
	GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
	const char *rundir = o->rundir ? o->rundir : ".";
	g_autofree char *qmp = qemu_qmp_socket(rundir, h);
	g_autofree char *agent = qemu_agent_socket(rundir, h);
	g_autofree char *console = qemu_console_log(rundir, h);
	g_autofree char *pid = qemu_pidfile(rundir, h);
	g_autofree char *srat = qemu_srat_file(rundir, h);
	g_autofree char *hmat = qemu_hmat_file(rundir, h);
	struct qemu_pci_numbers n = { 0 };
	struct cb_bridge *b;
	bool guest_clock = o->plugin && o->guest_clock;

	if (strpbrk(rundir, ",:")) {
		/*
		 * QEMU option values cannot carry an unescaped comma, and
		 * -acpitable file= splits its value at colons.
		 */
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_INPUT,
			    "run directory '%s' has a ',' or ':' which QEMU "
			    "options cannot take; pick another directory", rundir);
		g_ptr_array_unref(a);
		return NULL;
	}
	if (!qemu_pci_numbers_init(&n, h, error)) {
		g_ptr_array_unref(a);
		return NULL;
	}
	add(a, o->qemu ? o->qemu : CXLBED_DEFAULT_QEMU);
	add(a, "-name");
	addf(a, "cxlbed-%s,process=cxlbed-%s", h->id, h->id);
	add(a, "-machine");
	add(a, "q35,cxl=on");
	add(a, "-accel");
	add(a, "tcg");
	/* -hypervisor: else the kernel refuses to commit regions in a VM. */
	add(a, "-cpu");
	/*
	 * -erms,-fsrm: with them the guest's memset/memcpy use "rep movsb",
	 * which TCG runs byte by byte through CXL's MMIO path; first-touch
	 * of CXL pages was ~4x slower (measured by the guest image work).
	 */
	/*
	 * -tsc with the guest clock: the guest TSC is the host's (TCG), and a
	 * kernel that has one takes sched_clock from it, so task run times
	 * (the scheduler, NUMA-balancing scan periods) would follow host
	 * time. Without it sched_clock counts ticks of the modeled clock.
	 */
	add(a, guest_clock ? "max,-hypervisor,-erms,-fsrm,-tsc" :
			     "max,-hypervisor,-erms,-fsrm");
	add(a, "-nodefaults");
	add(a, "-no-user-config");
	add(a, "-display");
	add(a, "none");
	add(a, "-nic");
	add(a, "none");
	add(a, "-no-reboot");
	add(a, "-smp");
	addf(a, "%d", h->cpus);
	add(a, "-m");
	addf(a, "%lluM", (unsigned long long)(h->memory / CB_MIB));
	/*
	 * No -numa: QEMU would write its own SRAT and HMAT, which cannot give
	 * a window a proximity domain of its own (acpi_numa.h).
	 */
	add(a, "-acpitable");
	addf(a, "file=%s", srat);
	add(a, "-acpitable");
	addf(a, "file=%s", hmat);
	add(a, "-kernel");
	add(a, o->kernel ? o->kernel : CXLBED_GUEST_KERNEL);
	add(a, "-initrd");
	add(a, o->initrd ? o->initrd : CXLBED_DEFAULT_INITRD);
	add(a, "-append");
	addf(a, "console=ttyS0 loglevel=4 memhp_default_state=online_movable "
	     "panic=-1 " CXLBED_BOOT_APPEND " cxlbed.host=%s%s%s%s%s", h->id,
	     guest_clock ? " " : "", guest_clock ? CXLBED_CLOCK_APPEND : "",
	     o->append_extra && *o->append_extra ? " " : "",
	     o->append_extra ? o->append_extra : "");
	if (o->interactive) {
		add(a, "-serial");
		add(a, "mon:stdio");
	} else {
		add(a, "-chardev");
		addf(a, "file,id=con0,path=%s", console);
		add(a, "-serial");
		add(a, "chardev:con0");
	}
	add(a, "-chardev");
	addf(a, "socket,id=qmp0,path=%s,server=on,wait=off", qmp);
	add(a, "-mon");
	add(a, "chardev=qmp0,mode=control");
	add(a, "-device");
	add(a, "virtio-serial-pci,id=vser0");
	add(a, "-chardev");
	addf(a, "socket,id=agent0,path=%s,server=on,wait=off", agent);
	add(a, "-device");
	add(a, "virtserialport,bus=vser0.0,chardev=agent0,"
	    "name=org.cxlbed.agent");
	add_fm_channels(a, t, h, rundir);
	add(a, "-pidfile");
	add(a, pid);
	if (o->plugin) {
		add(a, "-plugin");
		add(a, o->plugin);
	}
	if (guest_clock) {
		/* on pcie.0: left to itself it lands behind a CXL host bridge */
		add(a, "-chardev");
		addf(a, "socket,id=cxlbed-clock,fd=%d", CXLBED_CLOCK_QEMU_FD);
		add(a, "-device");
		addf(a, "ivshmem-doorbell,id=cxlbed-clock,chardev=cxlbed-clock,"
		     "vectors=%d,ioeventfd=off,bus=pcie.0", h->cpus);
	}
	cb_foreach(h->bridges, struct cb_bridge, b) {
		struct cb_port *p;

		add(a, "-device");
		addf(a, "pxb-cxl,bus_nr=%d,bus=pcie.0,id=%s,"
		     "hdm_for_passthrough=on", qemu_pci_bus(&n, b), b->id);
		cb_foreach(b->rootports, struct cb_port, p) {
			const struct cb_link *l = NULL;

			if (p->child_kind == CB_NODE_SWITCH)
				l = &p->child.sw->link;
			else if (p->child_kind == CB_NODE_DEVICE)
				l = &p->child.dev->link;
			else if (topology_port_takes_ld(p))
				l = ld_link_of(t, h);
			add(a, "-device");
			addf(a, "cxl-rp,port=%d,bus=%s,id=%s,chassis=0,slot=%d,"
			     "hotplug=%s,x-speed=%s,x-width=%d", p->number,
			     b->id, p->id, qemu_pci_slot(&n, p),
			     p->hotplug ? "on" : "off",
			     speed_name(l ? l->speed_gts : 32),
			     l ? l->width : 16);
		}
		cb_foreach(b->rootports, struct cb_port, p)
			add_port(a, p, &n, rundir);
	}
	add_windows(a, h);
	g_ptr_array_add(a, NULL);
	qemu_pci_numbers_clear(&n);
	return a;
}

void qemu_opts_for_run(struct qemu_opts *o, const char *rundir)
{
	*o = (struct qemu_opts){
		.qemu = qemu_binary_path(),
		.kernel = cxlbed_path(CXLBED_GUEST_KERNEL),
		.initrd = cxlbed_path(CXLBED_DEFAULT_INITRD),
		.rundir = rundir,
		/* for debugging a guest: e.g. CXLBED_APPEND=loglevel=7 */
		.append_extra = g_getenv("CXLBED_APPEND"),
	};
}

static bool needs_quote(const char *s)
{
	if (!*s)
		return true;
	for (const char *p = s; *p; p++)
		if (!g_ascii_isalnum(*p) && !strchr("-_./=,:+@%", *p))
			return true;
	return false;
}

char *qemu_argv_to_shell(GPtrArray *argv)
{
	GString *out = g_string_new(NULL);

	for (guint i = 0; i < argv->len; i++) {
		const char *arg = g_ptr_array_index(argv, i);
		g_autofree char *q = NULL;

		if (!arg)
			break;
		q = needs_quote(arg) ? g_shell_quote(arg) : g_strdup(arg);
		/* A new line before each option, so groups read as one line. */
		if (i && arg[0] == '-')
			g_string_append(out, " \\\n    ");
		else if (i)
			g_string_append_c(out, ' ');
		g_string_append(out, q);
	}
	g_string_append_c(out, '\n');
	return g_string_free(out, FALSE);
}
