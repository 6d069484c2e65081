/* SPDX-License-Identifier: MIT */
#include "qemu/address_map.h"
#include "common/error.h"
#include "qemu/timing_config.h"


#define GIB_UP(x) (((x) + CB_GIB - 1) / CB_GIB * CB_GIB)

/* End of the 64-bit PCI hole QEMU places after CXL memory ending at @cxl_end. */
static uint64_t hole_end(uint64_t cxl_end)
{
	return GIB_UP(cxl_end) + QEMU_PCI_HOLE64;
}

bool qemu_check_address_map(const struct cb_host *h, GError **error)
{
	/* windows follow one another from where the first one starts */
	const struct cb_window before_all = { .index = -1 };
	const uint64_t room = QEMU_AMD_HT_START - QEMU_PCI_HOLE64;
	uint64_t base = timing_window_base(h, &before_all);
	const struct cb_window *w;

	if (hole_end(base) > QEMU_AMD_HT_START) {
		cxlbed_input_error(error, h->src.file, h->src.line, "host %s: "
				   "%llu MiB of memory does not fit the "
				   "guest-physical address space of QEMU's q35 "
				   "under TCG (40 address bits, less the "
				   "HyperTransport and 64-bit PCI holes: RAM "
				   "above 4 GiB and CXL windows end by %llu GiB); "
				   "use less memory", h->id,
				   (unsigned long long)(h->memory / CB_MIB),
				   (unsigned long long)(room / CB_GIB));
		return false;
	}
	cb_foreach(h->windows, const struct cb_window, w) {
		base += w->size;
		if (hole_end(base) > QEMU_AMD_HT_START) {
			cxlbed_input_error(error, w->src.file, w->src.line,
					   "window %s of host %s would end at "
					   "%llu GiB of guest-physical addresses, "
					   "and QEMU's q35 under TCG maps CXL "
					   "windows only up to %llu GiB (40 address "
					   "bits, less the HyperTransport and 64-bit "
					   "PCI holes); make it or host memory "
					   "smaller", w->id, h->id,
					   (unsigned long long)(GIB_UP(base) / CB_GIB),
					   (unsigned long long)(room / CB_GIB));
			return false;
		}
	}
	return true;
}
