/* SPDX-License-Identifier: MIT */
/*
 * The signal guard of process.c kills every child it registered, however
 * many: a topology has no host limit, so neither has the child table.
 * Children are plain `sleep`s: what is tested is the bookkeeping.
 */
#include "tap.h"
#include "qemu/process.h"

#include <signal.h>
#include <sys/wait.h>

#define NCHILDREN 100	/* more than the 64 the table once held */

int main(void)
{
	struct qemu_proc *p[NCHILDREN] = { 0 };
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	gint64 end;
	int spawned = 0, killed = 0;

	plan(3);
	g_ptr_array_add(argv, "sleep");
	g_ptr_array_add(argv, "60");
	g_ptr_array_add(argv, NULL);
	qemu_proc_install_signal_guard();
	for (int i = 0; i < NCHILDREN; i++) {
		g_autoptr(GError) err = NULL;

		p[i] = qemu_proc_spawn("t", argv, "/dev/null", &err);
		spawned += p[i] != NULL;
	}
	is_int(spawned, NCHILDREN, "%d children started", NCHILDREN);
	raise(SIGTERM);
	ok(qemu_proc_interrupted() == SIGTERM, "SIGTERM is caught, not fatal");
	end = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
	for (int i = 0; i < NCHILDREN; i++) {
		if (!p[i])
			continue;
		while (!qemu_proc_exited(p[i]) && g_get_monotonic_time() < end)
			g_usleep(1000);
		if (p[i]->reaped && WIFSIGNALED(p[i]->wait_status) &&
		    WTERMSIG(p[i]->wait_status) == SIGKILL)
			killed++;
		else
			qemu_proc_stop(p[i], NULL, 0);
		qemu_proc_free(p[i]);
	}
	is_int(killed, NCHILDREN, "the guard killed every one of them");
	return done_testing();
}
