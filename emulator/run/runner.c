/* SPDX-License-Identifier: MIT */
#include "runner.h"
#include "agent.h"
#include "command_workload.h"
#include "guest_kernel.h"
#include "guest_layer.h"
#include "guest_view.h"
#include "modeled_clock.h"
#include "data_check.h"
#include "fault_rois.h"
#include "fm.h"
#include "pool_check.h"
#include "stale_check.h"
#include "timing_run.h"
#include "argv.h"
#include "error.h"
#include "figures.h"
#include "html.h"
#include "paths.h"
#include "process.h"
#include "progress.h"
#include "qemu_binary.h"
#include "qmp.h"
#include "result.h"
#include "run_dir.h"
#include "run_registry.h"
#include "run_state.h"
#include "vcpu_where.h"
#include "version.h"
#include "verify.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define QMP_CONNECT_S 30
#define STOP_GRACE_MS 3000

struct host_run {
	const struct cb_host *h;
	struct res_host *res;
	struct qemu_proc *proc;
	struct qmp *qmp;
	struct agent *agent;
	FILE *log;		/* qmp-HOST.log: QMP and agent traffic */
	gint64 t_spawn;
	bool failed;		/* skip further steps on this host */
	char *timing_report;	/* plugin report, timing mode only */
};

struct run {
	const struct scenario *scn;
	const struct cb_topology *topo;
	const struct run_opts *opts;
	struct run_result *res;
	char *dir;
	char *shm;		/* timing: the run's shared segment */
	struct run_state *state;	/* DIR/state.json */
	bool dir_created;	/* by this run (undone if the start fails) */
	GPtrArray *hosts;	/* struct host_run * */
	gint64 deadline;	/* whole-run timeout */
	char *initrd;		/* base image + the scenario's layer, or NULL */
	struct fm *fm;		/* the fabric manager, when the topology lends */
};

static gint64 deadline_in(const struct run *run, int seconds)
{
	return MIN(g_get_monotonic_time() + (gint64)seconds * G_USEC_PER_SEC,
		   run->deadline);
}

static char *host_file(const struct run *run, const char *what,
		       const struct cb_host *h, const char *ext)
{
	return g_strdup_printf("%s/%s-%s.%s", run->dir, what, h->id, ext);
}

static void host_fail(struct run *run, struct host_run *hr, const char *check,
		      const GError *err)
{
	g_autofree char *name = g_strdup_printf("%s:%s", check, hr->h->id);

	hr->failed = true;
	result_check(run->res, name, false, "%s", err ? err->message : "failed");
	progress(hr->h->id, "FAILED", "%s: %s", check, err ? err->message : "");
}

/*
 * How QEMU ended, in words. When cxlbed got SIGINT/SIGTERM/SIGHUP its
 * signal guard SIGKILLs every QEMU: that QEMU was stopped by cxlbed, not
 * killed by someone else, and the words say so.
 */
static char *exit_words(const struct qemu_proc *p, bool *by_cxlbed)
{
	int sig = qemu_proc_interrupted();

	*by_cxlbed = sig && p->reaped && WIFSIGNALED(p->wait_status) &&
		     WTERMSIG(p->wait_status) == SIGKILL;
	if (*by_cxlbed)
		return g_strdup_printf("stopped by cxlbed on SIG%s", sigabbrev_np(sig));
	return qemu_proc_describe_exit(p);
}

/*
 * Name the run and claim its folder before anything starts: register it
 * (so a later cxlbed can clean up after it if it is killed), create the
 * folder and its state.json exclusively, then the timing segment.
 * Returns 0, or the exit status with the reason on stderr: 2 for a
 * folder the person gave that cannot be used, 1 otherwise.
 */
static int claim_run(struct run *run)
{
	const struct cb_host *h;
	g_autoptr(GError) err = NULL;
	int refused = run->opts->out_dir ? 2 : 1;

	cb_foreach(run->topo->hosts, const struct cb_host, h) {
		/* the longest socket name: the fabric manager's agent port */
		g_autofree char *sock = qemu_host_has_fm(run->topo, h) ?
			qemu_fm_agent_socket(run->dir, h) : qemu_agent_socket(run->dir, h);

		if (strlen(sock) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
			fprintf(stderr, "cxlbed: %s: socket path too long for a UNIX "
				"socket (%zu bytes, at most %zu); give a shorter --out\n",
				sock, strlen(sock),
				sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
			return refused;
		}
	}
	if (run->opts->out_dir && !run_out_acceptable(run->dir, "--out", &err)) {
		fprintf(stderr, "cxlbed: %s\n", err->message);
		return 2;
	}
	if (run->opts->timing)
		run->shm = timing_shm_name(run->res->run_id);
	if (!run_registry_add(run->res->run_id, run->dir, run->shm, &err)) {
		fprintf(stderr, "cxlbed: cannot register the run in %s: %s\n",
			cxlbed_state_dir(), err->message);
		return 1;
	}
	if (!run_dir_make(run->dir, !run->opts->out_dir, &run->dir_created, &err) ||
	    !(run->state = run_state_create(run->dir, run->res->run_id, run->shm, &err)) ||
	    (run->opts->timing && !timing_run_create_segment(run->res->run_id, &err))) {
		fprintf(stderr, "cxlbed: %s\n", err->message);
		run_state_free(run->state, true);
		run->state = NULL;
		if (run->dir_created)
			rmdir(run->dir);
		run_registry_remove(run->res->run_id);
		return refused;
	}
	return 0;
}

/* The run is over: its state says how, the register forgets it. */
static void release_run(struct run *run, const char *outcome)
{
	if (run->shm)
		timing_run_cleanup(run->res->run_id);
	run_state_end(run->state, outcome);
	run_state_free(run->state, false);
	run->state = NULL;
	run_registry_remove(run->res->run_id);
	g_clear_pointer(&run->shm, g_free);
}

/* Sizes, pool files and CDAT tables: everything QEMU reads from the run dir. */
static bool prepare_dir(struct run *run, GError **error)
{
	struct cb_pool *pool;

	cb_foreach(run->topo->pools, struct cb_pool, pool) {
		g_autofree char *path = qemu_pool_file(run->dir, pool);
		int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

		if (fd < 0 || ftruncate(fd, (off_t)pool->size) < 0) {
			g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN,
				    "pool %s: %s: %s", pool->id, path, g_strerror(errno));
			if (fd >= 0)
				close(fd);
			return false;
		}
		close(fd);
	}
	/* CDAT, SRAT and HMAT: the guest's latency/bandwidth view. */
	return qemu_write_guest_tables(run->topo, NULL, run->dir, error);
}

/* The scenario's packages and files: built into a layer, or reused. */
static bool prepare_layer(struct run *run, GError **error)
{
	bool built;

	if (!guest_layer_wanted(run->scn))
		return true;
	const struct guest_kernel *k = run->opts->kernel;
	g_autofree char *base = k ? guest_kernel_file(k, "initramfs.cpio.gz") : NULL;
	g_autofree char *manifest = k ? guest_kernel_file(k, "initramfs.manifest") : NULL;

	run->initrd = guest_layer_prepare(run->scn, base, manifest, &built, error);
	return run->initrd != NULL;
}

/*
 * How many hosts must reach their first marker before modeled time starts.
 * Only `together` workloads need hosts to start in step; a host measured
 * alone would otherwise wait for a host that runs nothing.
 */
static guint arming_hosts(const struct run *run)
{
	return scenario_has_together(run->scn) ? run->hosts->len : 1;
}

static bool start_host(struct run *run, struct host_run *hr, GError **error)
{
	struct qemu_opts qo;
	g_autoptr(GPtrArray) argv = NULL;
	g_autofree char *qmp_log = host_file(run, "qmp", hr->h, "log");
	g_autofree char *qemu_log = host_file(run, "qemu", hr->h, "log");
	g_autofree char *cmd_file = host_file(run, "qemu", hr->h, "cmdline");
	g_autofree char *shell = NULL;
	g_autofree char *plugin = NULL;
	int clock[2] = { -1, -1 };
	struct qemu_proc_fd fds[2];
	bool guest_clock = run->opts->timing && !run->opts->host_clock;
	g_autofree char *kernel = NULL, *base = NULL;

	qemu_opts_for_run(&qo, run->dir);
	qo.interactive = run->opts->interactive;
	if (run->opts->kernel) {
		qo.kernel = kernel = guest_kernel_boot_file(run->opts->kernel);
		qo.initrd = base = guest_kernel_file(run->opts->kernel, "initramfs.cpio.gz");
	}
	if (run->initrd)
		qo.initrd = run->initrd;
	if (run->opts->timing) {
		plugin = timing_run_prepare(run->topo, hr->h, run->dir, run->res->run_id,
					    arming_hosts(run), guest_clock,
					    run->scn->timing_skew_ns, error);
		if (!plugin)
			return false;
		qo.plugin = plugin;
		qo.guest_clock = guest_clock;
		hr->timing_report = timing_report_path(run->dir, hr->h);
	}
	argv = qemu_argv_build(run->topo, hr->h, &qo, error);
	if (!argv)
		return false;
	shell = qemu_argv_to_shell(argv);
	g_file_set_contents(cmd_file, shell, -1, NULL);
	hr->log = fopen(qmp_log, "we");
	hr->t_spawn = g_get_monotonic_time();
	/* the guest clock device: QEMU's end and the plugin's (argv.h) */
	if (guest_clock &&
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, clock) < 0) {
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno),
			    "socketpair: %s", g_strerror(errno));
		return false;
	}
	fds[0] = (struct qemu_proc_fd){ clock[0], CXLBED_CLOCK_QEMU_FD };
	fds[1] = (struct qemu_proc_fd){ clock[1], CXLBED_CLOCK_PLUGIN_FD };
	hr->proc = qemu_proc_spawn_fds(hr->h->id, argv,
				       run->opts->interactive ? NULL : qemu_log,
				       fds, guest_clock ? 2 : 0, error);
	if (guest_clock) {
		close(clock[0]);
		close(clock[1]);
	}
	if (!hr->proc)
		return false;
	run_state_qemu(run->state, hr->h->id, hr->proc->pid);
	progress(hr->h->id, "qemu", "started (pid %d, %d vCPUs, %" G_GUINT64_FORMAT
		 " MiB, %u CXL devices)", hr->proc->pid, hr->h->cpus,
		 hr->h->memory >> 20, hr->h->devices->len);
	return true;
}

/* Why did QEMU go away? Its own log usually says. */
static void explain_exit(struct run *run, struct host_run *hr, GError **error)
{
	g_autofree char *qemu_log = host_file(run, "qemu", hr->h, "log");
	g_autofree char *text = NULL;
	g_autofree char *how = NULL;
	bool by_cxlbed;

	/*
	 * A closed socket is usually QEMU dying: its fds close before it
	 * can be reaped, so give it a moment to finish.
	 */
	for (int i = 0; hr->proc && !qemu_proc_exited(hr->proc) && i < 50; i++)
		g_usleep(20 * 1000);
	if (!hr->proc || !qemu_proc_exited(hr->proc))
		return;
	how = exit_words(hr->proc, &by_cxlbed);
	g_file_get_contents(qemu_log, &text, NULL, NULL);
	if (text)
		g_strstrip(text);
	g_prefix_error(error, "QEMU %s%s%s; ", how, text && *text ? ": " : "",
		       text && *text ? text : "");
}

/*
 * A boot whose every vCPU stays halted while its console stays silent
 * has hung: seen as the guest's idle loop on every vCPU (pv_native_safe_halt,
 * 0.78 s into the kernel's log, before the guest clock's module loads)
 * with no interrupt to end it, in about one boot in a hundred, and found
 * only at the boot time-out (240 s). A healthy boot keeps a vCPU busy:
 * under TCG it is CPU-bound from start to agent. HANG_S of that, looked
 * at every few seconds (agent_connect_watched), ends the wait early, and
 * boot_broken starts it again. (CXLBED_HANG_S shortens it for tests.)
 */
#define HANG_S 30
static int hang_s(void)
{
	const char *env = g_getenv("CXLBED_HANG_S");
	int s = env ? atoi(env) : 0;

	return s > 0 ? s : HANG_S;
}
struct hang_watch {
	struct run *run;
	struct host_run *hr;
	goffset console_size;
	gint64 since_us;	/* halted and silent since; 0: not now */
};

static char *boot_hung(void *ctx)
{
	struct hang_watch *w = ctx;
	g_autofree char *console = host_file(w->run, "console", w->hr->h, "log");
	gint64 now = g_get_monotonic_time();
	struct stat st;
	goffset size = stat(console, &st) == 0 ? st.st_size : -1;

	if (size != w->console_size || !w->hr->qmp ||
	    !vcpus_all_halted(w->hr->qmp, now + 5 * G_USEC_PER_SEC)) {
		w->console_size = size;
		w->since_us = 0;
		return NULL;
	}
	if (!w->since_us)
		w->since_us = now;
	if (now - w->since_us < hang_s() * G_USEC_PER_SEC)
		return NULL;
	return g_strdup_printf("every vCPU halted and the console silent for %d s",
			       hang_s());
}

/* "kernel:HOST": the guest runs the kernel the run chose (its image's). */
static void check_kernel(struct run *run, struct host_run *hr)
{
	const struct guest_kernel *k = run->opts->kernel;
	g_autofree char *name = g_strdup_printf("kernel:%s", hr->h->id);
	g_autofree char *what = NULL;

	if (!k || !k->release)
		return;
	what = guest_kernel_describe(k);
	result_check(run->res, name, !g_strcmp0(hr->res->kernel, k->release),
		     "the guest runs %s; %s was chosen (%s)", hr->res->kernel, what,
		     k->chosen_by);
}

static bool connect_host(struct run *run, struct host_run *hr, GError **error)
{
	g_autofree char *qmp_sock = qemu_qmp_socket(run->dir, hr->h);
	g_autofree char *agent_sock = qemu_agent_socket(run->dir, hr->h);
	JsonObject *hello;

	run_state_stage(run->state, "booting", "%s", hr->h->id);
	hr->qmp = qmp_connect(qmp_sock, hr->log, deadline_in(run, QMP_CONNECT_S), error);
	if (!hr->qmp) {
		explain_exit(run, hr, error);
		return false;
	}
	if (!run->res->qemu_version) {
		const struct qemu_binary *qb = qemu_binary_get(NULL);

		run->res->qemu_version = g_strdup(hr->qmp->qemu_version);
		run->res->qemu_path = g_strdup(qemu_binary_path());
		run->res->qemu_package = g_strdup(qb ? qb->package : NULL);
	}
	progress(hr->h->id, "qmp", "connected (QEMU %s)", hr->qmp->qemu_version);

	hr->agent = agent_connect_watched(agent_sock, hr->log,
					  deadline_in(run, run->scn->boot_timeout_s),
					  boot_hung, &(struct hang_watch){ .run = run, .hr = hr },
					  error);
	if (!hr->agent) {
		explain_exit(run, hr, error);
		return false;
	}
	hello = hr->agent->hello;
	g_free(hr->res->kernel);	/* from an earlier boot attempt */
	hr->res->kernel = g_strdup(json_object_get_string_member_with_default(hello, "kernel", "?"));
	progress(hr->h->id, "agent", "up: kernel %s, guest uptime %.1f s",
		 hr->res->kernel,
		 json_object_get_double_member_with_default(hello, "uptime_s", -1));
	check_kernel(run, hr);
	return true;
}

/* A region takes a second or two; as long as the boot may take, at most this. */
#define REGION_TIMEOUT_S 120

static bool create_regions(struct run *run, struct host_run *hr, GError **error)
{
	struct cb_region *reg;

	run_state_stage(run->state, "regions", "%s", hr->h->id);
	cb_foreach(hr->h->regions, struct cb_region, reg) {
		g_autoptr(JsonObject) args = json_object_new();
		g_autoptr(JsonObject) res = NULL;
		JsonArray *serials = json_array_new();
		struct cb_device *d;

		cb_foreach(reg->devices, struct cb_device, d)
			json_array_add_int_element(serials, (gint64)d->serial);
		json_object_set_string_member(args, "id", reg->id);
		json_object_set_int_member(args, "window", reg->window->index);
		json_object_set_int_member(args, "ways", reg->devices->len);
		json_object_set_int_member(args, "granularity", reg->granularity);
		json_object_set_array_member(args, "serials", serials);
		json_object_set_string_member(args, "mode",
					      reg->mode == CB_REGION_RAM ? "ram" : "devdax");
		json_object_set_int_member(args, "size", 0);
		res = agent_call(hr->agent, "create-region", args,
				 deadline_in(run, MIN(REGION_TIMEOUT_S, run->scn->boot_timeout_s)),
				 error);
		if (!res) {
			g_prefix_error(error, "region %s (%s:%d): ", reg->id,
				       reg->src.file, reg->src.line);
			explain_exit(run, hr, error);
			return false;
		}
		if (reg->mode == CB_REGION_RAM)
			progress(hr->h->id, "region", "%s -> %s, %" G_GUINT64_FORMAT
				 " MiB online as NUMA node %" G_GINT64_FORMAT, reg->id,
				 json_object_get_string_member_with_default(res, "region", "?"),
				 reg->size >> 20,
				 json_object_get_int_member_with_default(res, "node", -1));
		else
			progress(hr->h->id, "region", "%s -> %s, %" G_GUINT64_FORMAT
				 " MiB as %s", reg->id,
				 json_object_get_string_member_with_default(res, "region", "?"),
				 reg->size >> 20,
				 json_object_get_string_member_with_default(res, "dax", "?"));
	}
	hr->res->boot_ready_s = (g_get_monotonic_time() - hr->t_spawn) / 1e6;
	run->res->boot_ready_s = MAX(run->res->boot_ready_s, hr->res->boot_ready_s);
	progress(hr->h->id, "ready", "%u region(s) online, %.1f s after QEMU start",
		 hr->h->regions->len, hr->res->boot_ready_s);
	return true;
}

static bool enumerate_host(struct run *run, struct host_run *hr, GError **error)
{
	JsonObject *en;

	run_state_stage(run->state, "enumerating", "%s", hr->h->id);
	en = agent_call(hr->agent, "enumerate", NULL, deadline_in(run, 60), error);
	if (!en) {
		explain_exit(run, hr, error);
		return false;
	}
	hr->res->enumeration = en;
	verify_fill_nodes(hr->res, hr->h, en);
	if (run->opts->timing && !timing_check_region_bases(run->res, hr->h, en))
		progress(hr->h->id, "enumerate", "region bases differ from the timing model's");
	data_check_regions(run->res, hr->h, hr->agent, en, deadline_in(run, 180));
	if (!verify_enumeration(run->res, hr->h, en))
		progress(hr->h->id, "enumerate", "MISMATCH with the topology (see checks)");
	else
		progress(hr->h->id, "enumerate", "%d memdevs, %u nodes with memory: as the topology says",
			 hr->res->memdevs, hr->res->nodes->len);
	return true;
}

static bool workload_wanted(const struct scn_workload *w, const struct cb_host *h)
{
	if (!w->hosts)
		return true;
	return g_strv_contains((const char *const *)w->hosts, h->id);
}

/* One workload invocation on one host, between its request and its reply. */
struct pending {
	struct host_run *hr;
	const struct scn_workload *w;
	int node;
	const struct res_node *dax;	/* a dax view, or NULL */
	struct res_workload *rw;
	guint id;		/* agent request id; 0: not sent */
	guint first_roi;
	gint64 t0;
	double modeled_t0_ns;	/* the guest's modeled clock then; < 0: none */
	int together;		/* hosts a `together` workload starts on; 0: not one */
	char *command;		/* a command workload's expanded command line */
	GString *log;		/* its log file: setup, command, cleanup */
};

/* The host's dax device for its first devdax region, or NULL. */
static const char *first_dax(const struct host_run *hr)
{
	const struct cb_region *reg;

	cb_foreach(hr->h->regions, const struct cb_region, reg) {
		JsonObject *gr = reg->mode == CB_REGION_DEVDAX ?
			verify_guest_region(hr->res->enumeration, reg) : NULL;
		const char *dax = gr ? json_object_get_string_member_with_default(gr, "dax", NULL) : NULL;

		if (dax)
			return dax;
	}
	return NULL;
}

/* {dax}, {node}, {local-node}, {cxl-node} of invocation @p (command_workload.h). */
static char *expand_for(const struct pending *p, const char *text, GError **error)
{
	struct cmd_place place = {
		.host = p->hr->res, .node = p->node,
		.dax = p->dax ? p->dax->dax : first_dax(p->hr),
	};

	return workload_expand(text, &place, error);
}

static char *expand_arg(const struct pending *p, const char *arg)
{
	char *v = expand_for(p, arg, NULL);

	return v ? v : g_strdup(arg);	/* no such place: the program will say so */
}

/* RUN/workload-HOST-ID[-nodeN|-REGION].log: what a command printed. */
static char *workload_log(const struct run *run, const struct pending *p)
{
	g_autofree char *where = p->node >= 0 ? g_strdup_printf("-node%d", p->node) :
		p->dax ? g_strdup_printf("-%s", p->dax->region) : g_strdup("");

	return g_strdup_printf("%s/workload-%s-%s%s.log", run->dir, p->hr->h->id,
			       p->w->id, where);
}

/* "node 1", "r1 dax0.0", or NULL: where invocation @p runs. */
static char *where_of(const struct pending *p)
{
	if (p->dax)
		return g_strdup_printf("%s %s", p->dax->region, p->dax->dax);
	return p->node >= 0 ? g_strdup_printf("node %d", p->node) : NULL;
}

/* The modeled ns @hr's guest has reached; -1 without the timing model. */
static double modeled_now(const struct run *run, const struct host_run *hr)
{
	return run->shm ? modeled_clock_host_ns(run->shm, hr->h->index, hr->h->cpus) : -1;
}

/*
 * Wait for the reply to request @id, which @p's host has run since
 * @t0 (host) and @modeled_t0_ns; every heartbeat interval meanwhile, one
 * progress line with the host and modeled time it has taken so far
 * (@step: "setup", "cleanup" or NULL for the workload itself).
 */
static JsonObject *wait_run(struct run *run, const struct pending *p, const char *step,
			    guint id, gint64 t0, double modeled_t0_ns, gint64 deadline,
			    GError **error)
{
	gint64 every = (gint64)progress_heartbeat_s() * G_USEC_PER_SEC;

	/* the next line one interval after this one, however late it came */
	for (gint64 beat = t0 + every;; beat = g_get_monotonic_time() + every) {
		GError *err = NULL;
		JsonObject *res = agent_wait(p->hr->agent, "run", id, MIN(beat, deadline), &err);
		g_autofree char *where = NULL, *what = NULL, *line = NULL;
		double now_ns;

		if (res)
			return res;
		if (beat >= deadline || !g_error_matches(err, G_IO_ERROR, G_IO_ERROR_TIMED_OUT)) {
			g_propagate_error(error, err);
			return NULL;
		}
		g_error_free(err);
		now_ns = modeled_t0_ns >= 0 ? modeled_now(run, p->hr) : -1;
		where = where_of(p);
		what = step && where ? g_strdup_printf("%s, %s", where, step) :
			g_strdup(step ? step : where);
		line = progress_heartbeat_text(what, (g_get_monotonic_time() - t0) / 1e6,
					       now_ns >= 0 ? (now_ns - modeled_t0_ns) / 1e9 : -1,
					       run->opts->timing);
		progress(p->hr->h->id, p->w->id, "%s", line);
	}
}

/* Send the agent its `run`; the plugin's ROIs from here on are this run's. */
static void send_run(struct run *run, struct pending *p, JsonObject *args)
{
	g_autoptr(GError) err = NULL;

	/* a phase starts: scenario events waiting for it fire now */
	fm_phase(run->fm, p->w->id);
	fm_workload_mark(run->fm, p->hr->h->id, p->w->id, true);
	if (p->hr->timing_report)
		p->first_roi = timing_report_roi_count(p->hr->timing_report);
	p->t0 = g_get_monotonic_time();
	p->modeled_t0_ns = modeled_now(run, p->hr);
	p->id = agent_send(p->hr->agent, "run", args, &err);
	if (!p->id)
		p->rw->error = g_strdup(err->message);
}

/* A setup or cleanup step: run to its end, outside any ROI; into the log. */
static JsonObject *command_step(struct run *run, struct pending *p, const char *label,
				const char *text, GError **error)
{
	g_autoptr(JsonObject) args = json_object_new();
	g_autofree char *cmd = expand_for(p, text, error);
	g_autofree char *log = NULL;
	g_autofree char *step = g_strndup(label, strcspn(label, ":"));
	JsonObject *res;
	guint id;

	if (!cmd)
		return NULL;
	json_object_set_string_member(args, "command", cmd);
	json_object_set_int_member(args, "timeout_s", p->w->timeout_s);
	id = agent_send(p->hr->agent, "run", args, error);
	res = id ? wait_run(run, p, step, id, g_get_monotonic_time(), modeled_now(run, p->hr),
			    deadline_in(run, p->w->timeout_s + 30), error) : NULL;
	log = command_log_text(label, cmd, res);
	g_string_append(p->log, log);
	if (res && json_object_get_int_member_with_default(res, "exit", -1)) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN, "%sexit %" G_GINT64_FORMAT,
			    label, json_object_get_int_member(res, "exit"));
		g_clear_pointer(&res, json_object_unref);
	}
	return res;
}

/* A command: setup first, then the agent runs it through /bin/sh -c as one ROI. */
static void start_command(struct run *run, struct pending *p)
{
	g_autoptr(JsonObject) args = json_object_new();
	g_autoptr(JsonObject) setup = NULL;
	g_autoptr(GError) err = NULL;

	p->log = g_string_new(NULL);
	p->rw = result_add_workload(run->res, p->hr->h->id, p->w->id, "command", p->node);
	if (p->dax)
		p->rw->region = g_strdup(p->dax->region);
	if (p->w->setup && !(setup = command_step(run, p, "setup: ", p->w->setup, &err))) {
		p->rw->error = g_strdup_printf("setup: %s", err->message);
		return;
	}
	p->command = expand_for(p, p->w->command, &err);
	if (!p->command) {
		p->rw->error = g_strdup(err->message);
		return;
	}
	json_object_set_string_member(args, "command", p->command);
	json_object_set_boolean_member(args, "roi", TRUE);
	json_object_set_int_member(args, "timeout_s", p->w->timeout_s);
	send_run(run, p, args);
}

/*
 * cxlbed's workloads that take --together N: their regions then start at
 * one modeled time on every host (the timing plugin's start barrier,
 * docs/timing-model.md); others start when the runner's request reaches
 * them, in host time.
 */
static bool starts_together(const char *program)
{
	static const char *const aware[] = { "cxlbed-stream", "cxlbed-chase", "cxlbed-loaded" };

	for (size_t i = 0; i < G_N_ELEMENTS(aware); i++)
		if (!strcmp(program, aware[i]))
			return true;
	return false;
}

static void start_one(struct run *run, struct pending *p)
{
	g_autoptr(JsonObject) args = NULL;
	JsonArray *argv;

	/* the stage names the workload while it runs, a command's setup included */
	if (p->node >= 0)
		run_state_stage(run->state, "workloads", "%s on %s node %d", p->w->id,
				p->hr->h->id, p->node);
	else
		run_state_stage(run->state, "workloads", "%s on %s%s%s", p->w->id,
				p->hr->h->id, p->dax ? " " : "", p->dax ? p->dax->region : "");
	if (p->w->command) {
		start_command(run, p);
		return;
	}
	args = json_object_new();
	argv = json_array_new();
	for (char **a = p->w->args; a && *a; a++) {
		g_autofree char *arg = **a ? expand_arg(p, *a) : NULL;

		if (arg)
			json_array_add_string_element(argv, arg);
	}
	if (p->node >= 0) {
		g_autofree char *n = g_strdup_printf("%d", p->node);

		json_array_add_string_element(argv, "--node");
		json_array_add_string_element(argv, n);
	} else if (p->dax) {
		json_array_add_string_element(argv, "--dax");
		json_array_add_string_element(argv, p->dax->dax);
	}
	if (p->together > 1 && starts_together(p->w->program)) {
		g_autofree char *n = g_strdup_printf("%d", p->together);

		json_array_add_string_element(argv, "--together");
		json_array_add_string_element(argv, n);
	}
	json_object_set_string_member(args, "program", p->w->program);
	json_object_set_array_member(args, "args", argv);
	json_object_set_int_member(args, "timeout_s", p->w->timeout_s);
	p->rw = result_add_workload(run->res, p->hr->h->id, p->w->id, p->w->program,
				    p->node);
	if (p->dax)
		p->rw->region = g_strdup(p->dax->region);
	send_run(run, p, args);
}

static bool host_usable(const struct host_run *hr)
{
	return !hr->failed && hr->agent && !qemu_proc_interrupted();
}

/*
 * A user program whose working set fits in the modeled LLC measures the
 * cache, not the path (sysbench memory with 1 MiB blocks measured
 * CXL/local 1.000): said on the progress log, in summary.json's workload
 * entry and in report.md.
 */
static void warn_fits_llc(const struct host_run *hr, struct pending *p, const char *check)
{
	const struct cb_cache_cfg *c = &hr->h->cache;
	char *warning = command_llc_warning(p->rw->output, p->command, c->llc_bytes,
					    c->line_bytes ? c->line_bytes : 64);

	if (!warning)
		return;
	g_ptr_array_add(p->rw->warnings, warning);
	progress(hr->h->id, "WARNING", "%s: %s", check + strlen("workload:"), warning);
}

/*
 * A command's reply (NULL: it did not start): its output object, the
 * modeled time of its ROI, with clock-check its own throughput against
 * the modeled; then cleanup, and the log of every step.
 */
static void finish_command(struct run *run, struct pending *p, JsonObject *res,
			   const char *check)
{
	struct host_run *hr = p->hr;
	struct res_workload *rw = p->rw;
	g_autofree char *log = workload_log(run, p);
	g_autofree char *log_name = g_path_get_basename(log);
	g_autofree char *line = NULL;
	g_autofree char *clock = g_strdup_printf("clock:%s", check + strlen("workload:"));
	g_autoptr(GError) err = NULL;
	g_autoptr(JsonObject) done = NULL;
	gint64 status = res ? json_object_get_int_member_with_default(res, "exit", -1) : -1;
	double agree = -1;

	if (res) {
		g_autofree char *text = command_log_text("", p->command, res);

		g_string_append(p->log, text);
		rw->output = command_output(res, p->command, log_name);
		rw->ok = status == 0;
		if (!rw->ok)
			rw->error = g_strdup_printf("exit %" G_GINT64_FORMAT ": see %s",
						    status, log_name);
		else if (hr->timing_report &&
			 !timing_merge(rw->output, hr->timing_report, p->first_roi, &err)) {
			rw->ok = false;
			rw->error = g_strdup_printf("timing model: %s", err->message);
		} else {
			agree = command_add_modeled(rw->output);
			if (hr->timing_report)	/* the LLC is the model's */
				warn_fits_llc(hr, p, check);
		}
	}
	if (p->w->cleanup && host_usable(hr) &&
	    !(done = command_step(run, p, "cleanup: ", p->w->cleanup, &err)))
		progress(hr->h->id, p->w->id, "cleanup: %s (see %s)", err->message, log_name);
	g_file_set_contents(log, p->log->str, -1, NULL);
	g_string_free(g_steal_pointer(&p->log), TRUE);
	line = rw->output ? command_summary(rw->output) : g_strdup(rw->error);
	result_check(run->res, check, rw->ok, "%s", rw->ok ? line : rw->error);
	if (p->w->clock_check)
		result_check(run->res, clock, agree > 0 && fabs(agree - 1) <= 0.05,
			     "throughput by the program's clock / over the modeled ROI "
			     "time: %.3f (want 0.95 - 1.05)%s", agree,
			     hr->timing_report ? "" : "; no timing model: run with --timing");
	progress(hr->h->id, p->w->id, "%s: %s (%.1f s)", check + strlen("workload:"),
		 line, rw->wall_s);
	g_clear_pointer(&p->command, g_free);
}

static void finish_one(struct run *run, struct pending *p)
{
	struct host_run *hr = p->hr;
	struct res_workload *rw = p->rw;
	g_autoptr(JsonObject) res = NULL;
	g_autoptr(GError) err = NULL;
	g_autofree char *check = p->node >= 0 ?
		g_strdup_printf("workload:%s:%s:node%d", p->w->id, hr->h->id, p->node) :
		p->dax ? g_strdup_printf("workload:%s:%s:%s", p->w->id, hr->h->id,
					 p->dax->region) :
		g_strdup_printf("workload:%s:%s", p->w->id, hr->h->id);
	g_autofree char *where = where_of(p);

	if (p->w->command && !p->id) {	/* setup failed, or a placeholder had no value */
		finish_command(run, p, NULL, check);
		return;
	}
	if (p->id)
		res = wait_run(run, p, NULL, p->id, p->t0, p->modeled_t0_ns,
			       deadline_in(run, p->w->timeout_s + 30), &err);
	else
		g_set_error(&err, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", rw->error);
	rw->wall_s = (g_get_monotonic_time() - p->t0) / 1e6;
	fm_workload_mark(run->fm, hr->h->id, p->w->id, false);
	if (!res) {
		explain_exit(run, hr, &err);
		g_free(rw->error);
		rw->error = g_strdup(err->message);
		host_fail(run, hr, check, err);
		g_clear_pointer(&p->command, g_free);
		if (p->log)
			g_string_free(g_steal_pointer(&p->log), TRUE);
		return;
	}
	if (p->w->command) {
		finish_command(run, p, res, check);
		return;
	}
	gint64 status = json_object_get_int_member_with_default(res, "exit", -1);
	if (json_object_has_member(res, "output") &&
	    JSON_NODE_HOLDS_OBJECT(json_object_get_member(res, "output")))
		rw->output = json_object_ref(json_object_get_object_member(res, "output"));
	rw->ok = status == 0 && rw->output;
	if (rw->ok && hr->timing_report &&
	    !timing_merge(rw->output, hr->timing_report, p->first_roi, &err)) {
		rw->ok = false;
		rw->error = g_strdup_printf("timing model: %s", err->message);
	} else if (!rw->ok && status == 0) {
		/* it ended well but its result line did not parse: show it */
		const char *out = json_object_get_string_member_with_default(res, "stdout", "");
		size_t n = strlen(out);

		rw->error = g_strdup_printf("exit 0 but no JSON result; stdout ends \"%s\"; stderr \"%s\"",
			out + (n > 300 ? n - 300 : 0),
			json_object_get_string_member_with_default(res, "stderr", ""));
	} else if (!rw->ok) {
		/* name a signal and the agent's timeout (on the guest clock:
		 * modeled time with the timing model), so that an exit 137
		 * says whether the OOM killer or the timeout ended it */
		gint64 sig = json_object_get_int_member_with_default(res, "signal", 0);

		/* a timeout also says where the program's threads were */
		const char *stuck = json_object_get_string_member_with_default(res, "stuck", "");
		const char *stderr_tail = json_object_get_string_member_with_default(res, "stderr", "");

		rw->error = g_strdup_printf("exit %" G_GINT64_FORMAT "%s%s after %.3f s of guest clock%s: %s%s%s",
			status, sig ? ", signal " : "", sig ? g_strsignal((int)sig) : "",
			json_object_get_double_member_with_default(res, "wall_s", -1),
			json_object_get_boolean_member_with_default(res, "timed_out", FALSE) ?
			", timed out" : "", stderr_tail,
			*stuck ? (*stderr_tail ? "; at the timeout " : "at the timeout ") : "", stuck);
	}
	/* a protected workload's markers in modeled time (docs/faults.md) */
	if (rw->output && hr->timing_report)
		fault_rois_merge(rw->output, hr->timing_report, p->first_roi);
	/* memory shared without coherence: did it read a stale line? */
	if (rw->output && hr->timing_report)
		stale_check_workload(run->res, rw->output, hr->timing_report,
				     timing_report_roi_count(hr->timing_report) > p->first_roi,
				     p->w->id, hr->h->id);
	result_check(run->res, check, rw->ok, "%s", rw->ok ? "ran" : rw->error);
	result_node_take(p->dax ? result_host_find_dax(hr->res, p->dax->region) :
			 result_host_find_node(hr->res, p->node), rw->output);
	{
		g_autofree char *line = rw->output ? fig_summary(rw->output) : NULL;

		progress(hr->h->id, p->w->id, "%s: %s (%.1f s of host wall time)",
			 where ? where : "no node",
			 line ? line : rw->error ? rw->error : "no figures", rw->wall_s);
	}
}

static void run_one(struct run *run, struct pending *p)
{
	start_one(run, p);
	finish_one(run, p);
}

/*
 * Workload by workload. A `together` workload is sent to every host before
 * any reply is awaited, so hosts contend for shared links at the same time;
 * the others run host after host, once per node when per_node and once
 * per devdax region when per_dax.
 */
static void run_workloads(struct run *run)
{
	const struct scn_workload *w;
	struct host_run *hr;

	cb_foreach(run->scn->workloads, const struct scn_workload, w) {
		if (w->together) {
			g_autofree struct pending *ps = g_new0(struct pending, run->hosts->len);
			guint n = 0;
			int hosts = 0;

			cb_foreach(run->hosts, struct host_run, hr)
				hosts += host_usable(hr) && workload_wanted(w, hr->h);
			cb_foreach(run->hosts, struct host_run, hr)
				if (host_usable(hr) && workload_wanted(w, hr->h)) {
					ps[n] = (struct pending){ .hr = hr, .w = w, .node = -1,
								  .together = run->opts->timing ?
									      hosts : 0 };
					start_one(run, &ps[n++]);
				}
			for (guint i = 0; i < n; i++)
				finish_one(run, &ps[i]);
			continue;
		}
		cb_foreach(run->hosts, struct host_run, hr) {
			if (!host_usable(hr) || !workload_wanted(w, hr->h))
				continue;
			if (!w->per_node && !w->per_dax) {
				run_one(run, &(struct pending){ .hr = hr, .w = w, .node = -1 });
				continue;
			}
			/* nodes first, then dax views: the order of res->nodes */
			for (guint i = 0; i < hr->res->nodes->len; i++) {
				const struct res_node *n = g_ptr_array_index(hr->res->nodes, i);

				if (!host_usable(hr))
					break;
				if (n->dax && w->per_dax)
					run_one(run, &(struct pending){
						.hr = hr, .w = w, .node = -1, .dax = n });
				else if (!n->dax && w->per_node &&
					 (!w->cxl_nodes_only || !g_strcmp0(n->kind, "cxl")))
					run_one(run, &(struct pending){
						.hr = hr, .w = w, .node = n->node });
			}
			if (w->command && w->per_node)
				command_compare_nodes(run->res, hr->h->id, w->id);
		}
	}
}

/* Hosts sharing a pool must see each other's bytes. */
static void check_shared_pools(struct run *run)
{
	g_autofree struct pool_host *ph = g_new0(struct pool_host, run->hosts->len);
	guint n = 0;
	struct host_run *hr;

	if (!run->topo->pools->len || qemu_proc_interrupted() || run->opts->only_host)
		return;
	run_state_stage(run->state, "pool-check", NULL);
	cb_foreach(run->hosts, struct host_run, hr) {
		ph[n].h = hr->h;
		ph[n].agent = hr->failed ? NULL : hr->agent;
		ph[n].enumeration = hr->res->enumeration;
		n++;
	}
	pool_check_sharing(run->res, run->topo, ph, n, deadline_in(run, 60));
	for (guint i = 0; i < run->res->checks->len; i++) {
		struct res_check *c = g_ptr_array_index(run->res->checks, i);

		if (g_str_has_prefix(c->name, "pool:"))
			progress(NULL, c->pass ? "pool" : "FAILED", "%s: %s", c->name, c->detail);
	}
}

/*
 * The fabric manager, when the topology has a lending pool: its own
 * channels to every host it may lend to, then its start events, before
 * the workloads (docs/pooling.md). Not after Ctrl-C: QEMU is gone, and
 * its sockets, left behind, would be waited on.
 */
static void start_fm(struct run *run)
{
	g_autoptr(GError) err = NULL;
	struct host_run *hr;

	if (qemu_proc_interrupted())
		return;
	run->fm = fm_new(run->topo, run->scn, run->dir);
	if (!run->fm)
		return;
	cb_foreach(run->hosts, struct host_run, hr) {
		if (hr->failed || !qemu_host_has_fm(run->topo, hr->h))
			continue;
		g_clear_error(&err);
		if (!fm_connect_host(run->fm, hr->h, deadline_in(run, 60), &err) &&
		    !qemu_proc_interrupted())
			host_fail(run, hr, "fm", err);
	}
	g_clear_error(&err);
	if (!qemu_proc_interrupted() && !fm_start(run->fm, &err))
		result_check(run->res, "fm:start", false, "%s", err->message);
}

/*
 * Stop a host's QEMU (if it still runs) and let go of everything that
 * belonged to it: connections, logs, sockets, pid file.
 */
static void release_host(struct run *run, struct host_run *hr)
{
	if (hr->proc) {
		bool died = qemu_proc_exited(hr->proc);

		qemu_proc_stop(hr->proc, died ? NULL : hr->qmp, STOP_GRACE_MS);
	}
	agent_free(hr->agent);
	hr->agent = NULL;
	qmp_free(hr->qmp);
	hr->qmp = NULL;
	g_clear_pointer(&hr->timing_report, g_free);
	if (hr->log)
		fclose(hr->log);
	hr->log = NULL;
	qemu_proc_free(hr->proc);
	hr->proc = NULL;
	/* Sockets and pid files are meaningless after the run (QEMU
	 * removes its pid file only when it exits by itself). */
	g_autofree char *q = qemu_qmp_socket(run->dir, hr->h);
	g_autofree char *a = qemu_agent_socket(run->dir, hr->h);
	g_autofree char *pid = qemu_pidfile(run->dir, hr->h);
	g_autofree char *fq = qemu_fm_qmp_socket(run->dir, hr->h);
	g_autofree char *fa = qemu_fm_agent_socket(run->dir, hr->h);

	unlink(q);
	unlink(a);
	unlink(pid);
	unlink(fq);
	unlink(fa);
}

/* QEMU should still be alive until we stop it; note and check how it ended. */
static void teardown(struct run *run)
{
	struct host_run *hr;

	run_state_stage(run->state, "teardown", NULL);
	cb_foreach(run->hosts, struct host_run, hr) {
		bool died, by_cxlbed = false;
		g_autofree char *how = NULL;

		/* the signal guard SIGKILLed it: its end is moments away, and
		 * only then does it read "stopped by cxlbed on SIG..." */
		if (hr->proc && qemu_proc_interrupted())
			qemu_proc_wait(hr->proc);
		died = hr->proc && qemu_proc_exited(hr->proc);
		how = died ? exit_words(hr->proc, &by_cxlbed) : NULL;

		/*
		 * In `boot` the person ends QEMU (poweroff): that is no failure;
		 * nor is QEMU stopped on a signal to cxlbed (the run says it
		 * was interrupted).
		 */
		if (died && !by_cxlbed && !run->opts->interactive) {
			g_autofree char *name = g_strdup_printf("qemu:%s", hr->h->id);

			result_check(run->res, name, false, "QEMU ended before teardown: %s", how);
		}
		if (hr->proc) {
			hr->res->exit = died ? g_steal_pointer(&how) : g_strdup("stopped by cxlbed");
			progress(hr->h->id, "teardown", "QEMU %s", hr->res->exit);
		}
		release_host(run, hr);
	}
}

/*
 * Boots that fail for the platform's reasons, not the topology's, are
 * tried again (docs/run-state.md):
 * - QEMU 10.0.2's TCG sometimes aborts while a multi-vCPU guest boots,
 *   before any of cxlbed's instrumentation runs (system/physmem.c,
 *   iotlb_to_section: "section_index < d->map.sections_nb").
 * - On a loaded host a guest kernel can lose its timer interrupts early in
 *   boot, before the guest clock module takes over (it still runs on the
 *   emulated clock then): RCU reports a stall on the console, or the
 *   kernel panics with "IO-APIC + timer doesn't work", and the agent
 *   never comes up.
 */
#define BOOT_ATTEMPTS 3
#define QEMU_BOOT_ABORT "iotlb_to_section: Assertion"
/* What the console shows, and what that says. */
static const struct { const char *text, *why; } guest_boot_stalls[] = {
	{ "rcu_preempt detected stalls", "the guest kernel stalled before its agent came up "
					 "(console: rcu_preempt detected stalls)" },
	{ "IO-APIC + timer doesn't work", "the guest kernel panicked before its agent came up "
					  "(console: IO-APIC + timer doesn't work)" },
};

static void free_error(gpointer e)
{
	if (e)
		g_error_free(e);
}

static bool file_has(const char *path, const char *what)
{
	g_autofree char *text = NULL;

	return g_file_get_contents(path, &text, NULL, NULL) && strstr(text, what);
}

/* @err is a time-out on a guest whose QEMU still runs, before the run's own deadline. */
static bool waited_on_live_guest(const struct run *run, const struct host_run *hr,
				 const GError *err)
{
	return g_error_matches(err, G_IO_ERROR, G_IO_ERROR_TIMED_OUT) &&
	       g_get_monotonic_time() < run->deadline && hr->proc &&
	       !qemu_proc_exited(hr->proc);
}

/*
 * A guest whose agent never greeted while QEMU ran, the run's own deadline
 * not reached, and whose console names no known stall: it went silent
 * (seen once, a 4-vCPU boot quiet after 0.58 s of kernel log). Where its
 * vCPUs are goes into @err's message and cpus-HOST.log, for the cause.
 */
static char *boot_silent(struct run *run, struct host_run *hr, GError *err)
{
	g_autofree char *cpus_log = host_file(run, "cpus", hr->h, "log");
	g_autofree char *where = NULL, *map = NULL;
	char *msg;

	if (!waited_on_live_guest(run, hr, err) || !hr->qmp)
		return NULL;
	map = run->opts->kernel ? guest_kernel_file(run->opts->kernel, "System.map") :
		g_strdup(cxlbed_path(CXLBED_GUEST_SYSTEM_MAP));
	where = vcpu_where(hr->qmp, map, cpus_log, deadline_in(run, QMP_CONNECT_S), NULL);
	if (!where)
		where = g_strdup("QEMU did not say");
	msg = g_strdup_printf("%s (vCPUs at: %s)", err->message, where);
	g_free(err->message);
	err->message = msg;
	return g_strdup_printf("the guest went silent before its agent came up (vCPUs at: %s)",
			       where);
}

/* Why @hr's boot failed for the platform's reasons (@err: connect_host's), or NULL. */
static char *boot_broken(struct run *run, struct host_run *hr, GError *err)
{
	g_autofree char *qemu_log = host_file(run, "qemu", hr->h, "log");
	g_autofree char *console = host_file(run, "console", hr->h, "log");
	g_autofree char *text = NULL;

	if (!hr->proc)
		return NULL;
	if (qemu_proc_exited(hr->proc))
		return WIFSIGNALED(hr->proc->wait_status) &&
		       WTERMSIG(hr->proc->wait_status) == SIGABRT &&
		       file_has(qemu_log, QEMU_BOOT_ABORT) ?
		       g_strdup("QEMU aborted (QEMU's TCG defect: " QEMU_BOOT_ABORT ")") : NULL;
	if (g_file_get_contents(console, &text, NULL, NULL))
		for (size_t i = 0; i < G_N_ELEMENTS(guest_boot_stalls); i++)
			if (strstr(text, guest_boot_stalls[i].text))
				return g_strdup(guest_boot_stalls[i].why);
	return boot_silent(run, hr, err);
}

/*
 * Keep a failed attempt's logs beside the run's: qemu-HOST.bootN.log,
 * console-HOST.bootN.log, the timing report, timing-HOST.bootN.json, and
 * a silent guest's vCPU registers, cpus-HOST.bootN.log.
 */
static void keep_attempt_logs(const struct run *run, const struct host_run *hr, int attempt)
{
	static const struct { const char *what, *ext; } logs[] = {
		{ "qemu", "log" }, { "console", "log" }, { "timing", "json" }, { "cpus", "log" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(logs); i++) {
		g_autofree char *log = host_file(run, logs[i].what, hr->h, logs[i].ext);
		g_autofree char *kept = g_strdup_printf("%s/%s-%s.boot%d.%s", run->dir,
							logs[i].what, hr->h->id, attempt,
							logs[i].ext);

		rename(log, kept);
	}
}

/*
 * A guest that stopped answering while it set up its regions (the agent
 * timed out, QEMU still runs, the run's own deadline not reached) hung
 * before anything was measured. Seen once in CI on a two-host boot
 * (contention.topo: one host's create-region never answered in 120 s,
 * 11-13 s being usual); its cause is not known, so the kept logs and the
 * timing report's clock state (docs/timing-model.md) say what it waited for.
 */
static const char *regions_hung(const struct run *run, const struct host_run *hr,
				const GError *err)
{
	if (!waited_on_live_guest(run, hr, err))
		return NULL;
	return "the guest stopped answering while its regions were created";
}

/*
 * Start every host (they boot in parallel), wait for each to come up and
 * create its regions; when one failed for the platform's reasons
 * (boot_broken, regions_hung), stop them all and start again, with a
 * fresh timing segment: the hosts' modeled clocks meet there, and a dead
 * QEMU's would hold the others back. Then each host's enumeration.
 */
static void boot_hosts(struct run *run)
{
	g_autoptr(GError) err = NULL;
	struct host_run *hr;

	for (int attempt = 1;; attempt++) {
		GPtrArray *errors = g_ptr_array_new_with_free_func(free_error);
		GPtrArray *region_errors = g_ptr_array_new_with_free_func(free_error);
		g_autoptr(GString) broken = g_string_new(NULL);
		bool start_failed = false;
		bool may_retry;

		run_state_stage(run->state, "starting", NULL);
		cb_foreach(run->hosts, struct host_run, hr) {
			g_clear_error(&err);
			if (qemu_proc_interrupted())
				break;	/* nothing more starts after Ctrl-C */
			if (!start_host(run, hr, &err)) {
				host_fail(run, hr, "start", err);
				start_failed = true;
			}
		}
		cb_foreach(run->hosts, struct host_run, hr) {
			GError *e = NULL;
			g_autofree char *why = NULL;

			if (!hr->failed && !qemu_proc_interrupted() &&
			    !connect_host(run, hr, &e) && (why = boot_broken(run, hr, e)))
				g_string_append_printf(broken, "%s%s: %s", broken->len ? "; " : "",
						       hr->h->id, why);
			g_ptr_array_add(errors, e);
		}
		may_retry = !start_failed && attempt < BOOT_ATTEMPTS;
		for (guint i = 0; i < run->hosts->len; i++) {
			GError *e = NULL;
			const char *why;

			hr = g_ptr_array_index(run->hosts, i);
			if (!broken->len && !hr->failed && !g_ptr_array_index(errors, i) &&
			    !qemu_proc_interrupted() && !create_regions(run, hr, &e) &&
			    (why = regions_hung(run, hr, e)) && may_retry)
				g_string_append_printf(broken, "%s: %s (%s)", hr->h->id, why,
						       e->message);
			g_ptr_array_add(region_errors, e);
		}
		if (broken->len && may_retry && !qemu_proc_interrupted()) {
			char *why = g_strdup_printf("attempt %d: %s", attempt, broken->str);

			progress(NULL, "boot", "%s; starting every host again", why);
			g_ptr_array_add(run->res->boot_retries, why);
			cb_foreach(run->hosts, struct host_run, hr) {
				release_host(run, hr);
				keep_attempt_logs(run, hr, attempt);
			}
			g_ptr_array_unref(errors);
			g_ptr_array_unref(region_errors);
			if (run->shm) {
				timing_run_cleanup(run->res->run_id);
				g_clear_error(&err);
				if (!timing_run_create_segment(run->res->run_id, &err)) {
					result_check(run->res, "boot", false, "%s", err->message);
					return;
				}
			}
			continue;
		}
		for (guint i = 0; i < run->hosts->len; i++) {
			hr = g_ptr_array_index(run->hosts, i);
			if (g_ptr_array_index(errors, i))
				host_fail(run, hr, "boot", g_ptr_array_index(errors, i));
			else if (g_ptr_array_index(region_errors, i))
				host_fail(run, hr, "regions", g_ptr_array_index(region_errors, i));
		}
		g_ptr_array_unref(errors);
		g_ptr_array_unref(region_errors);
		break;
	}
	cb_foreach(run->hosts, struct host_run, hr) {
		g_clear_error(&err);
		if (hr->failed || qemu_proc_interrupted())
			continue;
		if (!enumerate_host(run, hr, &err))
			host_fail(run, hr, "enumerate", err);
		else {
			g_autofree char *name = g_strdup_printf("boot:%s", hr->h->id);

			result_check(run->res, name, true, "agent up, %u region(s) online in %.1f s",
				     hr->h->regions->len, hr->res->boot_ready_s);
		}
	}
}

static bool host_selected(const struct run *run, const struct cb_host *h)
{
	return !run->opts->only_host || !strcmp(run->opts->only_host, h->id);
}

int runner_run(const struct scenario *s, const struct cb_topology *t,
	       const struct run_opts *o, struct run_result **result_out)
{
	g_autoptr(run_result) res = result_new();
	g_autoptr(GError) err = NULL;
	g_autoptr(GDateTime) now = g_date_time_new_now_utc();
	struct run run = { .scn = s, .topo = t, .opts = o, .res = res };
	struct host_run *hr;
	const struct cb_host *h;
	gint64 t0 = g_get_monotonic_time();
	int rc;

	run.deadline = t0 + (gint64)s->timeout_s * G_USEC_PER_SEC;
	res->run_id = run_id_new(t->name);
	res->topology = g_strdup(t->file);
	res->topology_name = g_strdup(t->name);
	res->scenario = g_strdup(s->name);
	res->started_at = g_date_time_format_iso8601(now);
	res->cxlbed_version = g_strdup(cxlbed_version());
	res->cxlbed_commit = g_strdup(cxlbed_commit());
	res->boot_ready_s = -1;
	res->timing_model = o->timing;
	res->guest_clock = o->timing && !o->host_clock ? "modeled" : "host";
	if (o->kernel && o->kernel->release) {
		res->guest_kernel = guest_kernel_to_json(o->kernel);
		guest_view_set_link_rule(o->kernel->link);
	}
	run.dir = o->out_dir ? g_strdup(o->out_dir) :
		g_build_filename(cxlbed_path(CXLBED_RESULTS), res->run_id, NULL);
	res->out_dir = g_strdup(run.dir);

	/* What killed runs left goes first; a live run is never touched. */
	run_sweep(stderr, false, false, NULL);
	rc = claim_run(&run);
	if (rc) {
		g_free(run.shm);
		g_free(run.dir);
		return rc;
	}
	run.hosts = g_ptr_array_new_with_free_func(g_free);
	qemu_proc_install_signal_guard();
	progress_start();
	progress(NULL, "run", "%s: topology %s, scenario %s -> %s", res->run_id,
		 t->file, s->name, run.dir);
	data_check_warn(t);
	run_state_stage(run.state, "preparing", NULL);
	if (!prepare_dir(&run, &err) || !prepare_layer(&run, &err)) {
		progress(NULL, "FAILED", "%s", err->message);
		release_run(&run, "fail: could not prepare the run folder or the guest layer");
		g_ptr_array_unref(run.hosts);
		g_free(run.dir);
		return 1;
	}

	cb_foreach(t->hosts, const struct cb_host, h) {
		if (!host_selected(&run, h))
			continue;
		hr = g_new0(struct host_run, 1);
		hr->h = h;
		hr->res = result_add_host(res, h->id);
		g_ptr_array_add(run.hosts, hr);
	}
	boot_hosts(&run);

	if (o->interactive) {
		run_state_stage(run.state, "console", NULL);
		cb_foreach(run.hosts, struct host_run, hr)
			if (hr->proc) {
				progress(hr->h->id, "console", "interactive: `poweroff` or Ctrl-A X ends it");
				qemu_proc_wait(hr->proc);
			}
	} else {
		check_shared_pools(&run);
		start_fm(&run);
		run_workloads(&run);
		fm_stop(run.fm, res);
		g_clear_pointer(&run.fm, fm_free);
	}

	if (qemu_proc_interrupted()) {
		res->interrupted = g_strdup_printf("SIG%s", sigabbrev_np(qemu_proc_interrupted()));
		result_check(res, "interrupted", false, "run interrupted by %s; cxlbed "
			     "stopped QEMU", res->interrupted);
	}
	teardown(&run);
	res->wall_s = (g_get_monotonic_time() - t0) / 1e6;

	run_state_stage(run.state, "results", NULL);
	{
		g_autofree char *summary = g_build_filename(run.dir, "summary.json", NULL);
		g_autofree char *report = g_build_filename(run.dir, "report.md", NULL);
		g_autofree char *html = g_build_filename(run.dir, "report.html", NULL);
		g_autoptr(GError) werr = NULL;

		if (!result_write_summary(res, summary, &werr) ||
		    !result_write_report(res, report, &werr) ||
		    !result_write_html(res, t, html, &werr))
			progress(NULL, "FAILED", "writing results: %s", werr->message);
	}
	if (!o->interactive && !o->quiet)
		result_print_table(res, stdout);
	{
		g_autofree char *outcome = res->interrupted ?
			g_strdup_printf("interrupted by %s", res->interrupted) :
			g_strdup(result_passed(res) ? "pass" : "fail");

		release_run(&run, outcome);
	}
	g_ptr_array_unref(run.hosts);
	g_free(run.dir);
	g_free(run.initrd);
	rc = qemu_proc_interrupted() ? 128 + qemu_proc_interrupted() :
		result_passed(res) ? 0 : 1;
	if (result_out)
		*result_out = g_steal_pointer(&res);
	return rc;
}
