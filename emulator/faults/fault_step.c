/* SPDX-License-Identifier: MIT */
/* One step of a fault's injection, into its record (fault_priv.h). */
#include "faults/fault_priv.h"

void fault_step(struct fault_run *r, const char *what, const char *host, bool ok,
		const char *detail, double wall_s)
{
	JsonObject *o = json_object_new();

	json_object_set_string_member(o, "what", what);
	if (host)
		json_object_set_string_member(o, "host", host);
	json_object_set_boolean_member(o, "ok", ok);
	if (detail && *detail)
		json_object_set_string_member(o, "detail", detail);
	json_object_set_double_member(o, "wall_s", wall_s);
	json_array_add_object_element(r->steps, o);
	if (!ok)
		r->ok = false;
}
