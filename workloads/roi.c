// SPDX-License-Identifier: MIT
#include <stdatomic.h>
#include <string.h>

#include "roi.h"
#include "wl.h"

#define MAX_ROIS (4 * WL_MAX_THREADS + 4)

/*
 * A spinning lock, not a mutex: a contended mutex sleeps in the kernel,
 * which the model does not see, and the vCPU's clock would jump.
 */
static atomic_flag lock = ATOMIC_FLAG_INIT;
static struct roi_entry list[MAX_ROIS];
static int nlist;

void roi_lock(void)
{
	while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
		__builtin_ia32_pause();
}

void roi_unlock(void)
{
	atomic_flag_clear_explicit(&lock, memory_order_release);
}

void roi_record(const struct roi_entry *e)
{
	if (nlist < MAX_ROIS)
		list[nlist++] = *e;
}

void roi_print(FILE *f)
{
	fputs(",\"rois\":[", f);
	for (int i = 0; i < nlist; i++) {
		const struct roi_entry *e = &list[i];

		fprintf(f, "%s{\"id\":%d,\"kind\":\"%s\"", i ? "," : "", e->id,
			e->kind);
		if (e->mix)
			fprintf(f, ",\"mix\":\"%s\",\"read_fraction\":%.3f",
				e->mix, e->read_fraction);
		if (!strcmp(e->kind, "chase"))
			fprintf(f, ",\"accesses\":%llu",
				(unsigned long long)e->accesses);
		else
			fprintf(f, ",\"bytes\":%llu", (unsigned long long)e->bytes);
		fprintf(f, ",\"thread\":%d,\"role\":\"%s\"}", e->thread, e->role);
	}
	fputc(']', f);
}
