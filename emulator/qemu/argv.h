/* SPDX-License-Identifier: MIT */
/*
 * One host of a topology as a QEMU command line, and the run-directory
 * paths (sockets, logs, CDAT files, pool files) that command line names.
 */
#ifndef CXLBED_QEMU_ARGV_H
#define CXLBED_QEMU_ARGV_H

#include "common/paths.h"
#include "topology/topology.h"

#include <glib.h>
#include <stdbool.h>

/*
 * The guest clock (docs/timing-model.md, "Guest time"): an ivshmem-doorbell
 * device whose server is the timing plugin, joined by a socketpair the
 * runner hands QEMU as these descriptor numbers.
 */
#define CXLBED_CLOCK_QEMU_FD 100	/* QEMU's chardev end */
#define CXLBED_CLOCK_PLUGIN_FD 101	/* the plugin's end (clock_fd=) */
/*
 * Kernel parameters every guest boots with: the crypto API's self-tests,
 * the SP800-108 KDF's and the jitter entropy source's start-up tests are
 * left out: under TCG they took a quarter of the kernel's initcall time
 * (2.75 s to 2.12 s; the agent up at 4.3 s of guest time instead of 5.1,
 * default.topo, a quiet host). They test the host's CPU emulation, not the
 * guest's memory; nothing in the guest needs a FIPS self-test.
 */
#define CXLBED_BOOT_APPEND "cryptomgr.notests initcall_blacklist=crypto_kdf108_init,jent_mod_init"
/* Kernel parameters of a guest in modeled time (see argv.c). */
#define CXLBED_CLOCK_APPEND "nokaslr norandmaps no_timer_check"

/* Where the guest image worker leaves its output (repo-root relative). */
#define CXLBED_DEFAULT_QEMU "qemu-system-x86_64"
#define CXLBED_DEFAULT_INITRD "build/guest/initramfs.cpio.gz"

struct qemu_opts {
	const char *qemu;	/* NULL: CXLBED_DEFAULT_QEMU */
	const char *kernel;	/* NULL: CXLBED_GUEST_KERNEL */
	const char *initrd;	/* NULL: CXLBED_DEFAULT_INITRD */
	const char *rundir;	/* sockets, logs, CDAT and pool files */
	const char *append_extra;	/* added to the kernel command line */
	const char *plugin;	/* full -plugin value, or NULL */
	bool guest_clock;	/* with the plugin: the guest clock device */
	bool interactive;	/* serial on stdio instead of a log file */
};

/*
 * The options every verb that starts (or shows) a host's QEMU uses: the
 * QEMU binary (qemu_binary.h says which), the guest image
 * under the cxlbed root, @rundir. So `plan` prints what `run` starts.
 */
void qemu_opts_for_run(struct qemu_opts *o, const char *rundir);

/* NULL-terminated argv of owned strings; NULL + *error on failure. */
GPtrArray *qemu_argv_build(const struct cb_topology *t,
			   const struct cb_host *h, const struct qemu_opts *o,
			   GError **error);
/* For printing: shell-quoted, one option group per line. */
char *qemu_argv_to_shell(GPtrArray *argv);

char *qemu_qmp_socket(const char *rundir, const struct cb_host *h);
char *qemu_agent_socket(const char *rundir, const struct cb_host *h);
/*
 * The fabric manager's own QMP monitor and agent port (org.cxlbed.fm) on
 * a host that may receive pool LDs, so that binds and releases need not
 * wait for the runner's requests (docs/pooling.md).
 */
char *qemu_fm_qmp_socket(const char *rundir, const struct cb_host *h);
char *qemu_fm_agent_socket(const char *rundir, const struct cb_host *h);
bool qemu_host_has_fm(const struct cb_topology *t, const struct cb_host *h);
char *qemu_console_log(const char *rundir, const struct cb_host *h);
char *qemu_pidfile(const char *rundir, const struct cb_host *h);
/* RUNDIR/cdat-DEV.bin: written by cdat_write() before QEMU starts. */
char *qemu_cdat_file(const char *rundir, const struct cb_device *d);
char *qemu_switch_cdat_file(const char *rundir, const struct cb_switch *sw);
/* RUNDIR/srat-HOST.bin, RUNDIR/hmat-HOST.bin (acpi_numa.h), -acpitable. */
char *qemu_srat_file(const char *rundir, const struct cb_host *h);
char *qemu_hmat_file(const char *rundir, const struct cb_host *h);
/*
 * What the guest firmware tells the kernel about the fabric, for host H
 * (NULL: all hosts): every device's and switch's CDAT, each host's SRAT
 * and HMAT. CXLBED_TEST_TABLE_SKEW (table_skew.h) makes them wrong on
 * purpose; a bad value fails with CXLBED_ERROR_INPUT.
 */
bool qemu_write_guest_tables(const struct cb_topology *t, const struct cb_host *h,
			     const char *rundir, GError **error);
/* The pool's own file, or RUNDIR/pool-POOL.img the run creates (size). */
char *qemu_pool_file(const char *rundir, const struct cb_pool *p);

/* A link speed as QEMU's x-speed= takes it: "2_5", "5", ... "64". */
const char *qemu_speed_name(double gts);

/* QEMU object ids, for QMP users (fault injection, fabric manager). */
char *qemu_memdev_id(const struct cb_device *d);	/* "mem0-mem" */

#endif
