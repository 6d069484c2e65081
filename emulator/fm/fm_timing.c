/* SPDX-License-Identifier: MIT */
/* Bindings into the timing model (fm_timing.h). */
#include "fm_timing.h"

void fm_timing_bound(struct fm *fm, struct fm_host *fh, const struct fm_ld *e,
		     const struct cb_device *dev)
{
	(void)fm;
	(void)fh;
	(void)e;
	(void)dev;
}

void fm_timing_unbound(struct fm *fm, struct fm_host *fh, const struct fm_ld *e)
{
	(void)fm;
	(void)fh;
	(void)e;
}
