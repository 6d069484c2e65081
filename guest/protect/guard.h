/* SPDX-License-Identifier: MIT */
/*
 * Touching pool memory that may be gone. A pool LD used as devdax can
 * vanish under a mapping (surprise removal, a fatal error that makes the
 * kernel drop CXL.mem): the next access gets SIGBUS (BUS_ADRERR). A page
 * the kernel's memory-failure handling took (hardware poison) gets
 * SIGBUS BUS_MCEERR_AR on access, and with early kill BUS_MCEERR_AO at
 * once, for the whole mapping page (2 MiB on devdax). Every copy to or
 * from pool memory goes through guard_copy, which turns the first kind
 * into an error return; AO reports are queued for the store to take.
 * (docs/faults.md, "What the guest kernel does".)
 */
#ifndef CXLBED_GUARD_H
#define CXLBED_GUARD_H

#include <stddef.h>
#include <stdint.h>

struct guard_fault {
	uintptr_t addr;		/* faulting address (AO: start of the page) */
	int code;		/* si_code: BUS_ADRERR, BUS_MCEERR_AR, ... */
	int lsb;		/* log2 of the poisoned range (MCEERR), else 0 */
};

/* Install the SIGBUS handler and ask for early memory-failure reports. */
int guard_install(void);

/* memcpy that returns -1 (and the fault in @f) instead of dying on SIGBUS. */
int guard_copy(void *dst, const void *src, size_t len, struct guard_fault *f);

/* Take up to @max queued poison reports (BUS_MCEERR_AO); returns how many. */
int guard_take_poison(struct guard_fault *out, int max);

/* Reports lost because the queue was full (then rescan everything). */
unsigned int guard_poison_overflows(void);

#endif
