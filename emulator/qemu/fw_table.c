// SPDX-License-Identifier: MIT
#include "qemu/fw_table.h"
#include "common/error.h"

bool fw_table_write(GBytes *bytes, const char *what, const char *path,
		    GError **error)
{
	g_autoptr(GError) local = NULL;
	gsize len;
	const void *data = g_bytes_get_data(bytes, &len);

	if (!g_file_set_contents(path, data, len, &local)) {
		g_set_error(error, CXLBED_ERROR, CXLBED_ERROR_RUN,
			    "cannot write %s: %s", what, local->message);
		return false;
	}
	return true;
}
