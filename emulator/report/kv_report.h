/* SPDX-License-Identifier: MIT */
/*
 * report.md's "KV cache shared through a CXL pool" section: each
 * cxlbed-kvshare decode run's paths side by side, CXL's lead over RDMA
 * beside the published ratios, and what makes it larger or smaller
 * (docs/kv-share.md).
 */
#ifndef CXLBED_KV_REPORT_H
#define CXLBED_KV_REPORT_H

#include <glib.h>

#include "result.h"

/* Appends nothing when no workload is a cxlbed-kvshare decode run. */
void kv_report_md(GString *s, const struct run_result *r);

#endif
