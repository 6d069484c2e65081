/* SPDX-License-Identifier: MIT */
/*
 * Keeping the timing model in step with bindings: with --timing, a bound
 * LD becomes a region of its host's timing configuration and an unbound
 * one leaves it; the plugin rebuilds its fabric at its next check-in
 * (emulator/timing/plugin_reload.c). No-ops without the timing model.
 */
#ifndef CXLBED_FM_TIMING_H
#define CXLBED_FM_TIMING_H

#include "fm/fm_priv.h"

void fm_timing_bound(struct fm *fm, struct fm_host *fh, const struct fm_ld *e,
		     const struct cb_device *dev);
void fm_timing_unbound(struct fm *fm, struct fm_host *fh, const struct fm_ld *e);
void fm_timing_close(struct fm_host *fh);

#endif
