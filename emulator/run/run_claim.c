/* SPDX-License-Identifier: MIT */
/* Claiming a run: its name, register entry, folder, state.json, timing
 * segment and guest layer, before anything starts; and letting go. */
#include "run/run_priv.h"
#include "run/guest_kernel.h"
#include "run/guest_layer.h"
#include "run/timing_run.h"
#include "qemu/argv.h"
#include "common/error.h"
#include "run/run_dir.h"
#include "run/run_registry.h"
#include "run/run_state.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

/*
 * Name the run and claim its folder before anything starts: register it
 * (so a later cxlbed can clean up after it if it is killed), create the
 * folder and its state.json exclusively, then the timing segment.
 * Returns 0, or the exit status with the reason on stderr: 2 for a
 * folder the person gave that cannot be used, 1 otherwise.
 */
int run_claim(struct run *run)
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
void run_release(struct run *run, const char *outcome)
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
bool run_prepare_dir(struct run *run, GError **error)
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
bool run_prepare_layer(struct run *run, GError **error)
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
