/* SPDX-License-Identifier: MIT */
/*
 * Where things sit in one host's guest-physical address space, as QEMU 10
 * (q35, -m without maxmem) lays it out and the guest kernel (6.12) fills
 * it: local DRAM below and above 4 GiB, the CXL fixed memory windows, and
 * the regions the guest creates in them. The timing model decodes with
 * these addresses and the SRAT names them; both read them from here.
 */
#ifndef CXLBED_QEMU_MEMMAP_H
#define CXLBED_QEMU_MEMMAP_H

#include <stdint.h>

#include "topology/topology.h"

struct qemu_range {
	uint64_t base, size;
};

/*
 * The host's DRAM as QEMU's own SRAT would describe it: [0, 640 KiB),
 * [1 MiB, top of low RAM) and the rest above 4 GiB. Fills @r with up to
 * three ranges and returns how many.
 */
int qemu_dram_ranges(const struct cb_host *h, struct qemu_range r[3]);

/*
 * Window @w's base: the CXL host register block (1 MiB) starts where RAM
 * above 4 GiB ends, and windows follow it back to back from the next
 * 256 MiB boundary, in index order.
 */
uint64_t qemu_window_base(const struct cb_host *h, const struct cb_window *w);

/*
 * Region @r's base as the guest kernel allocates it when regions are
 * created in topology order: the lowest free 256 MiB-aligned address of
 * its window (seen: a 4-way region at the window base, 0x110000000).
 */
uint64_t qemu_region_base(const struct cb_host *h, const struct cb_region *r);

#endif
