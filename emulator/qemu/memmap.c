// SPDX-License-Identifier: MIT
#include "qemu/memmap.h"

#define MIB (1024ull * 1024)
#define GIB (1024ull * MIB)
#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))

/* q35: RAM below 4 GiB stops at 2 GiB when there is 2.75 GiB or more. */
static uint64_t low_ram(uint64_t ram)
{
	uint64_t lowmem = ram >= 0xb0000000ull ? 0x80000000ull : 0xb0000000ull;

	return ram < lowmem ? ram : lowmem;
}

static uint64_t above_4g_end(uint64_t ram)
{
	return 4 * GIB + (ram - low_ram(ram));
}

int qemu_dram_ranges(const struct cb_host *h, struct qemu_range r[3])
{
	uint64_t low = low_ram(h->memory);
	int n = 0;

	/* The legacy VGA/BIOS hole from 640 KiB to 1 MiB is not RAM. */
	r[n++] = (struct qemu_range){ 0, 640 * 1024 };
	if (low > MIB)
		r[n++] = (struct qemu_range){ MIB, low - MIB };
	if (h->memory > low)
		r[n++] = (struct qemu_range){ 4 * GIB, h->memory - low };
	return n;
}

uint64_t qemu_window_base(const struct cb_host *h, const struct cb_window *w)
{
	uint64_t base = ALIGN_UP(above_4g_end(h->memory) + MIB, 256 * MIB);
	struct cb_window *o;

	cb_foreach(h->windows, struct cb_window, o)
		if (o->index < w->index)
			base += o->size;
	return base;
}

uint64_t qemu_region_base(const struct cb_host *h, const struct cb_region *r)
{
	uint64_t cursor = qemu_window_base(h, r->window);
	struct cb_region *o;

	cb_foreach(h->regions, struct cb_region, o) {
		if (o->window != r->window)
			continue;
		cursor = ALIGN_UP(cursor, 256 * MIB);
		if (o == r)
			return cursor;
		cursor += o->size;
	}
	return cursor;
}
