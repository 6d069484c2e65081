/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: any bytes as a scenario file, read as if it sat in
 * workloads/scenarios/ so that `topology = ../../topologies/NAME.topo`
 * finds a shipped topology and the rest of the file is parsed too. Bad
 * input must come back as a printable input error naming FILE:LINE
 * (fuzz_oracle.h).
 */
#include "run/scenario.h"
#include "fuzz_oracle.h"

#define FUZZ_FILE SRCDIR "/workloads/scenarios/fuzz.scn"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	g_autoptr(GError) e = NULL;
	g_autoptr(scenario) s = scenario_parse(FUZZ_FILE, (const char *)data,
					       size, &e);

	if (!s)
		fuzz_check_input_error(e, FUZZ_FILE);
	return 0;
}
