/* SPDX-License-Identifier: MIT */
/*
 * The host side of the guest clock device: the plugin plays the ivshmem
 * server for QEMU's ivshmem-doorbell device. Over a connected UNIX socket
 * (QEMU's `-chardev socket,fd=N` end of a socketpair the runner made) it
 * sends, as QEMU's ivshmem protocol wants them: version 0, our peer id 0,
 * the shared page (a memfd) and one eventfd per MSI-X vector. Writing
 * eventfd N makes QEMU's main loop raise vector N in the guest, i.e. a
 * clock interrupt on guest CPU N (guest/clock/cxlbed_clock.c).
 *
 * QEMU reads the first three messages while it realizes the device, which
 * happens after plugins are installed: clock_dev_serve() from the plugin's
 * install function is in time. Vector messages are read later, from the
 * main loop, once QEMU has allocated its vectors.
 */
#ifndef CXLBED_CLOCK_DEV_H
#define CXLBED_CLOCK_DEV_H

#include <stdbool.h>

#include "cxlbed-clock.h"

struct clock_dev {
	struct cxlbed_clock_page *page;
	int nvec;
	int efd[CXLBED_CLOCK_MAX_CPUS];
	int sock;
};

/* Serve @nvec vectors over @sock. False with *err (malloc'd) on failure. */
bool clock_dev_serve(struct clock_dev *d, int sock, int nvec, char **err);

/* Raise vector @vec (an interrupt for guest CPU @vec). */
void clock_dev_ring(struct clock_dev *d, int vec);

/* Has QEMU not yet taken the last ring of @vec? */
bool clock_dev_pending(const struct clock_dev *d, int vec);

#endif
