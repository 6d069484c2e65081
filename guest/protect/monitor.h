/* SPDX-License-Identifier: MIT */
/*
 * The kernel's word on CXL memory, as the guest runtime hears it: a
 * thread that follows the trace events the CXL and AER drivers and the
 * memory-failure code emit (through libtracefs, in an instance of its
 * own, as ndctl's `cxl monitor` does) and queues what matters for the
 * runtime to take:
 *   cxl:cxl_general_media, cxl:cxl_dram   an event record (HPA if mapped)
 *   cxl:cxl_memory_module                 health / media status changes
 *   cxl:cxl_poison                        a poison list entry (HPA, length)
 *   cxl:cxl_aer_correctable_error         link or device trouble, corrected
 *   cxl:cxl_aer_uncorrectable_error       the kernel will drop CXL.mem
 *   aer:aer_event                         PCIe AER (mapped to the memdev)
 *   ras:memory_failure_event              memory_failure() took a page
 * Every CXL event names the device's serial, which is how a pool LD is
 * known (docs/faults.md).
 */
#ifndef CXLBED_MONITOR_H
#define CXLBED_MONITOR_H

#include <stdint.h>

enum mon_kind {
	MON_GENERAL_MEDIA, MON_DRAM, MON_MEMORY_MODULE, MON_POISON,
	MON_AER_CORRECTABLE, MON_AER_UNCORRECTABLE, MON_AER, MON_MEMORY_FAILURE,
};

struct mon_event {
	enum mon_kind kind;
	uint64_t serial;	/* the memdev's; 0 when not known */
	uint64_t hpa;		/* ~0: none (not mapped in a region) */
	uint64_t dpa;
	uint64_t length;	/* poison: bytes; media events: 64 */
	int log;		/* event log: 0 info, 1 warning, 2 failure, 3 fatal */
	int descriptor;		/* media events: bit 0 uncorrectable */
	int health, media_status;	/* memory module */
	int severity;		/* aer_event: 0 uncorrected non-fatal, 1 fatal, 2 corrected */
	char memdev[16];
};

const char *mon_kind_name(enum mon_kind k);

/* Start following (mounts tracefs if needed); 0, or -1 with errno. */
int mon_start(void);
/* Take up to @max queued events; returns how many. */
int mon_take(struct mon_event *out, int max);
/* Events seen since the start, and lost to a full queue. */
unsigned int mon_seen(void);
unsigned int mon_dropped(void);
void mon_stop(void);

#endif
