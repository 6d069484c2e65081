/* SPDX-License-Identifier: MIT */
/*
 * QEMU command lines built from the shipped topologies: the options every
 * host needs, each device with its bus, serial and CDAT file, the CFMW,
 * pools backed by one shared file. When a guest kernel and QEMU are at
 * hand, QEMU itself must accept the line (started paused, then stopped).
 */
#include "tap.h"
#include "qemu/argv.h"
#include "qemu/cdat.h"
#include "common/error.h"
#include "topology/topology.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static struct cb_topology *load(const char *name)
{
	g_autofree char *path = g_strdup_printf(SRCDIR "/topologies/%s.topo",
						name);
	g_autoptr(GError) err = NULL;
	struct cb_topology *t = topology_load(path, &err);

	if (!t)
		diag("%s", err->message);
	return t;
}

static bool has(GPtrArray *a, const char *opt, const char *val)
{
	for (guint i = 0; i + 1 < a->len; i++) {
		const char *o = g_ptr_array_index(a, i);
		const char *v = g_ptr_array_index(a, i + 1);

		if (o && v && !strcmp(o, opt) && !strcmp(v, val))
			return true;
	}
	return false;
}

/* An option whose value contains every one of the NULL-terminated parts. */
static const char *find(GPtrArray *a, const char *opt, ...)
{
	for (guint i = 0; i + 1 < a->len; i++) {
		const char *o = g_ptr_array_index(a, i);
		const char *v = g_ptr_array_index(a, i + 1);
		bool all = true;
		va_list ap;
		const char *part;

		if (!o || !v || strcmp(o, opt))
			continue;
		va_start(ap, opt);
		while ((part = va_arg(ap, const char *)))
			if (!strstr(v, part))
				all = false;
		va_end(ap);
		if (all)
			return v;
	}
	return NULL;
}

static void test_default(void)
{
	g_autoptr(cb_topology) t = load("default");
	struct qemu_opts o = { .rundir = "/run/x", .append_extra = "quiet",
			       .plugin = "file=libtiming.so,ns=1" };
	g_autoptr(GPtrArray) a = NULL;
	g_autoptr(GError) err = NULL;
	struct cb_device *d;
	int devs = 0;

	a = qemu_argv_build(t, g_ptr_array_index(t->hosts, 0), &o, &err);
	ok(a && g_ptr_array_index(a, a->len - 1) == NULL,
	   "default: argv built, NULL-terminated");
	is_str(g_ptr_array_index(a, 0), CXLBED_DEFAULT_QEMU,
	       "default QEMU binary");
	ok(has(a, "-machine", "q35,cxl=on") && has(a, "-accel", "tcg") &&
	   has(a, "-cpu", "max,-hypervisor,-erms,-fsrm") && has(a, "-smp", "2") &&
	   has(a, "-m", "2048M"),
	   "machine, TCG, -hypervisor, 2 vCPUs, 2 GiB");
	ok(has(a, "-kernel", CXLBED_GUEST_KERNEL) &&
	   has(a, "-initrd", CXLBED_DEFAULT_INITRD) &&
	   find(a, "-append", "console=ttyS0", "cxlbed.host=h0", " quiet",
		NULL) && find(a, "-append", " " CXLBED_BOOT_APPEND " ", NULL),
	   "kernel, initrd, command line with the host, the boot-time "
	   "parameters and extras");
	ok(has(a, "-pidfile", "/run/x/qemu-h0.pid") &&
	   find(a, "-chardev", "path=/run/x/qmp-h0.sock", "server=on", NULL) &&
	   find(a, "-chardev", "path=/run/x/agent-h0.sock", NULL) &&
	   find(a, "-chardev", "file,id=con0,path=/run/x/console-h0.log",
		NULL) && has(a, "-serial", "chardev:con0"),
	   "pidfile, QMP, agent and console paths in the run dir");
	ok(has(a, "-plugin", "file=libtiming.so,ns=1"), "plugin passed through");
	ok(!find(a, "-device", "ivshmem", NULL) &&
	   !find(a, "-append", "nokaslr", NULL),
	   "no guest clock device unless asked for");
	g_ptr_array_unref(a);
	o.guest_clock = true;
	a = qemu_argv_build(t, g_ptr_array_index(t->hosts, 0), &o, &err);
	ok(find(a, "-chardev", "socket,id=cxlbed-clock,fd=100", NULL) &&
	   find(a, "-device", "ivshmem-doorbell,id=cxlbed-clock,"
		"chardev=cxlbed-clock,vectors=2,", "bus=pcie.0", NULL) &&
	   find(a, "-append", " " CXLBED_CLOCK_APPEND, NULL),
	   "guest clock: doorbell on pcie.0 with a vector per vCPU, fd 100, "
	   "its kernel parameters");
	ok(find(a, "-device", "pxb-cxl,bus_nr=16,bus=pcie.0,id=hb0",
		"hdm_for_passthrough=on", NULL) &&
	   find(a, "-device", "cxl-rp,port=0,bus=hb0,id=rp0", NULL) &&
	   find(a, "-device", "cxl-upstream,bus=rp0,id=sw0", NULL) &&
	   find(a, "-device", "cxl-downstream,port=3,bus=sw0,id=sw0.p3", NULL),
	   "host bridge, root port, switch and its four ports");
	cb_foreach(t->devices, struct cb_device, d) {
		g_autofree char *bus = g_strdup_printf("bus=%s,", d->port->id);
		g_autofree char *id = g_strdup_printf("id=%s,", d->id);
		g_autofree char *sn = g_strdup_printf("sn=0x%llx,",
					(unsigned long long)d->serial);
		g_autofree char *cdat = g_strdup_printf("cdat=/run/x/cdat-%s.bin",
							d->id);

		if (find(a, "-device", "cxl-type3,", bus, id, sn, cdat, NULL))
			devs++;
	}
	is_int(devs, 4, "each device: cxl-type3 on its port, serial, CDAT file");
	ok(find(a, "-M", "cxl-fmw.0.targets.0=hb0", "cxl-fmw.0.size=4G",
		"cxl-fmw.0.interleave-granularity=4k", NULL) != NULL,
	   "CXL fixed memory window 0 on hb0, 4G, 4k");
	ok(find(a, "-machine", "q35,cxl=on", NULL) &&
	   !find(a, "-machine", "hmat", NULL) && !find(a, "-numa", "", NULL) &&
	   !find(a, "-object", "acpi-generic-port", NULL) &&
	   find(a, "-acpitable", "file=/run/x/srat-h0.bin", NULL) &&
	   find(a, "-acpitable", "file=/run/x/hmat-h0.bin", NULL),
	   "NUMA/HMAT: cxlbed's own SRAT and HMAT (-acpitable), no -numa");
	ok(find(a, "-device", "cxl-upstream,", "id=sw0,",
		"cdat=/run/x/cdat-sw0.bin", NULL) != NULL,
	   "the switch gets its own CDAT file (latency-ns, link bandwidth)");
	{
		g_autofree char *sh = qemu_argv_to_shell(a);

		ok(strstr(sh, "-append 'console=ttyS0") &&
		   strstr(sh, " \\\n    -smp 2"),
		   "shell form: quoted, one option per line");
	}
}

static void test_interactive(void)
{
	g_autoptr(cb_topology) t = load("direct");
	struct qemu_opts o = { .rundir = "/r", .interactive = true,
			       .kernel = "/k", .initrd = "/i", .qemu = "/q" };
	g_autoptr(GPtrArray) a = qemu_argv_build(t, g_ptr_array_index(t->hosts,
								      0),
						 &o, NULL);

	ok(has(a, "-serial", "mon:stdio") &&
	   !find(a, "-chardev", "con0", NULL) && has(a, "-kernel", "/k") &&
	   !strcmp(g_ptr_array_index(a, 0), "/q"),
	   "interactive: serial on stdio; paths from the options");
	ok(find(a, "-device", "cxl-type3,bus=rp0,", NULL) &&
	   !find(a, "-device", "cxl-upstream", NULL),
	   "direct: the device sits on the root port, no switch");
}

static void test_pool(void)
{
	g_autoptr(cb_topology) t = load("shared-pool");
	struct qemu_opts o = { .rundir = "/r" };
	const char *m0, *m1;
	g_autoptr(GPtrArray) a0 = qemu_argv_build(t, g_ptr_array_index(t->hosts,
								       0),
						  &o, NULL);
	g_autoptr(GPtrArray) a1 = qemu_argv_build(t, g_ptr_array_index(t->hosts,
								       1),
						  &o, NULL);

	m0 = find(a0, "-object", "memory-backend-file", "share=on", NULL);
	m1 = find(a1, "-object", "memory-backend-file", "share=on", NULL);
	ok(m0 && m1 && strstr(m0, "mem-path=/r/pool-p0.img,offset=0,") &&
	   strstr(m1, "mem-path=/r/pool-p0.img,offset=0,"),
	   "shared pool: both hosts back their device with one shared file");
	{
		struct qemu_opts bad = { .rundir = "/r,x" };
		g_autoptr(GError) err = NULL;
		GPtrArray *none = qemu_argv_build(t, g_ptr_array_index(t->hosts,
								       0),
						  &bad, &err);

		ok(!none && err && strstr(err->message, "','"),
		   "a run dir with a comma is refused (QEMU cannot take it)");
	}
	ok(find(a0, "-device", "cxl-downstream", "hotplug=on", NULL) &&
	   find(a1, "-pidfile", NULL) && has(a1, "-pidfile", "/r/qemu-h1.pid"),
	   "hot-pluggable switch ports; one pidfile per host");
}

/* QEMU must accept the whole line: start it paused, see it live, stop it. */
static void test_qemu_accepts(const char *name)
{
	const char *kernel = g_getenv("CXLBED_TEST_KERNEL");
	g_autofree char *qemu = g_find_program_in_path(CXLBED_DEFAULT_QEMU);
	g_autofree char *dir = NULL, *initrd = NULL;
	g_autoptr(cb_topology) t = load(name);
	struct cb_host *h;
	struct cb_pool *p;
	bool good = true;

	if (!kernel)
		kernel = SRCDIR "/" CXLBED_GUEST_KERNEL;
	if (!qemu || !g_file_test(kernel, G_FILE_TEST_EXISTS) || !t) {
		skip("no QEMU or guest kernel (set CXLBED_TEST_KERNEL)");
		return;
	}
	dir = g_dir_make_tmp("argv-XXXXXX", NULL);
	initrd = g_build_filename(dir, "initrd", NULL);
	g_file_set_contents(initrd, "x", 1, NULL);
	qemu_write_guest_tables(t, NULL, dir, NULL);
	cb_foreach(t->pools, struct cb_pool, p) {
		g_autofree char *f = qemu_pool_file(dir, p);
		FILE *fp = fopen(f, "w");

		if (fp) {
			ftruncate(fileno(fp), p->size);
			fclose(fp);
		}
	}
	cb_foreach(t->hosts, struct cb_host, h) {
		struct qemu_opts o = { .qemu = qemu, .kernel = kernel,
				       .initrd = initrd, .rundir = dir };
		g_autoptr(GPtrArray) a = qemu_argv_build(t, h, &o, NULL);
		g_autofree char *err = g_build_filename(dir, "stderr", NULL);
		GPid pid;
		int status, fd;

		/* Paused: nothing runs, but every device is realized. */
		g_ptr_array_insert(a, a->len - 1, g_strdup("-S"));
		fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (!g_spawn_async_with_fds(NULL, (char **)a->pdata, NULL,
					    G_SPAWN_DO_NOT_REAP_CHILD, NULL,
					    NULL, &pid, -1, fd, fd, NULL)) {
			close(fd);
			good = false;
			break;
		}
		close(fd);
		g_usleep(2 * G_USEC_PER_SEC);
		if (waitpid(pid, &status, WNOHANG) == pid) {
			g_autofree char *msg = NULL;

			g_file_get_contents(err, &msg, NULL, NULL);
			diag("QEMU for %s exited: %s", h->id, msg ? msg : "");
			good = false;
		} else {
			kill(pid, SIGTERM);
			waitpid(pid, &status, 0);
		}
		g_spawn_close_pid(pid);
	}
	ok(good, "%s: QEMU accepts every host's command line", name);
	/* Leave nothing behind. */
	{
		GDir *gd = g_dir_open(dir, 0, NULL);
		const char *n;

		while (gd && (n = g_dir_read_name(gd))) {
			g_autofree char *f = g_build_filename(dir, n, NULL);

			g_unlink(f);
		}
		if (gd)
			g_dir_close(gd);
		g_rmdir(dir);
	}
}

int main(void)
{
	const char *names[] = { "direct", "interleave2-rp", "default",
				"cascade", "shared-pool" };

	plan(14 + 2 + 3 + G_N_ELEMENTS(names));
	test_default();
	test_interactive();
	test_pool();
	for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
		test_qemu_accepts(names[i]);
	return done_testing();
}
