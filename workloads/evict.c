// SPDX-License-Identifier: MIT
#include <stdint.h>

#include "evict.h"
#include "pass.h"
#include "wl.h"

static const volatile char *evict_buf;
static void *dirty_buf;
static size_t evict_bytes;
static volatile uint64_t sink;

void wl_evict_init(const char *name, size_t bytes)
{
	evict_bytes = bytes;
	/* no binding: first touch puts it on the CPU's own (local) node */
	if (bytes)
		evict_buf = wl_alloc_on_node(name, bytes, -1);
}

void wl_evict(void)
{
	uint64_t s = 0;

	for (size_t off = 0; off < evict_bytes; off += WL_LINE)
		s += evict_buf[off];
	sink = s;
}

void wl_evict_dirty_init(void *buf)
{
	dirty_buf = buf;
}

void wl_evict_dirty(int kind)
{
	struct wl_moved m = { 0 };

	if (dirty_buf)
		wl_pass((void *)dirty_buf, evict_bytes / WL_LINE, kind, false, 1,
			&m);
}
