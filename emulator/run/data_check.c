/* SPDX-License-Identifier: MIT */
#include "run/data_check.h"
#include "run/guest_enum.h"
#include "qemu/qemu_binary.h"
#include "run/verify.h"

#include <stdio.h>

bool data_check_expect_broken(const struct cb_region *reg)
{
	const struct cb_device *d;

	cb_foreach(reg->devices, const struct cb_device, d)
		if (topology_device_switch_levels(d) > qemu_binary_switch_levels())
			return true;
	return false;
}

void data_check_warn(const struct cb_topology *t)
{
	const struct cb_region *reg;

	cb_foreach(t->regions, const struct cb_region, reg)
		if (data_check_expect_broken(reg))
			fprintf(stderr, "cxlbed: warning: %s:%d: region %s has devices "
				"behind more than %d switch level; this QEMU (%s) routes "
				"memory accesses through %d level only, so the guest "
				"enumerates and commits it but it holds no data (keep it "
				"devdax, or run cxlbed's QEMU, which make builds; "
				"docs/qemu.md)\n", reg->src.file, reg->src.line,
				reg->id, qemu_binary_switch_levels(), qemu_binary_path(),
				qemu_binary_switch_levels());
}

/* Arguments for cxlbed-verify on this region, or NULL if the guest lacks it. */
static JsonArray *verify_args(const struct cb_region *reg, JsonObject *gr)
{
	JsonArray *a = json_array_new();
	g_autofree char *where = NULL;

	if (reg->mode == CB_REGION_RAM) {
		gint64 node = json_object_get_int_member_with_default(gr, "node", -1);

		if (node < 0)
			goto none;
		where = g_strdup_printf("%" G_GINT64_FORMAT, node);
		json_array_add_string_element(a, "--node");
	} else {
		const char *dax = json_object_get_string_member_with_default(gr, "dax", NULL);

		if (!dax)
			goto none;
		where = g_strdup(dax);
		json_array_add_string_element(a, "--dax");
	}
	json_array_add_string_element(a, where);
	json_array_add_string_element(a, "--bytes");
	json_array_add_string_element(a, "2M");
	return a;
none:
	json_array_unref(a);
	return NULL;
}

void data_check_regions(struct run_result *r, const struct cb_host *h,
			struct agent *a, JsonObject *en, gint64 deadline_us)
{
	const struct cb_region *reg;

	cb_foreach(h->regions, const struct cb_region, reg) {
		g_autofree char *name = g_strdup_printf("data:%s:%s", h->id, reg->id);
		g_autoptr(JsonObject) args = json_object_new();
		g_autoptr(JsonObject) res = NULL;
		g_autoptr(GError) err = NULL;
		JsonObject *gr = guest_enum_region(en, reg);
		JsonArray *argv = gr ? verify_args(reg, gr) : NULL;
		bool broken = data_check_expect_broken(reg);
		JsonObject *out;
		gint64 bad, words;

		if (!argv) {
			result_check(r, name, false, "%s has no node or dax device to test",
				     reg->id);
			continue;
		}
		json_object_set_string_member(args, "program", "cxlbed-verify");
		json_object_set_array_member(args, "args", argv);
		json_object_set_int_member(args, "timeout_s", 120);
		res = agent_call(a, "run", args, deadline_us, &err);
		out = res && json_object_has_member(res, "output") &&
			JSON_NODE_HOLDS_OBJECT(json_object_get_member(res, "output")) ?
			json_object_get_object_member(res, "output") : NULL;
		if (!out) {
			result_check(r, name, false, "cxlbed-verify on %s gave no result: %s",
				     reg->id, err ? err->message :
				     json_object_get_string_member_with_default(res, "stderr", ""));
			continue;
		}
		bad = json_object_get_int_member_with_default(out, "mismatched_words", -1);
		words = json_object_get_int_member_with_default(out, "bytes", 0) / 8;
		if (broken)
			/* passes while QEMU's known limit holds: say so, not "wrong" */
			result_check(r, name, bad > 0,
				     "%s: this QEMU's known limit holds here (it routes memory "
				     "accesses through %d switch level only, this region lies "
				     "deeper), so its data is not kept: %" G_GINT64_FORMAT " of %"
				     G_GINT64_FORMAT " words did not read back; keep no data there "
				     "(cxlbed's QEMU carries any depth: docs/qemu.md). A failure "
				     "of this check means this QEMU does too: update qemu_binary.c",
				     reg->id, qemu_binary_switch_levels(), bad, words);
		else
			result_check(r, name, bad == 0,
				     "%s: wrote and read back %" G_GINT64_FORMAT " words, "
				     "%" G_GINT64_FORMAT " wrong", reg->id, words, bad);
	}
}
