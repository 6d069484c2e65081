/* SPDX-License-Identifier: MIT */
/* The guest's enumeration, read (guest_enum.h). */
#include "run/guest_enum.h"
#include "common/json_get.h"

/* The guest region whose targets are exactly this region's devices, in order. */
static JsonObject *find_guest_region(JsonArray *regions, const struct cb_region *reg);

JsonObject *guest_enum_region(JsonObject *enumeration, const struct cb_region *reg)
{
	return find_guest_region(json_get_array(enumeration, "regions"), reg);
}

static JsonObject *find_guest_region(JsonArray *regions, const struct cb_region *reg)
{
	for (guint i = 0; regions && i < json_array_get_length(regions); i++) {
		JsonObject *gr = json_array_get_object_element(regions, i);
		JsonArray *targets = json_get_array(gr, "targets");
		bool match;

		if (!targets || json_array_get_length(targets) != reg->devices->len)
			continue;
		match = true;
		for (guint j = 0; j < reg->devices->len && match; j++) {
			const struct cb_device *d = g_ptr_array_index(reg->devices, j);

			match = (uint64_t)json_array_get_int_element(targets, j) == d->serial;
		}
		if (match)
			return gr;
	}
	return NULL;
}
