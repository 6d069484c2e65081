/* SPDX-License-Identifier: MIT */
/* What every part of the fabric manager uses: its clock, its hosts, its
 * checks, its socket's path (fm_priv.h). */
#include "fm/fm_priv.h"

#include <stdarg.h>
#include <string.h>

char *fm_socket_path(const char *rundir)
{
	return g_build_filename(rundir, "fm.sock", NULL);
}

double fm_now_s(const struct fm *fm)
{
	return run_clock_wall_s(fm->cfg.clock);
}

struct fm_host *fm_host_of(struct fm *fm, const char *id)
{
	struct fm_host *fh;

	cb_foreach(fm->hosts, struct fm_host, fh)
		if (!strcmp(fh->h->id, id))
			return fh;
	return NULL;
}

void fm_check(struct fm *fm, const char *name, bool pass, const char *fmt, ...)
{
	struct res_check *c = g_new0(struct res_check, 1);
	va_list ap;

	va_start(ap, fmt);
	c->detail = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	c->pass = pass;
	g_mutex_lock(&fm->lock);
	c->name = result_check_name(fm->checks, name);	/* a second refusal of one LD, ... */
	g_ptr_array_add(fm->checks, c);
	g_mutex_unlock(&fm->lock);
}
