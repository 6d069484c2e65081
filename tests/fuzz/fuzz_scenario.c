/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: any bytes as a scenario file, read as if it sat in
 * workloads/scenarios/ so that `topology = ../../topologies/NAME.topo`
 * finds a shipped topology and the rest of the file is parsed too. Bad
 * input must come back as an input error naming FILE:LINE.
 */
#include "error.h"
#include "scenario.h"

#include <stdint.h>
#include <stdlib.h>

#define FUZZ_FILE SRCDIR "/workloads/scenarios/fuzz.scn"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	g_autoptr(GError) e = NULL;
	g_autoptr(scenario) s = scenario_parse(FUZZ_FILE, (const char *)data,
					       size, &e);

	if (!s && (e->domain != CXLBED_ERROR || e->code != CXLBED_ERROR_INPUT ||
		   !g_str_has_prefix(e->message, FUZZ_FILE ":") ||
		   !g_ascii_isdigit(e->message[sizeof(FUZZ_FILE)])))
		abort();
	return 0;
}
