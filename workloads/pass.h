/* SPDX-License-Identifier: MIT */
/*
 * Streaming kernels shared by cxlbed-stream and cxlbed-loaded: one pass
 * over a buffer, line by line, reading, writing or both in a fixed ratio,
 * in sequential or pseudo-random line order.
 */
#ifndef CXLBED_WL_PASS_H
#define CXLBED_WL_PASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WL_LINE	64	/* bytes; the default topology's cache line */

enum wl_kind { WL_READ, WL_WRITE, WL_MIX21, WL_MIX11, WL_NKINDS };

struct wl_moved {
	uint64_t read_bytes, write_bytes;
};

/* "read", "write", "2:1", "1:1": as --mix spells it. */
const char *wl_kind_label(int kind);
/* "read", "write", "mix": the ROI kind the runner knows. */
const char *wl_kind_roi(int kind);

/*
 * One pass over @lines lines of @buf. The k-th line visited is written or
 * read as @kind says (2:1 writes every third, 1:1 every second); @random
 * visits the lines in a pseudo-random order (a bijection, every line once)
 * so that no prefetcher helps. Adds what it moved to @m.
 */
void wl_pass(void *buf, size_t lines, int kind, bool random, uint64_t seed,
	     struct wl_moved *m);

#endif
