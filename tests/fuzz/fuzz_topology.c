/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: any bytes as a topology file. What `cxlbed plan
 * --timing` does with it, short of printing: parse and validate, check
 * QEMU's numbering and address map and the timing model's limits, then
 * build each host's command line, timing configuration and CDAT tables.
 * Bad input must come back as an input error naming FILE:LINE, printable
 * (fuzz_oracle.h); anything else (a crash, a sanitizer report, another
 * error) is a finding.
 */
#include "qemu/argv.h"
#include "qemu/cdat.h"
#include "common/error.h"
#include "qemu/pci_numbers.h"
#include "qemu/timing_config.h"
#include "qemu/timing_limits.h"
#include "topology/topology.h"
#include "fuzz_oracle.h"

#define FUZZ_FILE "fuzz.topo"

static void check_error(const GError *e)
{
	fuzz_check_input_error(e, FUZZ_FILE);
}

static void build_host(const struct cb_topology *t, const struct cb_host *h)
{
	struct qemu_opts o;
	g_autoptr(GError) e = NULL;
	g_autoptr(GPtrArray) argv = NULL;
	g_autofree char *plugin = NULL, *cfg = NULL;
	const struct cb_device *d;
	const struct cb_switch *sw;

	qemu_opts_for_run(&o, "results/RUN_ID");
	plugin = g_strdup("timing.so,config=x");
	o.plugin = plugin;
	argv = qemu_argv_build(t, h, &o, &e);
	if (!argv)
		check_error(e);
	cfg = timing_config_text(t, h, NULL);
	cb_foreach(h->devices, const struct cb_device, d)
		g_bytes_unref(cdat_build(d));
	cb_foreach(h->switches, const struct cb_switch, sw)
		g_bytes_unref(cdat_build_switch(sw));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	g_autoptr(GError) e = NULL;
	g_autoptr(cb_topology) t = topology_parse_len(FUZZ_FILE,
						      (const char *)data, size, &e);
	const struct cb_host *h;
	const struct cb_region *r;

	if (!t) {
		check_error(e);
		return 0;
	}
	if (!qemu_check_topology(t, &e)) {
		check_error(e);
		return 0;
	}
	cb_foreach(t->regions, const struct cb_region, r) {
		(void)topology_region_gbps(r, CB_READ);
		(void)topology_region_latency_ns(r, CB_WRITE);
	}
	if (!timing_check_limits(t, &e)) {
		check_error(e);
		g_clear_error(&e);
	}
	cb_foreach(t->hosts, const struct cb_host, h)
		build_host(t, h);
	return 0;
}
