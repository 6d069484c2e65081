/* SPDX-License-Identifier: MIT */
/*
 * The cxlbed verbs. Each lives in its own cmd_VERB.c and returns the
 * process exit status: 0 success, 1 run failure, 2 bad input.
 * argv[0] is the verb itself; GOption parses the rest.
 */
#ifndef CXLBED_COMMANDS_H
#define CXLBED_COMMANDS_H

#include <glib.h>
#include <stdbool.h>

/*
 * A verb's start: @entries parsed out of argv (@args and @summary are its
 * --help: "cxlbed VERB [OPTION...] ARGS"); what is left is argv[1..argc-1].
 * False after one line on stderr: the verb returns 2.
 */
bool verb_options(int *argc, char ***argv, const char *args, const char *summary,
		  const GOptionEntry *entries);
/* "cxlbed VERB: what was wrong" on stderr; returns 2 (bad use). */
int verb_usage(const char *verb, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

int cmd_plan(int argc, char **argv);
int cmd_boot(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_table(int argc, char **argv);
int cmd_gpu(int argc, char **argv);
int cmd_layer(int argc, char **argv);
int cmd_fm(int argc, char **argv);
int cmd_clean(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_sweep(int argc, char **argv);

/*
 * --kernel LINE|PATH [--kernel-modules DIR] (run, boot, table, plan): the
 * guest kernel, over the scenario's and the topology's `kernel =`
 * (docs/kernels.md). Free with kernel_option_clear.
 */
struct kernel_option {
	char *kernel, *modules;
};
#define KERNEL_OPTION_ENTRIES(ko) \
	{ "kernel", 0, 0, G_OPTION_ARG_FILENAME, &(ko).kernel, \
	  "the guest kernel: a Debian version line (6.12, 7.3: the newest of " \
	  "that line, downloaded into build/cache/kernels/ the first time), a " \
	  "kernel build tree, or a bzImage with --kernel-modules; over the " \
	  "scenario's or topology's kernel = (docs/kernels.md)", "LINE|PATH" }, \
	{ "kernel-modules", 0, 0, G_OPTION_ARG_FILENAME, &(ko).modules, \
	  "the modules folder of a --kernel bzImage (lib/modules/RELEASE, as " \
	  "modules_install leaves it)", "DIR" }
void kernel_option_clear(struct kernel_option *ko);
typedef struct kernel_option kernel_option;
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(kernel_option, kernel_option_clear)
struct scenario;
struct cb_topology;
/* --kernel into @scn (over its kernel =). False, with a message for @verb
 * on stderr, on a bad value. cmd_run.c. */
bool apply_kernel_option(const char *verb, const struct kernel_option *ko,
			 struct scenario *scn);

/* Load a scenario or topology, apply --kernel, find (fetch) and check the
 * guest kernel and build its image: 0, or the exit status to return (2
 * bad input or a kernel refused, 1 a missing image or a failed download).
 * cmd_run.c. */
struct guest_kernel;
int run_prepare(const char *verb, const char *path, const struct kernel_option *ko,
		struct scenario **scn,
		struct cb_topology **topo, struct guest_kernel **kernel);

/* --packages and --files (cxlbed boot, cxlbed layer): guest_layer_add_cli(). */
#define LAYER_OPTION_ENTRIES(packages, files) \
	{ "packages", 'p', 0, G_OPTION_ARG_STRING_ARRAY, &(packages), \
	  "Debian packages to carry into the guest, with their libraries " \
	  "(e.g. \"sysbench numactl\"; repeatable)", "LIST" }, \
	{ "files", 'f', 0, G_OPTION_ARG_FILENAME_ARRAY, &(files), \
	  "a host file or folder to carry (default guest path: /usr/bin/NAME " \
	  "for an executable, else /root/NAME; repeatable)", "HOSTPATH[:/GUEST/PATH]" }
/*
 * --guest-clock=modeled|host (with the timing model): the guest's own
 * clock and timers in modeled time (default) or on host time as before.
 * False, with a message for @verb on stderr, for anything else. cmd_run.c.
 */
#define GUEST_CLOCK_HELP "the guest's clock with the timing model: modeled " \
	"(default; docs/timing-model.md, \"Guest time\") or host"
bool parse_guest_clock(const char *verb, const char *val, bool *host_clock);

/*
 * --qemu PATH (run, boot, table, plan): which QEMU starts the hosts. False,
 * with a message for @verb on stderr, when it does not run as QEMU 10 or
 * newer (qemu_binary.h). cmd_run.c.
 */
#define QEMU_OPTION_ENTRY(path) \
	{ "qemu", 0, 0, G_OPTION_ARG_FILENAME, &(path), \
	  "the QEMU to start: default cxlbed's build (make builds it; CXL " \
	  "memory at RAM speed, any switch depth: docs/qemu.md), else " \
	  "$CXLBED_QEMU, else qemu-system-x86_64 on PATH. Any QEMU 10 gives " \
	  "the same figures, slower", "PATH" }
bool choose_qemu(const char *verb, const char *path);

/* Set by the top level from --verbose before the verb runs. */
extern int cxlbed_verbose;

#endif
