/* SPDX-License-Identifier: MIT */
/*
 * The guest's list of pool LDs it holds, as the agent keeps it in
 * /run/cxlbed/lds/SERIAL.json (guest/agent/ld_faults.c): which pool
 * (failure domain) each LD is from, and where the kernel put it.
 */
#ifndef CXLBED_LDREG_H
#define CXLBED_LDREG_H

#include <stdint.h>

#define LDREG_DIR "/run/cxlbed/lds"

struct ldreg_entry {
	uint64_t serial;
	char ld[32], pool[32], dax[32], region[32], memdev[16], mode[16];
	uint64_t base, size;	/* host physical address, bytes */
};

/* Up to @max entries from @dir (NULL: LDREG_DIR); returns how many. */
int ldreg_list(const char *dir, struct ldreg_entry *out, int max);
/* Parse one entry's text (a flat JSON object); 0, or -1. */
int ldreg_parse(const char *text, struct ldreg_entry *e);

#endif
