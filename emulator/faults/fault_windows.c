/* SPDX-License-Identifier: MIT */
/*
 * When each workload ran (faults.h), host wall time since the run's start:
 * written by the runner's thread, read when faults are joined with what
 * the runtimes saw.
 */
#include "faults/fault_priv.h"

void faults_workload(struct faults *f, const char *host, const char *name, bool start,
		     double t_s)
{
	g_autofree char *key = NULL;
	double *w;

	if (!f)
		return;
	key = g_strdup_printf("%s/%s", host, name);
	g_mutex_lock(&f->lock);
	w = g_hash_table_lookup(f->windows, key);
	if (!w) {
		w = g_new(double, 2);
		w[0] = t_s;
		w[1] = -1;
		g_hash_table_insert(f->windows, g_steal_pointer(&key), w);
	}
	if (!start)
		w[1] = t_s;
	g_mutex_unlock(&f->lock);
}

bool faults_workload_window(struct faults *f, const char *host, const char *name,
			    double *start, double *end)
{
	g_autofree char *key = g_strdup_printf("%s/%s", host, name);
	double *w;

	g_mutex_lock(&f->lock);
	w = g_hash_table_lookup(f->windows, key);
	if (w) {
		*start = w[0];
		*end = w[1];
	}
	g_mutex_unlock(&f->lock);
	return w != NULL;
}
