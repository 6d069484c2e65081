/* SPDX-License-Identifier: MIT */
#include "common/version.h"
#include "cxlbed_version.h"	/* made by the Makefile in build/gen/ */

const char *cxlbed_version(void)
{
	return CXLBED_VERSION;
}

const char *cxlbed_commit(void)
{
	return CXLBED_COMMIT;
}
